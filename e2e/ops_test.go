//go:build !windows

package e2e

// Operating the real binary: backup under load, restore, check, compact,
// version, and Ctrl-C/SIGTERM during every long command.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
)

// ledgerJSON reads an organisation's whole ledger with the CLI.
func ledgerJSON(t *testing.T, data, org string) []json.RawMessage {
	t.Helper()
	var d struct {
		Credits int64             `json:"credits"`
		Ledger  []json.RawMessage `json:"ledger"`
	}
	out := mustCLI(t, "org", "show", org, "--history", "0", "--json", "--data", data)
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("org show --json: %v\n%s", err, out)
	}
	return d.Ledger
}

// TestE2E_BackupUnderLoad: while 8 clients make charged data calls, a
// backup is taken through the server; the backup restores onto a new
// path, passes check, and its ledger is a prefix of the original's.
func TestE2E_BackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	mustCLI(t, "org", "add", "geodata", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	f1 := grid.CellID(row, col)
	night := writeFile(t, dir, "night.csv", fmt.Sprintf("frame_id,radiance\n%d,12.5\n", f1))
	mustCLI(t, "import", "--data", data, "--dataset", "night", "--owner", "geodata", "--csv", night, "--attr", "radiance:number:mean")
	mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "night", "--mode", "per_query")
	mustCLI(t, "org", "credits", "acme", "--add", "1000000", "--note", "load test", "--data", data)
	_, key := mintKey(t, data, "acme", "locality")
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0",
		"--limit-key-burst", "0", "--limit-org-burst", "0", "--model", "")

	var stop atomic.Bool
	var calls, charged atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				req, _ := http.NewRequest(http.MethodGet, srv.base+fmt.Sprintf("/v1/frames/data?ids=%d", f1), nil)
				req.Header.Set("Authorization", "Bearer "+key)
				res, err := client.Do(req)
				if err != nil {
					t.Errorf("data call: %v", err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("data call: %d %s", res.StatusCode, body)
					return
				}
				calls.Add(1)
				if strings.Contains(string(body), `"charged":["night"]`) {
					charged.Add(1)
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	backup := filepath.Join(dir, "backup.db")
	start := time.Now()
	out := mustCLI(t, "backup", "--out", backup, "--check", "--data", data)
	took := time.Since(start)
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if !strings.Contains(out, "taken through the running server") || !strings.Contains(out, "sound") {
		t.Fatalf("backup said: %s", out)
	}
	if charged.Load() < 8 || charged.Load() != calls.Load() {
		t.Fatalf("%d calls, %d charged", calls.Load(), charged.Load())
	}
	t.Logf("backup under %d charged calls took %v", calls.Load(), took)

	// A server runs: restore onto its file is refused.
	if _, errOut, code := cli(t, "restore", backup, "--data", data); code == 0 || !strings.Contains(errOut, "stop it first") {
		t.Fatalf("restore onto a served file: exit %d, %s", code, errOut)
	}
	srv.stop(t, syscall.SIGTERM)

	restored := filepath.Join(t.TempDir(), "restored.db")
	out = mustCLI(t, "restore", backup, "--data", restored)
	if !strings.Contains(out, "restored") {
		t.Fatalf("restore said: %s", out)
	}
	if out := mustCLI(t, "check", "--data", restored); !strings.Contains(out, "sound") {
		t.Fatalf("check of the restored file: %s", out)
	}
	copied, original := ledgerJSON(t, restored, "acme"), ledgerJSON(t, data, "acme")
	if len(copied) < 2 || len(copied) > len(original) {
		t.Fatalf("restored ledger has %d entries, original %d", len(copied), len(original))
	}
	for i := range copied {
		if string(copied[i]) != string(original[i]) {
			t.Fatalf("ledger entry %d differs:\n%s\n%s", i+1, copied[i], original[i])
		}
	}
	if int64(len(original)) != 1+charged.Load() {
		t.Fatalf("original ledger %d entries for %d charged calls", len(original), charged.Load())
	}
	t.Logf("restored ledger: %d of %d entries", len(copied), len(original))
}

// TestE2E_CompactAfterRemove: removing a dataset frees pages; compact,
// through the running server, gives them back and check passes.
func TestE2E_CompactAfterRemove(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	var b strings.Builder
	b.WriteString(`{"type":"FeatureCollection","features":[`)
	pad := strings.Repeat("x", 400)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"Feature","properties":{"n":%d,"pad":"%s"},"geometry":{"type":"Point","coordinates":[%.5f,%.5f]}}`,
			i, pad, 7.41+float64(i%130)*0.001, 9.01+float64(i/130)*0.0005)
	}
	b.WriteString(`]}`)
	feats := writeFile(t, dir, "big.geojson", b.String())
	mustCLI(t, "import", "--data", data, "--dataset", "big", "--owner", "acme", "--features", feats)
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--model", "")
	mustCLI(t, "dataset", "remove", "big", "--data", data)
	var rep struct{ Before, After int64 }
	out := mustCLI(t, "compact", "--json", "--data", data)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Before < 8<<20 || rep.After*2 > rep.Before {
		t.Fatalf("compact: %s", out)
	}
	if out := mustCLI(t, "check", "--data", data); !strings.Contains(out, "sound") {
		t.Fatalf("check after compact: %s", out)
	}
	alive(t, srv)
	mustCLI(t, "org", "credits", "acme", "--add", "3", "--note", "after compaction", "--data", data)
	srv.stop(t, syscall.SIGTERM)
	if fi, err := os.Stat(data); err != nil || fi.Size() != rep.After && fi.Size() > rep.After+1<<20 {
		t.Fatalf("file after compact: %v %v", fi.Size(), err)
	}
	t.Logf("compact: %d -> %d bytes", rep.Before, rep.After)
}

func TestE2E_Version(t *testing.T) {
	out := mustCLI(t, "version", "--json")
	var v struct{ Version, Commit, Date, Go, Platform string }
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Version == "" || !strings.HasPrefix(v.Go, "go") {
		t.Fatalf("version --json: %v %s", err, out)
	}
	if help := mustCLI(t, "--help"); !strings.Contains(help, "frameindex "+v.Version+" (commit") {
		t.Fatalf("--help does not show the version:\n%s", help)
	}
}

// alive fails unless the server answers GET /openapi.json.
func alive(t *testing.T, srv *server) {
	t.Helper()
	res, err := http.Get(srv.base + "/openapi.json")
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("server: GET /openapi.json: %d", res.StatusCode)
	}
}

// running is a CLI process started in the background.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	code           int
}

func startCLI(t *testing.T, stdin io.Reader, args ...string) *running {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "FRAMEINDEX_DATA=", "FRAMEINDEX_ADDR=", "OLLAMA_HOST=127.0.0.1:1")
	r := &running{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, r.stdout, r.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		r.code = cmd.ProcessState.ExitCode()
		close(r.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.done
	})
	return r
}

// term sends SIGTERM after delay and returns how long the process took to
// exit after it; it fails the test when that is a second or more.
func (r *running) term(t *testing.T, delay time.Duration) time.Duration {
	t.Helper()
	select {
	case <-time.After(delay):
	case <-r.done:
		t.Fatalf("%v ended before the signal: exit %d\n%s%s", r.cmd.Args[1:], r.code, r.stdout, r.stderr)
	}
	start := time.Now()
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%v still runs 5 s after SIGTERM", r.cmd.Args[1:])
	}
	took := time.Since(start)
	if took >= time.Second {
		t.Errorf("%v took %v to stop after SIGTERM, want under a second", r.cmd.Args[1:], took)
	}
	if r.code == 0 || !strings.Contains(r.stderr.String(), "interrupted") {
		t.Errorf("%v after SIGTERM: exit %d, stderr %q; want a failure that says it was interrupted", r.cmd.Args[1:], r.code, r.stderr)
	}
	return took
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// noLeftovers fails if dir holds a file an unfinished command left.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		for _, s := range []string{".partial-", ".compacting", ".restoring-", ".check-", ".tmp"} {
			if strings.Contains(filepath.Base(n), s) {
				t.Errorf("left behind: %s", n)
			}
		}
	}
}

// TestE2E_SignalsStopLongCommands: SIGTERM during import, grid build,
// grid export, backup and compact (and with pipes that never deliver) ends
// each within a second, says so, and leaves the data file as it was and
// nothing half-written.
func TestE2E_SignalsStopLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the national demo file")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0", "--model", "")
	srv.stop(t, os.Interrupt)
	datasets := mustCLI(t, "dataset", "list", "--data", data)
	gridInfo := mustCLI(t, "grid", "info", "--data", data)
	// unchanged: the same bytes, for the commands that write nothing to
	// the data file even when they succeed.
	unchanged := func(t *testing.T) func() {
		t.Helper()
		before := fileHash(t, data)
		return func() {
			t.Helper()
			if fileHash(t, data) != before {
				t.Error("the data file changed")
			}
			noLeftovers(t, dir)
		}
	}
	// same: the same content, for the commands that write to it (the
	// audit log records an interrupted import or grid build as failed):
	// the grid and datasets as they were, no staging bucket left.
	same := func(t *testing.T) {
		t.Helper()
		if got := mustCLI(t, "dataset", "list", "--data", data); got != datasets {
			t.Errorf("datasets changed:\n%s\n%s", datasets, got)
		}
		if got := mustCLI(t, "grid", "info", "--data", data); got != gridInfo {
			t.Errorf("grid changed:\n%s\n%s", gridInfo, got)
		}
		if out := mustCLI(t, "check", "--data", data); !strings.Contains(out, "sound") || strings.Contains(out, "staging") {
			t.Errorf("check: %s", out)
		}
		noLeftovers(t, dir)
	}
	fifo := func(t *testing.T, name string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("import from a named pipe with no writer", func(t *testing.T) {
		r := startCLI(t, nil, "import", "--data", data, "--dataset", "late", "--owner", "demo", "--csv", fifo(t, "late.csv"), "--attr", "n:number:sum")
		t.Logf("stopped in %v", r.term(t, 300*time.Millisecond))
		same(t)
	})
	t.Run("import from standard input that stalls", func(t *testing.T) {
		// An *os.File is handed to the process as it is (exec copies any
		// other reader, and would wait for its end).
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		pw.Write([]byte("frame_id,n\n"))
		r := startCLI(t, pr, "import", "--data", data, "--dataset", "late", "--owner", "demo", "--csv", "-", "--attr", "n:number:sum")
		pr.Close()
		t.Logf("stopped in %v", r.term(t, 300*time.Millisecond))
		same(t)
	})
	t.Run("grid build from a named pipe with no writer", func(t *testing.T) {
		r := startCLI(t, nil, "grid", "build", "--data", data, "--boundary", fifo(t, "outline.geojson"))
		t.Logf("stopped in %v", r.term(t, 300*time.Millisecond))
		same(t)
	})
	t.Run("grid export", func(t *testing.T) {
		check := unchanged(t)
		out := filepath.Join(dir, "frames.gpkg")
		r := startCLI(t, nil, "grid", "export", "--data", data, "--out", out)
		t.Logf("stopped in %v", r.term(t, 500*time.Millisecond))
		if _, err := os.Stat(out); err == nil {
			t.Error("an interrupted export left its file")
		}
		check()
	})
	t.Run("backup", func(t *testing.T) {
		check := unchanged(t)
		out := filepath.Join(dir, "backup.db")
		r := startCLI(t, nil, "backup", "--data", data, "--out", out, "--check")
		t.Logf("stopped in %v", r.term(t, 150*time.Millisecond))
		if _, err := os.Stat(out); err == nil {
			t.Error("an interrupted backup left its file")
		}
		check()
	})
	t.Run("compact", func(t *testing.T) {
		check := unchanged(t)
		r := startCLI(t, nil, "compact", "--data", data)
		t.Logf("stopped in %v", r.term(t, 500*time.Millisecond))
		check()
	})
	t.Run("import through the server from a pipe with no writer", func(t *testing.T) {
		srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--model", "")
		p := fifo(t, "late.geojson")
		r := startCLI(t, nil, "import", "--data", data, "--dataset", "late", "--owner", "demo", "--features", p)
		t.Logf("stopped in %v", r.term(t, 300*time.Millisecond))
		// The server gave up its side too: nothing reads the pipe any
		// more (opening it for writing without waiting finds no reader).
		deadline := time.Now().Add(2 * time.Second)
		for {
			w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				break
			}
			w.Close()
			if time.Now().After(deadline) {
				t.Fatal("the server still reads the pipe 2 s after its client stopped")
			}
			time.Sleep(50 * time.Millisecond)
		}
		alive(t, srv)
		srv.stop(t, syscall.SIGTERM)
		same(t)
	})
}

// TestE2E_RefusedInputs: a directory, a device and an unreadable file are
// refused at once, naming the input; so is standard input while a server
// holds the file.
func TestE2E_RefusedInputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	zero := filepath.Join(dir, "zero.csv")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	locked := writeFile(t, dir, "locked.csv", "frame_id,n\n")
	os.Chmod(locked, 0)
	tests := []struct {
		name, csv, want string
	}{
		{"directory", dir, "is a directory"},
		{"device behind a link", zero, "is a device"},
		{"missing", filepath.Join(dir, "nope.csv"), "no such file"},
	}
	if os.Geteuid() != 0 { // root reads any file
		tests = append(tests, struct{ name, csv, want string }{"unreadable", locked, "permission denied"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, errOut, code := cli(t, "import", "--data", data, "--dataset", "d", "--owner", "acme", "--csv", tt.csv, "--attr", "n:number:sum")
			if code == 0 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "input 0") {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("refused after %v", time.Since(start))
			}
		})
	}
	t.Run("standard input while a server runs", func(t *testing.T) {
		srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--model", "")
		cmd := exec.Command(binPath, "import", "--data", data, "--dataset", "d", "--owner", "acme", "--csv", "-", "--attr", "n:number:sum")
		cmd.Stdin = strings.NewReader("frame_id,n\n")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "cannot be handed to the server") {
			t.Fatalf("%v: %s", err, out)
		}
		srv.stop(t, syscall.SIGTERM)
	})
	t.Run("standard input streams", func(t *testing.T) {
		row, col := grid.CellAt(9.05, 7.45)
		cmd := exec.Command(binPath, "import", "--data", data, "--dataset", "d", "--owner", "acme", "--features", "-", "--count", "n", "--attr", "n:number:sum")
		cmd.Stdin = strings.NewReader(fmt.Sprintf("{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[%f,%f]}}\n{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Point\",\"coordinates\":[%f,%f]}}\n",
			grid.Lon(col)+0.001, grid.Lat(row)-0.001, grid.Lon(col)+0.002, grid.Lat(row)-0.002))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "1 frames, 2 features") {
			t.Fatalf("%v: %s", err, out)
		}
	})
}
