package handlers

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// demoQuestions are plans of every kind the handler answers over 50
// frames of the national demo (six datasets).
var demoQuestions = []string{
	"",
	"What is the total population?",
	"What is the average population per frame?",
	"median population per frame",
	"How many frames have more than 1,000 people and no health facility?",
	"What share of the population lives in urban frames?",
	"health facilities per 10,000 people",
	"population density",
	"Which 5 frames have the most buildings?",
	"compare population and buildings",
	"Which frame is farthest from a health facility?",
	"population by settlement class",
	"How many health facilities are there?",
}

// demoInsightServer serves the national demo named by FRAMEINDEX_DEMO
// (skipped when unset; a copy: charges are written to it) to a key of the
// demo agency, and returns 50 frame
// ids around Kano as a body prefix.
func demoInsightServer(b *testing.B) (*Server, string) {
	path := os.Getenv("FRAMEINDEX_DEMO")
	if path == "" {
		b.Skip("set FRAMEINDEX_DEMO to a `frameindex demo` data file")
	}
	s, err := bolt.Open(path, bolt.Options{}) // a profile charges the per-query nightlights
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	_, runs, _, err := s.Grid()
	if err != nil {
		b.Fatal(err)
	}
	ix := index.NewLattice(runs)
	keys := &fakeKeys{LookupFn: func(string, time.Time) (state.Key, error) {
		return state.Key{ID: "bench", OrgID: demo.OrgDemo, Caps: []state.Capability{state.CapAskQuery, state.CapFeatureRead}}, nil
	}}
	srv := New(Config{Frames: func() FrameIndex { return ix }, Keys: func() KeyLookup { return keys }, Data: s,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	var ids []string
	ix.Box(grid.Box{MinLon: 8.45, MinLat: 11.93, MaxLon: 8.57, MaxLat: 12.05}, 50, func(sh grid.Shape) bool {
		ids = append(ids, `"`+strconv.FormatUint(sh.ID, 10)+`"`)
		return true
	})
	return srv, `{"frameIds":[` + strings.Join(ids, ",") + `]`
}

// askBench times one question through the whole Server (the caches warm)
// and reports the median of the runs.
func askBench(b *testing.B, s *Server, body string) {
	ask := func() {
		r := httptest.NewRequest(http.MethodPost, "/v1/frames/insight", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+secretAskOnly)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d: %s", w.Code, w.Body)
		}
	}
	ask()
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		ask()
		ds = append(ds, time.Since(t))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
}

func BenchmarkInsightPlans50(b *testing.B) {
	s, prefix := demoInsightServer(b)
	for _, q := range demoQuestions {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			askBench(b, s, prefix+`,"question":"`+q+`"}`)
		})
	}
}

func BenchmarkInsightWithin5km50(b *testing.B) {
	s, prefix := demoInsightServer(b)
	askBench(b, s, prefix+`,"question":"How many people live within 5 km of a health facility?"}`)
}
