package handlers

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/state"
)

// fakeIndex is a FrameIndex whose methods are set per test.
type fakeIndex struct {
	AtFn    func(lat, lon float64) (grid.Shape, bool)
	ShapeFn func(id uint64) (grid.Shape, bool)
	BoxFn   func(b grid.Box, limit int, fn func(grid.Shape) bool) bool
}

func (f *fakeIndex) At(lat, lon float64) (grid.Shape, bool) { return f.AtFn(lat, lon) }
func (f *fakeIndex) Shape(id uint64) (grid.Shape, bool)     { return f.ShapeFn(id) }
func (f *fakeIndex) Box(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
	return f.BoxFn(b, limit, fn)
}

// fakeKeys is a KeyLookup whose Lookup is set per test.
type fakeKeys struct {
	LookupFn func(secret string, now time.Time) (state.Key, error)
}

func (f *fakeKeys) Lookup(secret string, now time.Time) (state.Key, error) {
	return f.LookupFn(secret, now)
}

// rectGrid is a lattice grid of the cells in rows r0..r1 and columns c0..c1
// (inclusive), answering with the lattice math of package grid: a stand-in
// for *index.Index with the same contract.
type rectGrid struct{ r0, r1, c0, c1 int }

func (g rectGrid) has(row, col int) bool {
	return row >= g.r0 && row <= g.r1 && col >= g.c0 && col <= g.c1
}

func (g rectGrid) At(lat, lon float64) (grid.Shape, bool) {
	row, col := grid.CellAt(lat, lon)
	if !g.has(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(grid.CellID(row, col)), true
}

func (g rectGrid) Shape(id uint64) (grid.Shape, bool) {
	row, col, ok := grid.RowCol(id)
	if !ok || !g.has(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(id), true
}

func (g rectGrid) Box(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
	r0, r1 := grid.RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := grid.ColSpan(b.MinLon, b.MaxLon)
	r0, r1 = max(r0, g.r0), min(r1, g.r1)
	c0, c1 = max(c0, g.c0), min(c1, g.c1)
	n := 0
	for row := r0; row <= r1; row++ {
		for col := c0; col <= c1; col++ {
			if n == limit {
				return true
			}
			if !fn(grid.LatticeShape(grid.CellID(row, col))) {
				return false
			}
			n++
		}
	}
	return false
}

// The test grid: 20 x 20 cells around Abuja (lat 9.0765, lon 7.3986 is row
// 9710, column 22487).
var abuja = rectGrid{r0: 9700, r1: 9719, c0: 22480, c1: 22499}

// Test secrets and their keys.
const (
	secretGood    = "svc_sk_GoodGoodGoodGoodGoodGoodGood01"
	secretNoCap   = "svc_sk_NoCapNoCapNoCapNoCapNoCapNo02"
	secretExpired = "svc_sk_ExpiredExpiredExpiredExpir03"
	secretRevoked = "svc_sk_RevokedRevokedRevokedRevok04"
	secretBroken  = "svc_sk_BrokenBrokenBrokenBrokenBr05"
)

var testKeys = &fakeKeys{LookupFn: func(secret string, now time.Time) (state.Key, error) {
	switch secret {
	case secretGood:
		return state.Key{ID: "key_good", OrgID: "org1", Caps: []state.Capability{state.CapFrameRead}}, nil
	case secretNoCap:
		return state.Key{ID: "key_nocap", OrgID: "org1", Caps: []state.Capability{state.CapAskQuery}}, nil
	case secretExpired:
		return state.Key{}, state.ErrExpiredKey
	case secretRevoked:
		return state.Key{}, state.ErrRevokedKey
	case secretBroken:
		return state.Key{}, state.ErrCorrupt
	}
	return state.Key{}, state.ErrUnknownKey
}}

// testServer returns a Server over ix and the test keys, logging JSON to the
// returned buffer.
func testServer(t testing.TB, ix FrameIndex) (*Server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s := New(Config{
		Frames: func() FrameIndex { return ix },
		Keys:   func() KeyLookup { return testKeys },
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	return s, &logs
}

// get sends GET target with the secret as a Bearer key ("" for none).
func get(s http.Handler, target, secret string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if secret != "" {
		r.Header.Set("Authorization", "Bearer "+secret)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// envelope is a decoded response body.
type envelope struct {
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// decode checks the envelope rules on a response and returns it decoded:
// JSON content type, a request id, exactly one of data and error, no nulls.
func decode(t testing.TB, w *httptest.ResponseRecorder) envelope {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	if id := w.Header().Get("X-Request-Id"); len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("X-Request-Id = %q, want 16 hex digits", id)
	}
	body := w.Body.Bytes()
	if bytes.Contains(body, []byte("null")) {
		t.Fatalf("body holds a null: %s", body)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("body is not JSON: %v\n%.300s", err, body)
	}
	if len(raw) != 1 {
		t.Fatalf("envelope has %d members, want exactly one of data and error: %.300s", len(raw), body)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Error != nil && (env.Error.Code == "" || env.Error.Message == "") {
		t.Fatalf("error without code or message: %s", body)
	}
	return env
}

// wantError checks an error response: status, code, and that the message
// holds every fragment.
func wantError(t testing.TB, w *httptest.ResponseRecorder, status int, code string, fragments ...string) envelope {
	t.Helper()
	env := decode(t, w)
	if w.Code != status {
		t.Errorf("status = %d, want %d (body %s)", w.Code, status, w.Body)
	}
	if env.Error == nil {
		t.Fatalf("no error in body: %s", w.Body)
	}
	if env.Error.Code != code {
		t.Errorf("code = %q, want %q (message %q)", env.Error.Code, code, env.Error.Message)
	}
	for _, f := range fragments {
		if !strings.Contains(env.Error.Message, f) {
			t.Errorf("message %q does not contain %q", env.Error.Message, f)
		}
	}
	return env
}

// logLines decodes the JSON log lines in buf.
func logLines(t testing.TB, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, l)
		}
		lines = append(lines, m)
	}
	return lines
}

// accessLine returns the access-log line of the request with the given id.
func accessLine(t testing.TB, buf *bytes.Buffer, id string) map[string]any {
	t.Helper()
	for _, m := range logLines(t, buf) {
		if m["msg"] == "request" && m["id"] == id {
			return m
		}
	}
	t.Fatalf("no access-log line for request %s in:\n%s", id, buf)
	return nil
}
