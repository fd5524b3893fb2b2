package demo

import (
	"context"
	"math"
	"testing"

	"frameindex/grid"
)

func TestSettlementClass(t *testing.T) {
	tests := []struct {
		pop  int32
		area float64
		want string
	}{
		{0, 0.85, "uninhabited"},
		{-1, 0.85, "uninhabited"},
		{1, 0.85, "rural"},
		{254, 0.85, "rural"},       // 298.8 per km²
		{255, 0.85, "peri-urban"},  // 300 per km²
		{1274, 0.85, "peri-urban"}, // 1,498.8 per km²
		{1275, 0.85, "urban"},      // 1,500 per km²
		{30000, 0.85, "urban"},
	}
	for _, tt := range tests {
		if got := settlementClass(tt.pop, tt.area); got != tt.want {
			t.Errorf("settlementClass(%d, %g) = %q, want %q", tt.pop, tt.area, got, tt.want)
		}
	}
}

func TestFacilityType(t *testing.T) {
	tests := []struct {
		class string
		u     float64
		want  int
	}{
		{"urban", 0, 3},
		{"urban", 0.019, 3},
		{"urban", 0.02, 2},
		{"urban", 0.169, 2},
		{"urban", 0.17, 1},
		{"urban", 0.56, 1},
		{"urban", 0.58, 0},
		{"peri-urban", 0, 2},
		{"peri-urban", 0.08, 1},
		{"peri-urban", 0.39, 0},
		{"rural", 0, 2},
		{"rural", 0.03, 1},
		{"rural", 0.19, 0},
		{"rural", 0.999, 0},
	}
	for _, tt := range tests {
		if got := facilityType(tt.class, tt.u); got != tt.want {
			t.Errorf("facilityType(%q, %g) = %s, want %s", tt.class, tt.u, facilityTypes[got], facilityTypes[tt.want])
		}
	}
}

func TestCoreDensity(t *testing.T) {
	tests := []struct{ pop, lo, hi float64 }{
		{1e5, 7999, 8001},
		{4.1e6, 24000, 25000}, // Kano
		{15e6, 35000, 37000},  // Lagos as one city
	}
	for _, tt := range tests {
		if got := coreDensity(tt.pop); got < tt.lo || got > tt.hi {
			t.Errorf("coreDensity(%g) = %.0f, want %g..%g", tt.pop, got, tt.lo, tt.hi)
		}
	}
}

func TestRuralDensity(t *testing.T) {
	tests := []struct {
		name     string
		lat, lon float64
		lo, hi   float64
	}{
		{"Lake Chad", 13.45, 14.25, 0, 0},
		{"Kainji Lake", 10.35, 4.55, 0, 0},
		{"Yankari", 9.75, 10.5, 0, 0},
	}
	for _, tt := range tests {
		if got := ruralDensity(tt.lat, tt.lon); got < tt.lo || got > tt.hi {
			t.Errorf("%s: ruralDensity = %.1f, want %g..%g", tt.name, got, tt.lo, tt.hi)
		}
	}
	// Averaged over a 0.5° square, the Igbo heartland is far denser than
	// the middle belt of Niger State.
	mean := func(lat, lon float64) float64 {
		s := 0.0
		for i := 0; i < 60; i++ {
			for j := 0; j < 60; j++ {
				s += ruralDensity(lat+float64(i)/120, lon+float64(j)/120)
			}
		}
		return s / 3600
	}
	if se, mb := mean(5.8, 7.1), mean(9.2, 5.2); se < 4*mb {
		t.Errorf("mean rural density: south-east %.0f, middle belt %.0f per km²", se, mb)
	}
}

func TestValueNoiseRange(t *testing.T) {
	for i := 0; i < 10000; i++ {
		lat, lon := 4+10*rnd(99, uint64(i), 0), 2.5+12*rnd(99, uint64(i), 1)
		if v := valueNoise(streamRegion, lat, lon, 0.1); v < 0 || v >= 1 || math.IsNaN(v) {
			t.Fatalf("valueNoise(%g, %g) = %g", lat, lon, v)
		}
	}
}

func TestLatticeIndex(t *testing.T) {
	runs := []grid.Run{{Row: 10, Col0: 5, Col1: 7}, {Row: 10, Col0: 10, Col1: 10}, {Row: 12, Col0: 0, Col1: 1}}
	l := newLattice(runs)
	tests := []struct{ row, col, want int }{
		{10, 5, 0}, {10, 7, 2}, {10, 8, -1}, {10, 10, 3}, {10, 11, -1}, {10, 4, -1},
		{11, 5, -1}, {12, 0, 4}, {12, 1, 5}, {12, 2, -1}, {9, 5, -1}, {13, 0, -1}, {-1, 0, -1},
	}
	for _, tt := range tests {
		if got := l.index(tt.row, tt.col); got != tt.want {
			t.Errorf("index(%d, %d) = %d, want %d", tt.row, tt.col, got, tt.want)
		}
	}
	if l.n != 6 {
		t.Errorf("n = %d, want 6", l.n)
	}
	if e := newLattice(nil); e.n != 0 || e.index(0, 0) != -1 {
		t.Error("empty lattice holds a cell")
	}
}

