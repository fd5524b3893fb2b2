package redisstore

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// redisServer is a redis-server process of a test, on a loopback port of
// its own, without persistence.
type redisServer struct {
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedis starts redis-server on a free port, or skips the test when it
// is not installed. It is stopped at the end of the test.
func startRedis(tb testing.TB) *redisServer {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Skip("redis-server absent (apt-get install redis-server): ", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &redisServer{port: port, dir: tb.TempDir()}
	r.start(tb)
	tb.Cleanup(r.stop)
	return r
}

// url is the server's redis:// URL.
func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// start runs the server on r.port and waits until it answers PING.
func (r *redisServer) start(tb testing.TB) {
	tb.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir, "--loglevel", "warning")
	if err := r.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(r.cmd, r.done)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ping(r.port) == nil {
			return
		}
		select {
		case <-r.done:
			tb.Fatalf("redis-server on port %d exited at start", r.port)
		case <-time.After(20 * time.Millisecond):
		}
	}
	tb.Fatalf("redis-server on port %d did not answer PING within 10 s", r.port)
}

// stop kills the server and waits for it to exit.
func (r *redisServer) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
}

// ping sends PING over a fresh connection, in RESP.
func ping(port int) error {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING: %q", line)
	}
	return nil
}
