package e2e

// End-to-end tests: they build the real binary, start `frameindex serve` on
// a free loopback port and drive it with the CLI and HTTP, as an operator and
// a client would.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
)

var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "frameindex-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "frameindex")
	if out, err := exec.Command("go", "build", "-o", binPath, "..").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe to write from a process pipe while a
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// cli runs the binary to completion and returns its stdout, stderr and exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "FRAMEINDEX_DATA=", "FRAMEINDEX_ADDR=", "OLLAMA_HOST=127.0.0.1:1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// mustCLI runs the binary and fails the test unless it exits 0.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := cli(t, args...)
	if code != 0 {
		t.Fatalf("frameindex %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// server is a running `frameindex serve` (or demo) process.
type server struct {
	cmd    *exec.Cmd
	base   string
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan error
}

var servingLine = regexp.MustCompile(`serving (\d+) frames on (http://\S+)`)

// startServer starts the binary with args and waits until it says it serves.
// The process is killed at the end of the test if it is still running.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "FRAMEINDEX_DATA=", "FRAMEINDEX_ADDR=", "OLLAMA_HOST=127.0.0.1:1")
	s := &server{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(s.stdout, pw)
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[2]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case s.base = <-found:
		return s
	case err := <-s.done:
		t.Fatalf("server exited before serving: %v\nstdout: %s\nstderr: %s", err, s.stdout, s.stderr)
	// Loading the national demo takes seconds alone, but minutes on a CI
	// machine whose two cores run every package's tests at once.
	case <-time.After(180 * time.Second):
		t.Fatalf("server did not start within 180 s\nstdout: %s\nstderr: %s", s.stdout, s.stderr)
	}
	return nil
}

// stop sends sig and waits for a clean exit.
func (s *server) stop(t *testing.T, sig os.Signal) {
	t.Helper()
	s.cmd.Process.Signal(sig)
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("server exit after %v: %v\nstderr: %s", sig, err, s.stderr)
		}
	case <-time.After(40 * time.Second):
		t.Fatalf("server did not stop after %v", sig)
	}
}

