package gpkg

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"testing"
)

// FuzzDecodeGeometry: whatever the blob, the decoder never panics; what it
// accepts it writes as valid JSON, "null" or a geometry object, and what
// it refuses leaves the output as it was.
func FuzzDecodeGeometry(f *testing.F) {
	sq := []float64{0, 0, 0, 1, 1, 1, 1, 0, 0, 0}
	multi := (&wkbw{}).head(6).u32(2)
	multi.b = append(multi.b, wkbPoly(sq)...)
	multi.b = append(multi.b, (&wkbw{big: true}).head(1003).u32(1).pts(3, 0, 0, 1, 2, 2, 1, 2, 0, 1, 0, 0, 1).b...)
	coll := (&wkbw{}).head(7).u32(3)
	coll.b = append(coll.b, wkbPt(1, 2)...)
	coll.b = append(coll.b, (&wkbw{}).head(5).u32(1).b...)
	coll.b = append(coll.b, (&wkbw{}).head(2).pts(2, 0, 0, 1, 1).b...)
	for _, seed := range [][]byte{
		gp(wkbPt(3.5, 7.25), 0, false),
		gp(wkbPt(math.NaN(), math.NaN()), 1, false),
		gp((&wkbw{big: true}).head(3001).f(1, 2, 3, 4).b, 4, false),
		gp((&wkbw{}).head(2).pts(2, 0, 0, 1, 1, 2, 0).b, 2, false),
		gp(wkbPoly(sq, []float64{.2, .2, .4, .2, .4, .4, .2, .2}), 3, false),
		gp(multi.b, 1, false),
		gp(coll.b, 0, false),
		gp((&wkbw{}).head(0xA0000001).u32(4326).f(1, 2, 3).b, 0, false),
		gp(wkbPt(1, 2), 0, true),
		[]byte("GP\x00\x21\x00\x00\x00\x00ABCD"),
		[]byte("GP"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, blob []byte) {
		var d decoder
		out, err := d.appendGeometry([]byte("["), blob)
		if err != nil {
			if string(out) != "[" {
				t.Fatalf("output changed on error: %q", out)
			}
			return
		}
		body := out[1:]
		if !json.Valid(body) {
			t.Fatalf("invalid JSON %q", body)
		}
		if string(body) != "null" && !bytes.HasPrefix(body, []byte(`{"type":"`)) {
			t.Fatalf("not a geometry: %q", body)
		}
	})
}

// makeBenchGPKG writes n points with two properties, in one transaction.
func makeBenchGPKG(b *testing.B, n int) string {
	b.Helper()
	path := makeGPKG(b, fixtureLayer{name: "points", srsID: 4326, columns: `, name TEXT, value REAL`})
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO points (geom, name, value) VALUES (?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		lon := 3 + float64(i%1000)*0.01
		lat := 5 + float64(i/1000)*0.01
		if _, err := st.Exec(gp(wkbPt(lon, lat), 1, false), "building "+strconv.Itoa(i), float64(i)*0.5); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadPoints reads a 1,000,000-point GeoPackage made in the temp
// dir; features/s is the figure to watch (target: 100,000/s or more).
func BenchmarkReadPoints(b *testing.B) {
	const n = 1_000_000
	path := makeBenchGPKG(b, n)
	b.ReportAllocs()
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		r, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			total++
		}
		r.Close()
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "features/s")
}

// BenchmarkDecodePolygon measures the geometry decoder alone.
func BenchmarkDecodePolygon(b *testing.B) {
	ring := make([]float64, 0, 202)
	for i := 0; i <= 100; i++ {
		a := 2 * math.Pi * float64(i%100) / 100
		ring = append(ring, 7+math.Cos(a), 9+math.Sin(a))
	}
	blob := gp(wkbPoly(ring), 1, false)
	var d decoder
	var out []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		out, err = d.appendGeometry(out[:0], blob)
		if err != nil {
			b.Fatal(err)
		}
	}
}
