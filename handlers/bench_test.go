package handlers

import (
	"crypto/subtle"
	"frameindex/logging"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/index"
	"frameindex/limiter"
	"frameindex/state"
)

// benchRuns is a lattice of rows 9000..10200 and columns 22000..23500
// (about 1.8 million cells, south-west Nigeria and beyond), as runs.
func benchRuns() []grid.Run {
	runs := make([]grid.Run, 0, 1201)
	for row := int32(9000); row <= 10200; row++ {
		runs = append(runs, grid.Run{Row: row, Col0: 22000, Col1: 23500})
	}
	return runs
}

// benchIndex returns the real index over benchRuns, or, while package index
// is still a stub (Len() == 0), the in-test rectGrid over the same cells.
func benchIndex(b *testing.B) FrameIndex {
	b.Helper()
	if ix := index.NewLattice(benchRuns()); ix.Len() > 0 {
		return ix
	}
	b.Log("index.NewLattice is empty (stub): using the in-test rectGrid over the same lattice")
	return rectGrid{r0: 9000, r1: 10200, c0: 22000, c1: 23500}
}

// digestKeys looks keys up as state.Keyring does: SHA-256 of the secret, a
// map lookup, a constant-time comparison.
type digestKeys map[[32]byte]state.Key

func (d digestKeys) Lookup(secret string, now time.Time) (state.Key, error) {
	sum := state.Digest(secret)
	k, ok := d[sum]
	if !ok || subtle.ConstantTimeCompare(k.Digest[:], sum[:]) != 1 {
		return state.Key{}, state.ErrUnknownKey
	}
	return k, nil
}

// discardWriter is a ResponseWriter that counts and drops the body, so the
// benchmark measures the handler rather than a recorder's growing buffer.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(s int)           { w.status = s }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// benchServer is a Server over the bench lattice with one key, logging JSON
// to io.Discard through the server's own log handler (so log formatting is
// measured too, as serve does it).
func benchServer(b *testing.B) *Server {
	b.Helper()
	ix := benchIndex(b)
	const secret = "svc_sk_BenchBenchBenchBenchBenchBench00"
	keys := digestKeys{state.Digest(secret): {ID: "key_bench", Digest: state.Digest(secret), Caps: []state.Capability{state.CapFrameRead}}}
	// The real limiter, with buckets too large to refuse: its cost is part
	// of every request.
	lc := limiter.DefaultConfig()
	lc.Key = limiter.Limit{PerMinute: 6e10, Burst: 1e9}
	lc.Org = lc.Key
	return New(Config{
		Frames:  func() FrameIndex { return ix },
		Keys:    func() KeyLookup { return keys },
		Logger:  slog.New(logging.NewJSONHandler(io.Discard, nil)),
		Limiter: limiter.New(lc, limiter.NewMemory(lc), nil),
	})
}

func benchRequest(target string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Authorization", "Bearer svc_sk_BenchBenchBenchBenchBenchBench00")
	return r
}

// BenchmarkHandleFramesAt is one point lookup through the whole Server:
// routing, auth, parsing, the index, encoding, logging.
func BenchmarkHandleFramesAt(b *testing.B) {
	s := benchServer(b)
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

// BenchmarkHandleFrames5000 is a box query that returns 5,000 frames
// (truncated), about 1.5 MB, through the whole Server.
func BenchmarkHandleFrames5000(b *testing.B) {
	s := benchServer(b)
	r := benchRequest("/v1/frames?bbox=3.5,7,5.5,9")
	w := &discardWriter{header: http.Header{}}
	s.ServeHTTP(w, r)
	if w.status != http.StatusOK || w.n < 1<<20 {
		b.Fatalf("status %d, %d bytes", w.status, w.n)
	}
	b.SetBytes(int64(w.n))
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		s.ServeHTTP(w, r)
	}
}

// BenchmarkHandleFramesIDs100 is a query by 100 ids.
func BenchmarkHandleFramesIDs100(b *testing.B) {
	s := benchServer(b)
	target := "/v1/frames?ids="
	for i := range 100 {
		if i > 0 {
			target += ","
		}
		target += id(9500+i, 22500+i)
	}
	r := benchRequest(target)
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