type apiResponse struct {
	Status int
	Header http.Header
	Data   json.RawMessage `json:"data"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (s *server) get(t *testing.T, key, path string) apiResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	var r apiResponse
	body, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("GET %s: status %d, body is not JSON: %v\n%s", path, res.StatusCode, err, body)
	}
	if (r.Data == nil) == (r.Error == nil) {
		t.Fatalf("GET %s: envelope must carry exactly one of data and error: %s", path, body)
	}
	r.Status, r.Header = res.StatusCode, res.Header
	return r
}

func wantError(t *testing.T, r apiResponse, status int, code string) {
	t.Helper()
	if r.Status != status || r.Error == nil || r.Error.Code != code {
		t.Fatalf("got status %d error %+v, want %d %s", r.Status, r.Error, status, code)
	}
	if r.Error.Message == "" {
		t.Fatalf("error %s has no message", code)
	}
}

// writeBoundary writes a square boundary with a square hole and returns its path.
func writeBoundary(t *testing.T, dir string, minLon, minLat, maxLon, maxLat float64, hole *grid.Box) string {
	t.Helper()
	rings := fmt.Sprintf("[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]",
		minLon, minLat, maxLon, minLat, maxLon, maxLat, minLon, maxLat, minLon, minLat)
	if hole != nil {
		h := *hole
		rings += fmt.Sprintf(",[[%g,%g],[%g,%g],[%g,%g],[%g,%g],[%g,%g]]",
			h.MinLon, h.MinLat, h.MinLon, h.MaxLat, h.MaxLon, h.MaxLat, h.MaxLon, h.MinLat, h.MinLon, h.MinLat)
	}
	doc := `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[` + rings + `]}}]}`
	p := filepath.Join(dir, fmt.Sprintf("boundary-%g-%g.geojson", minLon, minLat))
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var secretRe = regexp.MustCompile(`svc_sk_[0-9A-Za-z]+`)

func mintKey(t *testing.T, data, org, preset string) (id, secret string) {
	t.Helper()
	var m struct {
		Key struct {
			ID string `json:"id"`
		} `json:"key"`
		Secret string `json:"secret"`
	}
	out := mustCLI(t, "key", "mint", "--data", data, "--org", org, "--preset", preset, "--json")
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("key mint --json: %v\n%s", err, out)
	}
	if !secretRe.MatchString(m.Secret) || m.Key.ID == "" {
		t.Fatalf("key mint gave %q", out)
	}
	return m.Key.ID, m.Secret
}

type frameData struct {
	ID       string          `json:"id"`
	BBox     []float64       `json:"bbox"`
	Geometry json.RawMessage `json:"geometry"`
}

type collection struct {
	Type     string `json:"type"`
	Features []struct {
		Type       string            `json:"type"`
		ID         string            `json:"id"`
		BBox       []float64         `json:"bbox"`
		Properties map[string]string `json:"properties"`
	} `json:"features"`
	Truncated  bool     `json:"truncated"`
	UnknownIDs []string `json:"unknownIds"`
}

func TestE2E_ServeGridKeysAndShutdown(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	hole := grid.Box{MinLon: 7.46, MinLat: 9.03, MaxLon: 7.49, MaxLat: 9.06}
	boundary := writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, &hole)
	mustCLI(t, "grid", "build", "--boundary", boundary, "--data", data)
	var info struct {
		Kind   string `json:"kind"`
		Frames int    `json:"frames"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "grid", "info", "--data", data, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	// 7.40..7.55 x 9.00..9.10 lies on grid lines (7.4 = 888/120 - 180 + 180,
	// 9.1 = 90 - 9708/120), so the closed square touches 18 x 12 cells and
	// the ring of neighbours around them: 20 x 14. The hole removes the cells
	// wholly inside it.
	if info.Kind != "lattice" || info.Frames < 200 || info.Frames >= 20*14 {
		t.Fatalf("grid info = %+v", info)
	}

	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0")

	// Administration while the server runs goes through its socket.
	if _, err := os.Stat(data + ".sock"); err != nil {
		t.Fatalf("admin socket: %v", err)
	}
	if st, _ := os.Stat(data + ".sock"); st.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket mode %v, want 0600", st.Mode().Perm())
	}
	mustCLI(t, "org", "add", "acme", "--data", data, "--name", "Acme Mapping")
	keyID, key := mintKey(t, data, "acme", "locality")

	t.Run("point", func(t *testing.T) {
		r := srv.get(t, key, "/v1/frames/at?lat=9.0765&lon=7.4986")
		if r.Status != 200 {
			t.Fatalf("status %d: %+v", r.Status, r.Error)
		}
		var f frameData
		json.Unmarshal(r.Data, &f)
		row, col := grid.CellAt(9.0765, 7.4986)
		if want := fmt.Sprint(grid.CellID(row, col)); f.ID != want {
			t.Fatalf("id %s, want %s", f.ID, want)
		}
		b := grid.CellBox(row, col)
		if len(f.BBox) != 4 || abs(f.BBox[0]-b.MinLon) > 1e-7 || abs(f.BBox[3]-b.MaxLat) > 1e-7 {
			t.Fatalf("bbox %v, want %v", f.BBox, b)
		}
		var g struct {
			Type        string         `json:"type"`
			Coordinates [][][2]float64 `json:"coordinates"`
		}
		if err := json.Unmarshal(f.Geometry, &g); err != nil || g.Type != "Polygon" || len(g.Coordinates[0]) != 5 {
			t.Fatalf("geometry %s", f.Geometry)
		}
	})
	t.Run("point in the hole and outside", func(t *testing.T) {
		wantError(t, srv.get(t, key, "/v1/frames/at?lat=9.045&lon=7.475"), 404, "not_found")
		wantError(t, srv.get(t, key, "/v1/frames/at?lat=0&lon=0"), 404, "not_found")
		wantError(t, srv.get(t, key, "/v1/frames/at?lat=91&lon=0"), 400, "invalid_point")
	})
	t.Run("box", func(t *testing.T) {
		r := srv.get(t, key, "/v1/frames?bbox=7.3,8.9,7.6,9.2")
		var fc collection
		json.Unmarshal(r.Data, &fc)
		if r.Status != 200 || fc.Type != "FeatureCollection" || len(fc.Features) != info.Frames || fc.Truncated {
			t.Fatalf("status %d, %d features (want %d), truncated %v", r.Status, len(fc.Features), info.Frames, fc.Truncated)
		}
		for i := 1; i < len(fc.Features); i++ {
			if len(fc.Features[i].ID) < len(fc.Features[i-1].ID) || fc.Features[i].ID <= fc.Features[i-1].ID {
				t.Fatalf("features out of id order at %d", i)
			}
		}
		r = srv.get(t, key, "/v1/frames?bbox=7.3,8.9,7.6,9.2&limit=10")
		fc = collection{}
		json.Unmarshal(r.Data, &fc)
		if len(fc.Features) != 10 || !fc.Truncated {
			t.Fatalf("limit 10: %d features, truncated %v", len(fc.Features), fc.Truncated)
		}
		ids := fc.Features[2].ID + "," + fc.Features[0].ID + ",12," + fc.Features[2].ID
		r = srv.get(t, key, "/v1/frames?ids="+ids)
		fc2 := collection{}
		json.Unmarshal(r.Data, &fc2)
		if len(fc2.Features) != 2 || fc2.Features[0].ID != fc.Features[2].ID || len(fc2.UnknownIDs) != 1 || fc2.UnknownIDs[0] != "12" {
			t.Fatalf("ids: %s", r.Data)
		}
		wantError(t, srv.get(t, key, "/v1/frames?bbox=7.6,8.9,7.3,9.2"), 400, "invalid_bbox")
	})
	t.Run("credentials", func(t *testing.T) {
		wantError(t, srv.get(t, "", "/v1/frames/at?lat=9.05&lon=7.5"), 401, "unauthorized")
		wantError(t, srv.get(t, "svc_sk_nosuchkeyatall0000000000000000000000000", "/v1/frames/at?lat=9.05&lon=7.5"), 401, "invalid_key")
		wantError(t, srv.get(t, key, "/v1/nothing"), 404, "not_found")
	})
	t.Run("openapi without a key", func(t *testing.T) {
		res, err := http.Get(srv.base + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		json.NewDecoder(res.Body).Decode(&doc)
		res.Body.Close()
		if res.StatusCode != 200 || doc["openapi"] == nil {
			t.Fatalf("openapi.json: %d", res.StatusCode)
		}
	})

	// A key revoked while the server runs fails on its very next request.
	mustCLI(t, "key", "revoke", keyID, "--data", data)
	wantError(t, srv.get(t, key, "/v1/frames/at?lat=9.05&lon=7.5"), 401, "invalid_key")
	if out := mustCLI(t, "key", "list", "--data", data, "--org", "acme"); !strings.Contains(out, "revoked") || strings.Contains(out, "svc_sk_") {
		t.Fatalf("key list:\n%s", out)
	}

	// A second server on the same file is refused quickly, not left hanging.
	start := time.Now()
	_, errOut, code := cli(t, "serve", "--data", data, "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "locked") || time.Since(start) > 10*time.Second {
		t.Fatalf("second serve: exit %d after %v: %s", code, time.Since(start), errOut)
	}

	// Rebuilding the grid while serving takes effect on the next request.
	_, key2 := mintKey(t, data, "acme", "full")
	other := writeBoundary(t, dir, 3.30, 6.40, 3.45, 6.50, nil)
	mustCLI(t, "grid", "build", "--boundary", other, "--data", data)
	if r := srv.get(t, key2, "/v1/frames/at?lat=6.45&lon=3.40"); r.Status != 200 {
		t.Fatalf("after rebuild: %d %+v", r.Status, r.Error)
	}
	wantError(t, srv.get(t, key2, "/v1/frames/at?lat=9.0765&lon=7.4986"), 404, "not_found")

	srv.stop(t, syscall.SIGTERM)
	if _, err := os.Stat(data + ".sock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("admin socket left behind: %v", err)
	}
	for _, line := range strings.Split(srv.stderr.String(), "\n") {
		if strings.Contains(line, "svc_sk_") {
			t.Fatalf("a secret reached the log: %s", line)
		}
	}
	if !strings.Contains(srv.stderr.String(), keyID) {
		t.Fatalf("the log does not name the key id %s", keyID)
	}
	// With the server gone the CLI opens the file itself.
	if out := mustCLI(t, "org", "list", "--data", data); !strings.Contains(out, "acme") {
		t.Fatalf("org list: %s", out)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestE2E_BadDataFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	os.WriteFile(foreign, []byte(`{"type":"FeatureCollection","features":[]}`), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"serve", "--data", filepath.Join(dir, "nope.db")}, "does not exist"},
		{"foreign", []string{"serve", "--data", foreign}, "not a frameindex data file"},
		{"no grid", []string{"grid", "info", "--data", filepath.Join(dir, "nope.db")}, "does not exist"},
		{"mint for unknown org", []string{"key", "mint", "--data", foreign, "--org", "x", "--preset", "full"}, "not a frameindex data file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := cli(t, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want it to say %q", code, errOut, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
				t.Fatalf("error should be one line, got:\n%s", errOut)
			}
		})
	}
}

