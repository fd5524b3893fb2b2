//go:build unix

package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDurable, when set in the environment, keeps PostgreSQL's durability
// settings (fsync, synchronous_commit) at their defaults: for benchmarks
// that should pay what a production commit pays.
const EnvDurable = "PGTEST_DURABLE"

// Cluster is one running (or stopped) throwaway PostgreSQL server.
type Cluster struct {
	t    testing.TB
	bin  string // directory of initdb and postgres
	dir  string // owns data/ and the log
	port int
	cred *syscall.Credential // nil when not root
	cmd  *exec.Cmd
	done chan error
}

var dbCounter atomic.Int64

// Bin returns the directory of the newest installed PostgreSQL's programs,
// or "" when none is installed.
func Bin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

// Start initialises and starts a cluster, registers its removal with
// t.Cleanup and returns it. It skips the test when PostgreSQL is absent and
// fails it when the cluster does not start (with postgres's log).
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, skip, err := launch(t)
	if c != nil {
		t.Cleanup(c.remove)
	}
	if skip != "" {
		t.Skip(skip)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var shared struct {
	sync.Mutex
	c *Cluster
}

// Shared returns a cluster shared by the tests of the process, started by
// the first call; call StopShared from TestMain after m.Run. Give each
// test a database of its own (NewDatabase). Do not Stop it.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil {
		c, skip, err := launch(t)
		if skip != "" {
			t.Skip(skip)
		}
		if err != nil {
			if c != nil {
				c.remove()
			}
			t.Fatal(err)
		}
		shared.c = c
	}
	shared.c.t = t
	return shared.c
}

// StopShared stops and removes the cluster Shared started, if any.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.c != nil {
		shared.c.remove()
		shared.c = nil
	}
}

func (c *Cluster) remove() {
	c.Stop()
	os.RemoveAll(c.dir)
}

// launch makes and starts a cluster: skip says why it cannot (PostgreSQL
// absent); a cluster returned with an error must still be removed.
func launch(t testing.TB) (*Cluster, string, error) {
	bin := Bin()
	if bin == "" {
		return nil, "PostgreSQL absent: no /usr/lib/postgresql/*/bin/postgres (apt-get install postgresql)", nil
	}
	c := &Cluster{t: t, bin: bin}
	var uid, gid int = -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, "PostgreSQL user absent: running as root needs the system user postgres: " + err.Error(), nil
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, "", err
	}
	c.dir = dir
	if c.cred != nil {
		if err := os.Chown(dir, uid, gid); err != nil {
			return c, "", err
		}
	}
	out, err := c.command("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions").CombinedOutput()
	if err != nil {
		return c, "", fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return c, "", err
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return c, "", c.start()
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

// Port is the loopback port the cluster listens on, the same across Stop
// and Start.
func (c *Cluster) Port() int { return c.port }

// URL is the connection URL of the cluster's "postgres" database.
func (c *Cluster) URL() string { return c.urlOf("postgres") }

func (c *Cluster) urlOf(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// NewDatabase creates an empty database in the cluster and returns its URL;
// each test of a suite gets one of its own.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", dbCounter.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return c.urlOf(name)
}

// Start starts the server again after Stop, on the same port, and waits
// until it accepts connections (at most 30 s); it fails the test if the
// server does not start. Starting a running cluster does nothing.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.start(); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) start() error {
	if c.cmd != nil {
		return nil
	}
	logf, err := os.OpenFile(filepath.Join(c.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	args := []string{"-D", c.data(), "-p", strconv.Itoa(c.port), "-h", "127.0.0.1", "-k", c.dir,
		"-c", "max_connections=300", "-c", "shared_buffers=32MB"}
	if os.Getenv(EnvDurable) == "" {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := c.command("postgres", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("pgtest: start postgres: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); logf.Close() }()
	c.cmd, c.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.URL())
		if err == nil {
			conn.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		select {
		case werr := <-done:
			c.cmd = nil
			return fmt.Errorf("pgtest: postgres exited: %v\n%s", werr, c.Log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: postgres did not accept connections in 30 s: %v\n%s", err, c.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server (fast shutdown: open connections are cut) and
// waits for it. Stopping a stopped cluster does nothing.
func (c *Cluster) Stop() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
}

// Log returns the end of the server's log, for failure messages.
func (c *Cluster) Log() string {
	b, err := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return strings.TrimSpace(s)
}