// FuzzLatticeIndex checks index against enumeration over runs built from
// the input: every cell each() visits is found at its position, and cells
// beside the runs are not found.
func FuzzLatticeIndex(f *testing.F) {
	f.Add([]byte{})                                   // no runs
	f.Add([]byte{0, 0, 0, 3})                         // one run of four cells
	f.Add([]byte{0, 5, 0, 0, 1, 2, 2, 1, 0, 0, 0, 9}) // three rows, a gap row
	f.Add([]byte{0, 0, 0, 0, 0, 2, 0, 0, 0, 4})       // several runs in a row
	f.Fuzz(func(t *testing.T, data []byte) {
		// Each 2 bytes: row step (0..3), then a run start gap and length.
		var runs []grid.Run
		row, col := int32(100), int32(-1)
		for len(data) >= 2 && len(runs) < 200 {
			if data[0]%4 > 0 {
				row += int32(data[0] % 4)
				col = -1
			}
			c0 := col + 1 + int32(data[1]%8)
			c1 := c0 + int32(data[0]/4%16)
			runs = append(runs, grid.Run{Row: row, Col0: c0, Col1: c1})
			col = c1 + 1 // leave a gap so runs never touch
			data = data[2:]
		}
		l := newLattice(runs)
		seen := 0
		err := l.each(context.Background(), func(i, r, c int, lat, lon float64) {
			if got := l.index(r, c); got != i {
				t.Fatalf("index(%d, %d) = %d, want %d", r, c, got, i)
			}
			if rr, cc := grid.CellAt(lat, lon); rr != r || cc != c {
				t.Fatalf("centre of (%d, %d) is in (%d, %d)", r, c, rr, cc)
			}
			seen++
		})
		if err != nil || seen != l.n {
			t.Fatalf("each visited %d of %d: %v", seen, l.n, err)
		}
		for _, r := range runs {
			if l.index(int(r.Row), int(r.Col0)-1) >= 0 && !contains(runs, r.Row, r.Col0-1) {
				t.Fatalf("cell west of %+v found", r)
			}
			if l.index(int(r.Row), int(r.Col1)+1) >= 0 {
				t.Fatalf("cell east of %+v found", r)
			}
		}
	})
}

func contains(runs []grid.Run, row, col int32) bool {
	for _, r := range runs {
		if r.Row == row && col >= r.Col0 && col <= r.Col1 {
			return true
		}
	}
	return false
}

func TestWardSeed(t *testing.T) {
	// The seed chosen is the nearest of all seeds in a 5 x 5 block
	// neighbourhood, not just the 3 x 3 searched.
	for _, step := range []int{wardStep, urbanWardStep} {
		for i := 0; i < 2000; i++ {
			h := hash3(77, uint64(i), uint64(step))
			row, col := 10000+int(h%500), 20000+int(mix(h)%500)
			key, d2 := wardSeed(row, col, step)
			br, bc := row/step, col/step
			for r := br - 2; r <= br+2; r++ {
				for c := bc - 2; c <= bc+2; c++ {
					k := uint64(step)<<48 | uint64(r)<<24 | uint64(c)
					hh := hash3(streamWard, k, 0)
					sy := float64(r*step) + float64(step)*(0.15+0.7*unit(hh))
					sx := float64(c*step) + float64(step)*(0.15+0.7*unit(mix(hh)))
					dy, dx := float64(row)+0.5-sy, float64(col)+0.5-sx
					if d := dy*dy + dx*dx; d < d2 {
						t.Fatalf("step %d cell (%d, %d): seed %x at %g, but %x at %g", step, row, col, key, d2, k, d)
					}
				}
			}
		}
	}
}

func TestFootprintsInsideFrame(t *testing.T) {
	row, col := grid.CellAt(sampleLat, sampleLon)
	box := grid.CellBox(row, col)
	fs := footprints(row, col, footprintsPerFrame, sampleLat)
	if len(fs) != footprintsPerFrame {
		t.Fatalf("%d footprints, want %d", len(fs), footprintsPerFrame)
	}
	for _, f := range fs {
		lat, lon := representative(t, f)
		if !box.Contains(lon, lat) {
			t.Errorf("footprint %s outside its frame %+v", f, box)
		}
	}
}

// The seeds of the random streams must not collide.
func TestStreamsDistinct(t *testing.T) {
	seen := map[uint64]uint64{}
	for s := streamRegion; s <= streamFootprint; s++ {
		h := hash3(s, 1, 2)
		if o, dup := seen[h]; dup {
			t.Errorf("streams %d and %d collide", o, s)
		}
		seen[h] = s
	}
}