func TestE2E_GridImportRefusesBadFrames(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	sq := func(id string, x float64) string {
		return fmt.Sprintf(`{"type":"Feature","id":%s,"properties":{},"geometry":{"type":"Polygon","coordinates":[[[%g,0],[%g,0],[%g,1],[%g,1],[%g,0]]]}}`, id, x, x+1, x+1, x, x)
	}
	good := `{"type":"FeatureCollection","features":[` + sq("1", 0) + "," + sq("2", 1) + `]}`
	os.WriteFile(filepath.Join(dir, "good.geojson"), []byte(good), 0o644)
	mustCLI(t, "grid", "import", filepath.Join(dir, "good.geojson"), "--data", data)

	tests := []struct{ name, doc, want string }{
		{"duplicate id", `{"type":"FeatureCollection","features":[` + sq("5", 0) + "," + sq("5", 1) + `]}`, "feature 1"},
		{"non-numeric id", `{"type":"FeatureCollection","features":[` + sq(`"abc"`, 0) + `]}`, "feature 0"},
		{"unclosed ring", `{"type":"FeatureCollection","features":[{"type":"Feature","id":3,"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}}]}`, "feature 0"},
		{"self-crossing ring", `{"type":"FeatureCollection","features":[` + sq("1", 0) + `,{"type":"Feature","id":4,"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}}]}`, "feature 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".geojson")
			os.WriteFile(p, []byte(tc.doc), 0o644)
			_, errOut, code := cli(t, "grid", "import", p, "--data", data)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
			// Nothing was written: the good grid of two frames stands.
			var info struct{ Frames int }
			json.Unmarshal([]byte(mustCLI(t, "grid", "info", "--data", data, "--json")), &info)
			if info.Frames != 2 {
				t.Fatalf("grid changed to %d frames after a refused import", info.Frames)
			}
		})
	}
}

