package e2e

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// redisProc is a redis-server of a test on a loopback port, without
// persistence, requiring a password.
type redisProc struct {
	port     int
	dir      string
	password string
	cmd      *exec.Cmd
	done     chan struct{}
}

func startRedisServer(t *testing.T) *redisProc {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server absent (apt-get install redis-server): ", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &redisProc{port: port, dir: t.TempDir(), password: "e2e-s3cret-pw"}
	r.start(t)
	t.Cleanup(r.stop)
	return r
}

func (r *redisProc) url() string {
	return fmt.Sprintf("redis://:%s@127.0.0.1:%d/0", r.password, r.port)
}

func (r *redisProc) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir, "--requirepass", r.password, "--loglevel", "warning")
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(r.cmd, r.done)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r.answers() {
			return
		}
	}
	t.Fatalf("redis-server on port %d did not answer within 10 s", r.port)
}

// answers reports whether the server answers an authenticated PING.
func (r *redisProc) answers() bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "AUTH %s\r\nPING\r\n", r.password)
	br := bufio.NewReader(c)
	a, _ := br.ReadString('\n')
	p, _ := br.ReadString('\n')
	return strings.HasPrefix(a, "+OK") && strings.HasPrefix(p, "+PONG")
}

func (r *redisProc) stop() {
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
}

// waitLog waits until the server's log holds want, at most 10 s (the log
// is flushed every 200 ms).
func waitLog(t *testing.T, s *server, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(s.stderr.String(), want) {
			return
		}
	}
	t.Fatalf("log does not say %q:\n%s", want, s.stderr)
}

// TestE2E_RedisLimiter: two nodes share their buckets through one Redis.
func TestE2E_RedisLimiter(t *testing.T) {
	rs := startRedisServer(t)
	const point = "/v1/frames/at?lat=9.05&lon=7.45"
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	_, key := mintKey(t, data, "acme", "full")
	// The second node's file is a copy: the same key, another process.
	data2 := filepath.Join(dir, "frames2.db")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data2, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The spec's key burst of 120, refilled so slowly that none comes back
	// during the test: exactly 120 requests may pass.
	flags := []string{"--addr", "127.0.0.1:0", "--limiter", rs.url(), "--limit-key-rate", "0.001", "--log-format", "json"}
	nodes := []*server{
		startServer(t, append([]string{"serve", "--data", data}, flags...)...),
		startServer(t, append([]string{"serve", "--data", data2}, flags...)...),
	}
	for i, n := range nodes {
		waitLog(t, n, "buckets shared in Redis")
		if !strings.Contains(n.stderr.String(), fmt.Sprintf(`redis://:xxxxx@127.0.0.1:%d/0`, rs.port)) || strings.Contains(n.stderr.String(), rs.password) {
			t.Fatalf("node %d: the start-up log must name the server without its password:\n%s", i, n.stderr)
		}
	}

	t.Run("200 parallel requests over two nodes get the key's burst", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		status := map[int]int{}
		var bad []string
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := nodes[i%2].get(t, key, point)
				mu.Lock()
				defer mu.Unlock()
				status[r.Status]++
				lim, rem, reset := r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"), r.Header.Get("X-RateLimit-Reset")
				switch r.Status {
				case 200:
					if lim != "120" || rem == "" || reset == "" || r.Header.Get("Retry-After") != "" {
						bad = append(bad, fmt.Sprintf("200 with limit %q remaining %q reset %q retry-after %q", lim, rem, reset, r.Header.Get("Retry-After")))
					}
				case 429:
					retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
					if r.Error == nil || r.Error.Code != "rate_limited" || lim != "120" || rem != "0" || reset == "" || err != nil || retry < 1 {
						bad = append(bad, fmt.Sprintf("429 %+v with limit %q remaining %q reset %q retry-after %q", r.Error, lim, rem, reset, r.Header.Get("Retry-After")))
					}
				}
			}()
		}
		wg.Wait()
		if status[200] != 120 || status[429] != 80 {
			t.Fatalf("statuses %v, want 120 × 200 and 80 × 429", status)
		}
		if len(bad) > 0 {
			t.Fatalf("%d responses with wrong headers, first: %s", len(bad), bad[0])
		}
	})

	t.Run("Redis stopped: requests pass unmetered; back: metered again", func(t *testing.T) {
		rs.stop()
		for i := range 40 {
			r := nodes[i%2].get(t, key, point)
			if r.Status != 200 {
				t.Fatalf("request %d with Redis stopped: %d %+v", i, r.Status, r.Error)
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
				if v := r.Header.Get(h); v != "" {
					t.Fatalf("request %d with Redis stopped carries %s: %s", i, h, v)
				}
			}
		}
		const suspended = "rate limiting suspended"
		for i, n := range nodes {
			waitLog(t, n, suspended)
			time.Sleep(300 * time.Millisecond) // a flush more
			if c := strings.Count(n.stderr.String(), suspended); c != 1 {
				t.Fatalf("node %d logs %q %d times, want once:\n%s", i, suspended, c, n.stderr)
			}
		}

		rs.start(t) // empty, on the same port: every bucket full again
		for i, n := range nodes {
			var r apiResponse
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				r = n.get(t, key, point)
				if r.Header.Get("X-RateLimit-Limit") != "" || time.Now().After(deadline) {
					break
				}
			}
			if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "120" {
				t.Fatalf("node %d after Redis is back: %d, limit %q", i, r.Status, r.Header.Get("X-RateLimit-Limit"))
			}
			waitLog(t, n, "rate limiting resumed")
		}
	})
	for _, n := range nodes {
		if strings.Contains(n.stderr.String(), rs.password) {
			t.Fatalf("the log shows Redis's password:\n%s", n.stderr)
		}
	}
}
