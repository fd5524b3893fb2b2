package reach

import (
	"math"
	"math/rand/v2"
	"testing"
)

// brute is the nearest distance by checking every point.
func brute(pts []Point, lon, lat, limit float64) float64 {
	best := math.Inf(1)
	for _, p := range pts {
		best = math.Min(best, HaversineKm(lon, lat, p.Lon, p.Lat))
	}
	if best > limit {
		return math.Inf(1)
	}
	return best
}

func TestNearestMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pts []Point
	for range 3000 { // roughly Nigeria's box
		pts = append(pts, Point{2.7 + r.Float64()*12, 4.3 + r.Float64()*9.6})
	}
	pts = append(pts, Point{200, 0}, Point{0, 95}) // out of range: left out
	ix := Build(pts)
	if ix.Len() != 3000 {
		t.Fatalf("indexed %d points", ix.Len())
	}
	for k := range 5000 {
		lon, lat := 2+r.Float64()*13.5, 4+r.Float64()*10.5
		limit := []float64{1, 5, 20, 100}[k%4]
		got, want := ix.NearestKm(lon, lat, limit), brute(pts[:3000], lon, lat, limit)
		if got != want && math.Abs(got-want) > 1e-9 {
			t.Fatalf("(%v, %v) limit %v: %v, want %v", lon, lat, limit, got, want)
		}
	}
	if d := Build(nil).NearestKm(8, 12, 100); !math.IsInf(d, 1) {
		t.Errorf("empty index: %v", d)
	}
}

func TestHaversine(t *testing.T) {
	// One degree of a meridian on the mean sphere.
	if d := HaversineKm(8, 12, 8, 13); math.Abs(d-EarthRadiusKm*math.Pi/180) > 1e-9 {
		t.Errorf("one degree: %v", d)
	}
}

func BenchmarkNearestKm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var pts []Point
	for range 20000 {
		pts = append(pts, Point{2.7 + r.Float64()*12, 4.3 + r.Float64()*9.6})
	}
	ix := Build(pts)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ix.NearestKm(2.7+float64(i%1000)*0.012, 4.3+float64(i%997)*0.0096, 100)
	}
}

// TestInBoxMatchesBruteForce checks InBox against a scan of every point,
// boxes inside, across and outside the points' range.
func TestInBoxMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var pts []Point
	for range 2000 {
		pts = append(pts, Point{2.7 + r.Float64()*12, 4.3 + r.Float64()*9.6})
	}
	ix := Build(pts)
	for range 500 {
		a, b := 1+r.Float64()*15, 1+r.Float64()*15
		c, d := 3+r.Float64()*12, 3+r.Float64()*12
		minLon, maxLon, minLat, maxLat := min(a, b), max(a, b), min(c, d), max(c, d)
		want := 0
		for _, p := range pts {
			if p.Lon >= minLon && p.Lon <= maxLon && p.Lat >= minLat && p.Lat <= maxLat {
				want++
			}
		}
		got := 0
		ix.InBox(minLon, minLat, maxLon, maxLat, func(p Point) bool {
			if p.Lon < minLon || p.Lon > maxLon || p.Lat < minLat || p.Lat > maxLat {
				t.Fatalf("point %v outside the box", p)
			}
			got++
			return true
		})
		if got != want {
			t.Fatalf("box %v,%v %v,%v: %d points, want %d", minLon, minLat, maxLon, maxLat, got, want)
		}
	}
	n := 0
	ix.InBox(0, 0, 20, 20, func(Point) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("fn returning false stopped after %d points, want 3", n)
	}
}
