package handlers

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"frameindex/limiter"
	"frameindex/narrate/ollamatest"
	"frameindex/state"
)

// recMetrics records every hook call as a line of text.
type recMetrics struct {
	mu    sync.Mutex
	calls []string
}

func (m *recMetrics) add(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, fmt.Sprintf(format, args...))
}

func (m *recMetrics) Request(route string, status int, took time.Duration) {
	if took <= 0 {
		m.add("request %q %d non-positive duration", route, status)
		return
	}
	m.add("request %q %d", route, status)
}
func (m *recMetrics) RateLimit(kind, outcome string) { m.add("rate %s %s", kind, outcome) }
func (m *recMetrics) Charges(charged int, credits int64, leftOut int) {
	m.add("charges %d %d %d", charged, credits, leftOut)
}
func (m *recMetrics) Wording(outcome, reason string) { m.add("wording %s %s", outcome, reason) }

func (m *recMetrics) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.calls
	m.calls = nil
	return c
}

func TestServer_MetricsRequestsAndRateLimits(t *testing.T) {
	allowed := limiter.Decision{Allowed: true, State: limiter.State{Limit: 120, Remaining: 5}}
	refused := limiter.Decision{Allowed: false, State: limiter.State{Limit: 120, RetryAfter: time.Second}}
	tests := []struct {
		name     string
		target   string
		secret   string
		decision limiter.Decision
		err      error
		want     []string
	}{
		{"allowed", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, allowed, nil,
			[]string{"rate request allowed", `request "GET /v1/frames/at" 200`}},
		{"refused", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, refused, nil,
			[]string{"rate request refused", `request "GET /v1/frames/at" 429`}},
		{"store down", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, limiter.Decision{}, limiter.ErrUnavailable,
			[]string{"rate request unmetered", `request "GET /v1/frames/at" 200`}},
		{"buckets off", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, limiter.Decision{Allowed: true}, nil,
			[]string{"rate request unmetered", `request "GET /v1/frames/at" 200`}},
		{"bad key", "/v1/frames/at?lat=9.0765&lon=7.3986", "svc_sk_notakey", allowed, nil,
			[]string{"rate invalid allowed", `request "GET /v1/frames/at" 401`}},
		{"no route", "/v2/nothing", "", allowed, nil, []string{`request "" 404`}},
		{"health needs no meter", "/livez", "", allowed, nil, []string{`request "GET /livez" 200`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := &fakeLimiter{
				RequestFn:    func(string, string, bool) (limiter.Decision, error) { return tc.decision, tc.err },
				InvalidKeyFn: func([32]byte) (limiter.Decision, error) { return tc.decision, tc.err },
			}
			m := &recMetrics{}
			s := New(Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return testKeys },
				Limiter: lim, Logger: slog.New(slog.DiscardHandler), Metrics: m})
			get(s, tc.target, tc.secret)
			if got := m.take(); !slices.Equal(got, tc.want) {
				t.Errorf("hooks %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServer_MetricsCharges(t *testing.T) {
	a, b := mustID(frameA), mustID(frameB)
	m := &memStore{balance: 3, datasets: []memDataset{
		{access: state.Access{Dataset: state.Dataset{ID: "own", Name: "Own"}}, attrs: map[uint64]string{a: `{"v":1}`}},
		{access: state.Access{Dataset: state.Dataset{ID: "pq1", Name: "PQ one", Price: 3}, PerQuery: true},
			attrs: map[uint64]string{a: `{"v":2}`, b: `{"v":3}`}},
		{access: state.Access{Dataset: state.Dataset{ID: "pq2", Name: "PQ two", Price: 1}, PerQuery: true},
			attrs: map[uint64]string{a: `{"v":4}`}},
	}}
	s, _ := dataServer(t, m.fake())
	rec := &recMetrics{}
	s.metrics = rec
	dataOK(t, get(s, "/v1/frames/data?ids="+frameA+","+frameB, secretFeatures))
	want := []string{"charges 1 3 1", `request "GET /v1/frames/data" 200`}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("hooks %q, want %q", got, want)
	}
	// A request without per-query datasets reports no charges.
	dataOK(t, get(s, "/v1/frames/data?ids=1", secretFeatures))
	want = []string{`request "GET /v1/frames/data" 200`}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("hooks %q, want %q", got, want)
	}
}

func TestServer_MetricsWording(t *testing.T) {
	body := `{"frameIds":` + idsJSON(2) + `,"question":"population"}`
	tests := []struct {
		name       string
		reply      string
		fail       int
		reserveErr error
		want       string
	}{
		{"kept", "About 12,000 people live in the 2 frames of Kano (2020 estimate).", 0, nil, "wording kept "},
		{"wrong number", "About 13,500 people live in the 2 frames.", 0, nil, "wording discarded wrong_number"},
		{"model fails", "", 500, nil, "wording discarded model_failed"},
		{"no allowance", "12,345 people.", 0, state.ErrNoAllowance, "wording not_worded no_allowance"},
		{"reserve fails", "12,345 people.", 0, errors.New("disk full"), "wording not_worded store_failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := ollamatest.NewServer()
			defer model.Close()
			model.SetReply(tc.reply)
			if tc.fail != 0 {
				model.SetFail(tc.fail, "out of memory")
			}
			s := wordingServer(t, model, &fakeAllowance{reserveErr: tc.reserveErr}, 3*time.Second)
			rec := &recMetrics{}
			s.metrics = rec
			w := httptest.NewRecorder()
			s.ServeHTTP(w, newInsightRequest(body, secretAskOnly, "application/json"))
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			got := rec.take()
			if !slices.Contains(got, tc.want) {
				t.Errorf("hooks %q, want one %q", got, tc.want)
			}
		})
	}
}

// BenchmarkHandleFramesAtMetrics is BenchmarkHandleFramesAt with a Metrics
// that does nothing: the cost of the hooks' calls themselves.
func BenchmarkHandleFramesAtMetrics(b *testing.B) {
	benchFramesAt(b, nopMetrics{})
}

type nopMetrics struct{}

func (nopMetrics) Request(string, int, time.Duration) {}
func (nopMetrics) RateLimit(string, string)           {}
func (nopMetrics) Charges(int, int64, int)            {}
func (nopMetrics) Wording(string, string)             {}

func benchFramesAt(b *testing.B, m Metrics) {
	s := benchServer(b)
	s.metrics = m
	r := benchRequest("/v1/frames/at?lat=7.3775&lon=3.9470") // Ibadan
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		s.ServeHTTP(w, r)
	}
	if w.status != http.StatusOK {
		b.Fatalf("status %d", w.status)
	}
}