func TestE2E_Demo(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	data := filepath.Join(t.TempDir(), "demo.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0")
	key := secretRe.FindString(srv.stdout.String())
	if key == "" {
		t.Fatalf("demo printed no key:\n%s", srv.stdout)
	}
	// Lagos, Kano and Abuja are inside the national grid; the Gulf of Guinea
	// far offshore is not.
	for _, p := range []string{"lat=6.4541&lon=3.3947", "lat=12.0022&lon=8.5920", "lat=9.0765&lon=7.3986"} {
		if r := srv.get(t, key, "/v1/frames/at?"+p); r.Status != 200 {
			t.Fatalf("%s: %d %+v", p, r.Status, r.Error)
		}
	}
	wantError(t, srv.get(t, key, "/v1/frames/at?lat=2.0&lon=5.0"), 404, "not_found")
	r := srv.get(t, key, "/v1/frames?bbox=2,4,15,14")
	var fc collection
	json.Unmarshal(r.Data, &fc)
	if len(fc.Features) != 5000 || !fc.Truncated {
		t.Fatalf("country box: %d features, truncated %v", len(fc.Features), fc.Truncated)
	}
	checkDemoInsight(t, srv, key)
	srv.stop(t, os.Interrupt)

	// A second run reuses the file and mints a fresh key.
	srv = startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0")
	if strings.Contains(srv.stdout.String(), "Building") {
		t.Fatal("second demo run rebuilt the grid")
	}
	key2 := secretRe.FindString(srv.stdout.String())
	if key2 == "" || key2 == key {
		t.Fatalf("second run key %q", key2)
	}
	m := servingLine.FindStringSubmatch(srv.stdout.String())
	if n, _ := strconv.Atoi(m[1]); n < 1_000_000 || n > 1_200_000 {
		t.Fatalf("demo serves %d frames, want about 1.1 million", n)
	}
	srv.stop(t, syscall.SIGTERM)
}

// newServedGrid builds a small grid with an organisation "acme", mints keys
// of the given presets, and starts serve with extra flags.
func newServedGrid(t *testing.T, presets []string, flags ...string) (*server, string, []string) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	var keys []string
	for _, p := range presets {
		_, k := mintKey(t, data, "acme", p)
		keys = append(keys, k)
	}
	srv := startServer(t, append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0"}, flags...)...)
	return srv, data, keys
}

