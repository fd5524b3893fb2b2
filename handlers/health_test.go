package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// lenIndex is a FrameIndex that can tell its number of frames, as
// *index.Index can.
type lenIndex struct {
	FrameIndex
	n int
}

func (l lenIndex) Len() int { return l.n }

func healthServer(t *testing.T, ix FrameIndex, h Health) *Server {
	t.Helper()
	s, _ := testServer(t, ix)
	s.health.cfg = h
	return s
}

func TestServer_Health(t *testing.T) {
	imported := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	datasets := func() ([]DatasetVersion, error) {
		return []DatasetVersion{{ID: "population", Version: 3, ImportedAt: imported}}, nil
	}
	fileClosed := func() ([]DatasetVersion, error) { return nil, errors.New("data file closed") }
	stateDown := ReadyCheck{Name: "state", Check: func(context.Context) error {
		return errors.New("dial tcp 10.0.0.5:5432: connection refused")
	}}
	stateUp := ReadyCheck{Name: "state", Check: func(context.Context) error { return nil }}
	slow := ReadyCheck{Name: "limiter", Check: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}
	grid := lenIndex{abuja, 1234}

	tests := []struct {
		name      string
		ix        FrameIndex
		health    Health
		drain     bool
		ready     int    // status of /readyz
		code      string // its error code when not 200
		fragments []string
		status    string // /healthz status
	}{
		{"ready", grid, Health{Datasets: datasets, Checks: []ReadyCheck{stateUp}}, false, 200, "", nil, "ready"},
		{"no checks configured", abuja, Health{}, false, 200, "", nil, "ready"},
		{"no grid", nil, Health{Datasets: datasets}, false, 503, "not_ready", []string{"grid (no grid is loaded)"}, "not_ready"},
		{"empty grid", lenIndex{abuja, 0}, Health{}, false, 503, "not_ready", []string{"grid (the grid holds no frames)"}, "not_ready"},
		{"data file unreadable", grid, Health{Datasets: fileClosed}, false, 503, "not_ready", []string{"data (the data file cannot be read)"}, "not_ready"},
		{"shared state unreachable", grid, Health{Datasets: datasets, Checks: []ReadyCheck{stateDown}}, false, 503, "not_ready", []string{"state (failed"}, "not_ready"},
		{"check beyond the budget", grid, Health{Checks: []ReadyCheck{slow}}, false, 503, "not_ready", []string{"limiter (no answer within 2s)"}, "not_ready"},
		{"draining", grid, Health{Datasets: datasets}, true, 503, "draining", []string{"stopping"}, "draining"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "check beyond the budget" && testing.Short() {
				t.Skip("waits for the readiness budget")
			}
			s := healthServer(t, tc.ix, tc.health)
			if tc.drain {
				s.Drain()
			}
			// Liveness holds whatever the readiness.
			if w := get(s, "/livez", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"live"`) {
				t.Fatalf("/livez: %d %s", w.Code, w.Body)
			}
			before := time.Now()
			w := get(s, "/readyz", "")
			if !s.LastReadyProbe().After(before.Add(-time.Millisecond)) {
				t.Errorf("LastReadyProbe %v not updated", s.LastReadyProbe())
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("/readyz Cache-Control %q", w.Header().Get("Cache-Control"))
			}
			if tc.ready == 200 {
				env := decode(t, w)
				if w.Code != 200 || !strings.Contains(string(env.Data), `"status":"ready"`) {
					t.Fatalf("/readyz: %d %s", w.Code, w.Body)
				}
			} else {
				env := wantError(t, w, tc.ready, tc.code, tc.fragments...)
				if strings.Contains(env.Error.Message, "10.0.0.5") {
					t.Errorf("a check's error text reached the unauthenticated answer: %s", env.Error.Message)
				}
			}

			w = get(s, "/healthz", "")
			env := decode(t, w)
			if w.Code != 200 {
				t.Fatalf("/healthz: %d %s", w.Code, w.Body)
			}
			var rep healthReport
			if err := json.Unmarshal(env.Data, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Status != tc.status {
				t.Errorf("/healthz status %q, want %q", rep.Status, tc.status)
			}
			if n, ok := tc.ix.(lenIndex); ok && (rep.Frames == nil || *rep.Frames != n.n) {
				t.Errorf("/healthz frames %v, want %d", rep.Frames, n.n)
			}
			if !strings.HasPrefix(rep.Datasets.Digest, "sha256:") {
				t.Errorf("/healthz datasets %+v: want a count and a digest", rep.Datasets)
			}
		})
	}
}

func TestServer_HealthzReport(t *testing.T) {
	imported := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	s := healthServer(t, lenIndex{abuja, 42}, Health{Node: "node-a", Version: "v1.4.0", Commit: "abc123",
		Datasets: func() ([]DatasetVersion, error) {
			return []DatasetVersion{{ID: "health", Version: 1, ImportedAt: imported}, {ID: "population", Version: 3, ImportedAt: imported}}, nil
		}})
	w := get(s, "/healthz", "")
	var env struct{ Data map[string]any }
	var raw struct {
		Data struct{ Datasets json.RawMessage }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	d := env.Data
	if d["node"] != "node-a" || d["version"] != "v1.4.0" || d["commit"] != "abc123" || d["frames"] != 42.0 || d["status"] != "ready" {
		t.Errorf("report %v", d)
	}
	// Without a key, the datasets are a count and a digest: never their
	// ids (another organisation's dataset is "not found" elsewhere).
	ds := raw.Data.Datasets
	want := digestDatasets([]DatasetVersion{{ID: "population", Version: 3, ImportedAt: imported}, {ID: "health", Version: 1, ImportedAt: imported}})
	if got, _ := json.Marshal(want); string(ds) != string(got) || want.Count != 2 {
		t.Errorf("datasets %s\nwant %s", ds, got)
	}
	if strings.Contains(w.Body.String(), "population") || strings.Contains(w.Body.String(), "health\"") {
		t.Errorf("/healthz names a dataset: %s", w.Body)
	}
	// The digest changes with a version, and not with the order.
	if d := digestDatasets([]DatasetVersion{{ID: "health", Version: 2, ImportedAt: imported}, {ID: "population", Version: 3, ImportedAt: imported}}); d.Digest == want.Digest {
		t.Error("a new version left the digest unchanged")
	}
	// No key is needed, and a key that is not valid is not even looked at.
	if w := get(s, "/healthz", "svc_sk_notvalid"); w.Code != 200 {
		t.Errorf("/healthz with a bad key: %d", w.Code)
	}
	// HEAD works as GET does; other methods are refused.
	r, _ := http.NewRequest(http.MethodHead, "/readyz", nil)
	if w := serve(s, r); w.Code != 200 {
		t.Errorf("HEAD /readyz: %d", w.Code)
	}
	r, _ = http.NewRequest(http.MethodPost, "/readyz", nil)
	if w := serve(s, r); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz: %d", w.Code)
	}
}

func TestServer_ReadyCheckLoggedOnChange(t *testing.T) {
	var fail bool
	s, logs := testServer(t, abuja)
	s.health.cfg.Checks = []ReadyCheck{{Name: "state", Check: func(context.Context) error {
		if fail {
			return errors.New("connection refused")
		}
		return nil
	}}}
	for _, f := range []bool{false, true, true, true, false, false} {
		fail = f
		get(s, "/readyz", "")
	}
	failing, back := 0, 0
	for _, m := range logLines(t, logs) {
		switch m["msg"] {
		case "readiness check failing: the node answers /readyz with 503":
			failing++
			if m["check"] != "state" || m["error"] != "connection refused" {
				t.Errorf("log line %v", m)
			}
		case "readiness check holds again":
			back++
		}
	}
	if failing != 1 || back != 1 {
		t.Errorf("logged %d failing and %d recovered lines, want 1 and 1", failing, back)
	}
}

// serve runs r through h and returns the response.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestOpenAPI_HealthResponses(t *testing.T) {
	_, router := loadOpenAPI(t)
	datasets := func() ([]DatasetVersion, error) {
		return []DatasetVersion{{ID: "population", Version: 3, ImportedAt: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)}}, nil
	}
	down := ReadyCheck{Name: "state", Check: func(context.Context) error { return errors.New("refused") }}
	tests := []struct {
		name   string
		path   string
		health Health
		drain  bool
		status int
	}{
		{"livez", "/livez", Health{}, false, 200},
		{"readyz ready", "/readyz", Health{Datasets: datasets}, false, 200},
		{"readyz not ready", "/readyz", Health{Checks: []ReadyCheck{down}}, false, 503},
		{"readyz draining", "/readyz", Health{}, true, 503},
		{"healthz", "/healthz", Health{Node: "a", Version: "v1", Commit: "c", Datasets: datasets}, false, 200},
		{"healthz not ready", "/healthz", Health{Checks: []ReadyCheck{down}}, false, 200},
		{"healthz draining, no datasets", "/healthz", Health{}, true, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := healthServer(t, lenIndex{abuja, 7}, tc.health)
			if tc.drain {
				s.Drain()
			}
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			w := serve(s, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if err := validateResponse(t, router, r, w, true); err != nil {
				t.Errorf("the answer does not match the OpenAPI document: %v\n%s", err, w.Body)
			}
		})
	}
}

func TestServer_HealthProbesLoggedAtDebug(t *testing.T) {
	s, logs := testServer(t, abuja)
	s.health.cfg.Checks = []ReadyCheck{{Name: "state", Check: func(context.Context) error { return errors.New("down") }}}
	levels := map[string]string{}
	for _, path := range []string{"/livez", "/healthz", "/readyz"} {
		w := get(s, path, "")
		levels[path] = accessLine(t, logs, w.Header().Get("X-Request-Id"))["level"].(string)
	}
	want := map[string]string{"/livez": "DEBUG", "/healthz": "DEBUG", "/readyz": "INFO"} // a 503 is worth a line
	if !reflect.DeepEqual(levels, want) {
		t.Errorf("access-log levels %v, want %v", levels, want)
	}
}
