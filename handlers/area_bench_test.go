package handlers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/index"
	"frameindex/state"
)

// BenchmarkAreaQuestions asks questions about areas of the national demo
// (the grid built from ../shared/data/nga/nga_country.geojson, or
// $FRAMEINDEX_TEST_NGA; skipped when absent): an LGA (Kano, 2,034
// frames), a state (Kano, 25,478), the whole country by LGA, and coverage
// at 5 km of the whole country by LGA. The caches (places, columns,
// nearest-feature indexes) are warmed by one question first, as on a
// serving node.
func BenchmarkAreaQuestions(b *testing.B) {
	dir := os.Getenv("FRAMEINDEX_TEST_NGA")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "shared", "data", "nga")
	}
	outline := filepath.Join(dir, "nga_country.geojson")
	if _, err := os.Stat(outline); err != nil {
		b.Skipf("Nigerian outline absent: %v", err)
	}
	store, err := bolt.Open(filepath.Join(b.TempDir(), "demo.db"), bolt.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ops := &admin.Ops{Store: store}
	if _, err := ops.BuildGrid(context.Background(), admin.GridBuild{Boundary: outline}); err != nil {
		b.Fatal(err)
	}
	if _, err := demo.Build(context.Background(), store, time.Now(), nil); err != nil {
		b.Fatal(err)
	}
	_, runs, _, err := store.Grid()
	if err != nil {
		b.Fatal(err)
	}
	ix := index.NewLattice(runs)
	const secret = "svc_sk_bench_areas"
	keys := digestKeys{state.Digest(secret): {ID: "key_bench", OrgID: demo.OrgDemo, Digest: state.Digest(secret),
		Caps: []state.Capability{state.CapFrameRead, state.CapAskQuery}, Expires: time.Now().Add(time.Hour)}}
	srv := New(Config{
		Frames: func() FrameIndex { return ix },
		Keys:   func() KeyLookup { return keys },
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Data:   store,
	})
	for _, c := range []struct{ name, body string }{
		{"lga", `{"area":{"place":"Kano","kind":"lga"},"question":"How many people live here?"}`},
		{"state", `{"area":{"place":"Kano","kind":"state"},"question":"How many people live here?"}`},
		{"country_by_lga", `{"area":{"place":"Nigeria"},"question":"population by LGA"}`},
		{"coverage5km_country_by_lga", `{"area":{"place":"Nigeria"},"question":"How many people live more than 5 km from a health facility, by LGA?"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			ask := func() {
				r := newInsightRequest(c.body, secret, "application/json")
				w := &discardWriter{header: http.Header{}}
				srv.ServeHTTP(w, r)
				if w.status != http.StatusOK {
					b.Fatalf("%s: status %d", c.body, w.status)
				}
			}
			ask()
			b.ReportAllocs()
			for b.Loop() {
				ask()
			}
		})
	}
}