func headerInt(t *testing.T, r apiResponse, name string) int {
	t.Helper()
	v := r.Header.Get(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("header %s = %q (status %d)", name, v, r.Status)
	}
	return n
}

func TestE2E_RateLimits(t *testing.T) {
	const point = "/v1/frames/at?lat=9.05&lon=7.45"
	t.Run("a burst of 121 on one key", func(t *testing.T) {
		srv, _, keys := newServedGrid(t, []string{"full"})
		for i := 1; i <= 120; i++ {
			r := srv.get(t, keys[0], point)
			if r.Status != 200 {
				t.Fatalf("request %d: %d %+v", i, r.Status, r.Error)
			}
			// The key's bucket (120) is closer to exhaustion than the
			// organisation's (900), so the headers report it.
			if lim := headerInt(t, r, "X-RateLimit-Limit"); lim != 120 {
				t.Fatalf("request %d: X-RateLimit-Limit %d", i, lim)
			}
			if rem := headerInt(t, r, "X-RateLimit-Remaining"); rem < 120-i || rem > 120-i+1 {
				t.Fatalf("request %d: X-RateLimit-Remaining %d", i, rem)
			}
			if reset := headerInt(t, r, "X-RateLimit-Reset"); reset < 1 || reset > 120 {
				t.Fatalf("request %d: X-RateLimit-Reset %d", i, reset)
			}
			if r.Header.Get("Retry-After") != "" {
				t.Fatalf("Retry-After on a 200")
			}
		}
		r := srv.get(t, keys[0], point)
		wantError(t, r, 429, "rate_limited")
		retry := headerInt(t, r, "Retry-After")
		if retry < 1 || headerInt(t, r, "X-RateLimit-Remaining") != 0 {
			t.Fatalf("429 with Retry-After %d, remaining %s", retry, r.Header.Get("X-RateLimit-Remaining"))
		}
		time.Sleep(time.Duration(retry) * time.Second)
		if r := srv.get(t, keys[0], point); r.Status != 200 {
			t.Fatalf("after Retry-After %d s: %d %+v", retry, r.Status, r.Error)
		}
		// Unmetered: the API description and unknown paths.
		res, err := http.Get(srv.base + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatal("openapi.json carries rate-limit headers")
		}
	})
	t.Run("keys of one organisation share its bucket", func(t *testing.T) {
		srv, _, keys := newServedGrid(t, []string{"full", "locality"},
			"--limit-org-burst", "10", "--limit-org-rate", "0.5")
		for i := 0; i < 10; i++ {
			r := srv.get(t, keys[i%2], point)
			if r.Status != 200 || headerInt(t, r, "X-RateLimit-Limit") != 10 {
				t.Fatalf("request %d: %d, limit %s", i, r.Status, r.Header.Get("X-RateLimit-Limit"))
			}
		}
		for _, k := range keys {
			r := srv.get(t, k, point)
			wantError(t, r, 429, "rate_limited")
			if headerInt(t, r, "Retry-After") < 1 {
				t.Fatal("no Retry-After")
			}
		}
	})
	t.Run("the sixth use of a bad secret", func(t *testing.T) {
		srv, _, _ := newServedGrid(t, nil)
		bad := "svc_sk_thisisnotakeythisisnotakeythisisnotakey0"
		for i := 1; i <= 5; i++ {
			r := srv.get(t, bad, point)
			wantError(t, r, 401, "invalid_key")
			if headerInt(t, r, "X-RateLimit-Limit") != 5 || headerInt(t, r, "X-RateLimit-Remaining") != 5-i {
				t.Fatalf("attempt %d: limit %s remaining %s", i, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
			}
		}
		r := srv.get(t, bad, point)
		wantError(t, r, 429, "rate_limited")
		if headerInt(t, r, "Retry-After") < 1 {
			t.Fatal("no Retry-After")
		}
		// Another secret has its own bucket; no credential is not metered.
		wantError(t, srv.get(t, bad+"x", point), 401, "invalid_key")
		r = srv.get(t, "", point)
		wantError(t, r, 401, "unauthorized")
		if r.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatal("a request without a credential carries rate-limit headers")
		}
	})
}

func TestE2E_OrganisationsWhileServing(t *testing.T) {
	srv, data, _ := newServedGrid(t, nil)
	mustCLI(t, "org", "plan", "acme", "--plan", "pro", "--data", data)
	mustCLI(t, "org", "credits", "acme", "--add", "100", "--note", "invoice 1", "--data", data)
	_, errOut, code := cli(t, "org", "credits", "acme", "--add", "-150", "--note", "too much", "--data", data)
	if code == 0 || !strings.Contains(errOut, "100 credits") {
		t.Fatalf("overdraw: exit %d: %s", code, errOut)
	}
	mustCLI(t, "org", "credits", "acme", "--add", "-30", "--note", "correction", "--data", data)

	var show struct {
		Plan      string `json:"plan"`
		Credits   int64  `json:"credits"`
		Allowance int    `json:"allowance"`
		Ledger    []struct {
			Kind    string `json:"kind"`
			Credits int64  `json:"credits"`
			Balance int64  `json:"balance"`
			Note    string `json:"note"`
		} `json:"ledger"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "org", "show", "acme", "--json", "--data", data)), &show); err != nil {
		t.Fatal(err)
	}
	if show.Plan != "pro" || show.Allowance != 2000 || show.Credits != 70 || len(show.Ledger) != 2 ||
		show.Ledger[0].Kind != "grant" || show.Ledger[1].Balance != 70 || show.Ledger[1].Note != "correction" {
		t.Fatalf("org show: %+v", show)
	}
	out := mustCLI(t, "usage", "--org", "acme", "--data", data)
	for _, want := range []string{"plan pro", "0 of 2000", "0 of the daily ceiling of 1000", "credit balance: 70"} {
		if !strings.Contains(out, want) {
			t.Fatalf("usage does not say %q:\n%s", want, out)
		}
	}
	srv.stop(t, syscall.SIGTERM)
	// The same commands open the file themselves once the server is gone.
	if out := mustCLI(t, "org", "show", "acme", "--data", data); !strings.Contains(out, "credits: 70") {
		t.Fatalf("org show without a server:\n%s", out)
	}
}

// checkDemoInsight asks the demo about 12 frames of central Lagos and checks
// the profile's and a measure's figures against the stored values the data
// call returns for the same frames.
func checkDemoInsight(t *testing.T, srv *server, key string) {
	t.Helper()
	row, col := grid.CellAt(6.4541, 3.3947)
	var ids []string
	for r := row; r < row+3; r++ {
		for c := col; c < col+4; c++ {
			ids = append(ids, strconv.FormatUint(grid.CellID(r, c), 10))
		}
	}
	d, r := srv.data(t, key, strings.Join(ids, ","))
	if r.Status != 200 {
		t.Fatalf("data: %d", r.Status)
	}
	var pop, bld float64
	known := 0
	for _, f := range d.Frames {
		if f.BBox != nil {
			known++ // a frame of the lagoon may lie outside the outline
		}
		for _, ds := range f.Datasets {
			if v, ok := ds.Attributes["population_2020"].(float64); ok {
				pop += v
			}
			if v, ok := ds.Attributes["building_count"].(float64); ok {
				bld += v
			}
		}
	}
	frameIDs, _ := json.Marshal(ids)
	prof, r := srv.ask(t, key, `{"frameIds":`+string(frameIDs)+`}`)
	if r.Status != 200 || prof.Intent != "frames" {
		t.Fatalf("profile: %d %+v", r.Status, prof)
	}
	facets := map[string]string{}
	for _, f := range prof.Facets {
		facets[f.Label] = f.Value
	}
	if facets["Areas selected"] != strconv.Itoa(known) || known < 10 || facets["State"] != "Lagos" ||
		facets["Estimated population (2020)"] != thousands(pop) || facets["Buildings"] != thousands(bld) {
		t.Fatalf("profile facets %v; stored population %v, buildings %v", facets, pop, bld)
	}
	// "people" is a declared alias of the demo's population attribute
	// (exact); "folks" is matched from the engine's own synonyms (partial).
	for q, conf := range map[string]string{"How many people live in these areas?": "exact", "how many folks live here": "partial"} {
		a, _ := srv.ask(t, key, `{"frameIds":`+string(frameIDs)+`,"question":"`+q+`"}`)
		if a.Intent != "frames_attribute" || a.Confidence != conf || !strings.Contains(a.Headline, thousands(pop)) {
			t.Fatalf("%q: %+v (stored total %v)", q, a, pop)
		}
	}
}

// thousands formats a whole number with comma separators.
func thousands(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
