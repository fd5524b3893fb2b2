package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"frameindex/grid"
	"frameindex/state"
	bbolt "go.etcd.io/bbolt"
)

// square returns the closed counter-clockwise ring of a box.
func square(minLon, minLat, maxLon, maxLat float64) grid.Ring {
	return grid.Ring{{minLon, minLat}, {maxLon, minLat}, {maxLon, maxLat}, {minLon, maxLat}, {minLon, minLat}}
}

// testFrames are polygon frames with a hole, a multipolygon and
// coordinates that are not short decimals; deliberately out of id order.
func testFrames() []grid.Frame {
	third := 1.0 / 3
	return []grid.Frame{
		{ID: 42, Geom: grid.MultiPolygon{{square(3, 6, 4, 7)}}},
		{ID: 7, Geom: grid.MultiPolygon{{ // a square with a square hole
			square(0, 0, 10, 10),
			{{2, 2}, {2, 4}, {4, 4}, {4, 2}, {2, 2}},
		}}},
		{ID: math.MaxUint64, Geom: grid.MultiPolygon{ // two islands, one holed
			{square(-180, -90, -179.5, -89.5)},
			{square(179, 89, 180, 90), square(179.25, 89.25, 179.5, 89.5)},
		}},
		{ID: 0, Geom: grid.MultiPolygon{{{
			{third, 0.1 + 0.2}, {math.Nextafter(1, 2), 0.3}, {math.SmallestNonzeroFloat64, 1e-300}, {third, 0.1 + 0.2},
		}}}},
	}
}

// sameBits reports whether two geometries hold the same float64 bit patterns.
func sameBits(a, b grid.MultiPolygon) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if len(a[i][j]) != len(b[i][j]) {
				return false
			}
			for k := range a[i][j] {
				for c := 0; c < 2; c++ {
					if math.Float64bits(a[i][j][k][c]) != math.Float64bits(b[i][j][k][c]) {
						return false
					}
				}
			}
		}
	}
	return true
}

func TestStore_GridEmpty(t *testing.T) {
	s := MustOpenStore(t)
	if _, _, _, err := s.Grid(); !errors.Is(err, ErrNoGrid) {
		t.Errorf("Grid() error = %v, want ErrNoGrid", err)
	}
	_, err := s.GridInfo()
	if !errors.Is(err, ErrNoGrid) {
		t.Errorf("GridInfo() error = %v, want ErrNoGrid", err)
	}
	assertErrText(t, err, s.Path(), "holds no grid")
}

func TestStore_PutLattice(t *testing.T) {
	s := MustOpenStore(t)
	info, err := s.PutLattice(testRuns, "nga_country.geojson")
	if err != nil {
		t.Fatal(err)
	}
	want := GridInfo{
		Kind:   GridLattice,
		Frames: 11 + 1 + 41 + 2 + 93,
		Bounds: grid.Box{
			MinLon: grid.Lon(21990), MinLat: grid.Lat(1206),
			MaxLon: grid.Lon(22101), MaxLat: grid.Lat(1200),
		},
		Source:  "nga_country.geojson",
		BuiltAt: testNow,
	}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("PutLattice info = %+v, want %+v", info, want)
	}
	gotInfo, runs, frames, err := s.Grid()
	if err != nil {
		t.Fatal(err)
	}
	if !gotInfo.BuiltAt.Equal(want.BuiltAt) {
		t.Errorf("BuiltAt = %v, want %v", gotInfo.BuiltAt, want.BuiltAt)
	}
	gotInfo.BuiltAt = want.BuiltAt
	if !reflect.DeepEqual(gotInfo, want) {
		t.Errorf("Grid info = %+v, want %+v", gotInfo, want)
	}
	if !slices.Equal(runs, testRuns) {
		t.Errorf("Grid runs = %v, want %v", runs, testRuns)
	}
	if frames != nil {
		t.Errorf("Grid frames = %v, want nil for a lattice", frames)
	}
	info2, err := s.GridInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info2.Frames != want.Frames || info2.Bounds != want.Bounds || info2.Kind != want.Kind {
		t.Errorf("GridInfo() = %+v, want %+v", info2, want)
	}
}

func TestStore_PutPolygons(t *testing.T) {
	s := MustOpenStore(t)
	in := testFrames()
	orig := testFrames()
	info, err := s.PutPolygons(in, "lgas.geojson")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Error("PutPolygons modified its input")
	}
	want := GridInfo{Kind: GridPolygons, Frames: 4, Bounds: grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}, Source: "lgas.geojson", BuiltAt: testNow}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("PutPolygons info = %+v, want %+v", info, want)
	}
	gotInfo, runs, frames, err := s.Grid()
	if err != nil {
		t.Fatal(err)
	}
	if gotInfo.Frames != 4 || gotInfo.Kind != GridPolygons || gotInfo.Bounds != want.Bounds {
		t.Errorf("Grid info = %+v, want %+v", gotInfo, want)
	}
	if runs != nil {
		t.Errorf("Grid runs = %v, want nil for polygons", runs)
	}
	wantFrames := slices.Clone(orig)
	slices.SortFunc(wantFrames, func(a, b grid.Frame) int { return cmpID(a.ID, b.ID) })
	if len(frames) != len(wantFrames) {
		t.Fatalf("Grid returned %d frames, want %d", len(frames), len(wantFrames))
	}
	for i := range frames {
		if frames[i].ID != wantFrames[i].ID || !sameBits(frames[i].Geom, wantFrames[i].Geom) {
			t.Errorf("frame %d = %v, want %v (bit for bit)", i, frames[i], wantFrames[i])
		}
	}
	// Returned slices are the caller's: appending to a ring must not spill
	// into the next one.
	r0 := frames[0].Geom[0][0]
	next := frames[1].Geom[0][0][0]
	_ = append(r0, grid.Point{99, 99})
	if frames[1].Geom[0][0][0] != next {
		t.Error("appending to a returned ring overwrote another frame")
	}
}

func TestStore_PutLatticeInvalid(t *testing.T) {
	tests := []struct {
		name string
		runs []grid.Run
		want string
	}{
		{"none", nil, "no runs"},
		{"negative row", []grid.Run{{Row: -1, Col0: 0, Col1: 0}}, "run 0 (row -1, cols 0..0): row outside"},
		{"row past the pole", []grid.Run{{Row: grid.Rows, Col0: 0, Col1: 0}}, "row outside 0..21599"},
		{"negative column", []grid.Run{{Row: 5, Col0: -1, Col1: 3}}, "columns outside"},
		{"column past 180", []grid.Run{{Row: 5, Col0: 0, Col1: grid.Cols}}, "columns outside 0..43199"},
		{"reversed", []grid.Run{{Row: 5, Col0: 9, Col1: 4}}, "first column after last"},
		{"rows out of order", []grid.Run{{Row: 6, Col0: 0, Col1: 1}, {Row: 5, Col0: 0, Col1: 1}}, "run 1 (row 5, cols 0..1): rows out of order"},
		{"columns out of order", []grid.Run{{Row: 5, Col0: 10, Col1: 11}, {Row: 5, Col0: 0, Col1: 1}}, "precedes the run before it"},
		{"overlap", []grid.Run{{Row: 5, Col0: 0, Col1: 10}, {Row: 5, Col0: 10, Col1: 12}}, "overlaps"},
		{"duplicate", []grid.Run{{Row: 5, Col0: 0, Col1: 10}, {Row: 5, Col0: 0, Col1: 10}}, "overlaps"},
	}
	s := MustOpenStore(t)
	if _, err := s.PutLattice(testRuns, "before"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.PutLattice(tt.runs, "bad")
			if !errors.Is(err, state.ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			assertErrText(t, err, "invalid lattice", tt.want)
		})
	}
	_, err := s.PutLattice(testRuns, string([]byte{0xff}))
	if !errors.Is(err, state.ErrInvalid) {
		t.Errorf("bad source: error = %v, want ErrInvalid", err)
	}
	// Refused grids leave the stored one alone.
	info, runs, _, err := s.Grid()
	if err != nil || info.Source != "before" || !slices.Equal(runs, testRuns) {
		t.Errorf("after refusals Grid() = %+v, %v, %v; want the first grid", info, runs, err)
	}
}

func TestStore_PutPolygonsInvalid(t *testing.T) {
	ok := grid.MultiPolygon{{square(0, 0, 1, 1)}}
	tests := []struct {
		name   string
		frames []grid.Frame
		want   string
	}{
		{"none", nil, "no frames"},
		{"duplicate id", []grid.Frame{{ID: 5, Geom: ok}, {ID: 3, Geom: ok}, {ID: 5, Geom: ok}}, "frame 2 has id 5, as frame 0 does"},
		{"no polygons", []grid.Frame{{ID: 1}}, "frame 0 (id 1): no polygons"},
		{"no rings", []grid.Frame{{ID: 1, Geom: ok}, {ID: 2, Geom: grid.MultiPolygon{{}}}}, "frame 1 (id 2): polygon 0 has no rings"},
		{"three points", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{{{0, 0}, {1, 0}, {0, 0}}}}}}, "3 points, need at least 4"},
		{"unclosed", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}}}}}, "not closed"},
		{"unclosed hole", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{square(0, 0, 4, 4), {{1, 1}, {2, 1}, {2, 2}, {1, 2}}}}}}, "polygon 0 ring 1: not closed"},
		{"NaN", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{square(0, 0, math.NaN(), 1)}}}}, "point 1 (NaN, 0)"},
		{"infinite", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{square(0, 0, 1, math.Inf(1))}}}}, "not a finite lon, lat"},
		{"lon out of range", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{square(180, 0, 181, 1)}}}}, "world range"},
		{"lat out of range", []grid.Frame{{ID: 1, Geom: grid.MultiPolygon{{square(0, -91, 1, 1)}}}}, "world range"},
	}
	s := MustOpenStore(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.PutPolygons(tt.frames, "bad")
			if !errors.Is(err, state.ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			assertErrText(t, err, "invalid polygon grid", tt.want)
		})
	}
	if _, _, _, err := s.Grid(); !errors.Is(err, ErrNoGrid) {
		t.Errorf("after refusals Grid() error = %v, want ErrNoGrid", err)
	}
}

// TestStore_GridReplace checks that each Put replaces whatever grid was
// there, and that a reader that began before a replacement still sees the
// old grid whole.
func TestStore_GridReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	// A large initial mapping: bbolt must not remap (which waits for
	// readers) while this test holds a read transaction.
	s := mustOpenStoreOpts(t, path, Options{Create: true, mmapSize: 64 << 20})

	steps := []struct {
		name    string
		put     func() error
		kind    GridKind
		buckets [2]bool // lattice, frames present
	}{
		{"lattice", func() error { _, err := s.PutLattice(testRuns, "a"); return err }, GridLattice, [2]bool{true, false}},
		{"polygons over lattice", func() error { _, err := s.PutPolygons(testFrames(), "b"); return err }, GridPolygons, [2]bool{false, true}},
		{"polygons over polygons", func() error { _, err := s.PutPolygons(testFrames()[:2], "c"); return err }, GridPolygons, [2]bool{false, true}},
		{"lattice over polygons", func() error { _, err := s.PutLattice(testRuns[:2], "d"); return err }, GridLattice, [2]bool{true, false}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, beforeRuns, beforeFrames, beforeErr := s.Grid()

			reader, err := s.db.Begin(false)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			go func() { done <- st.put() }()
			if err := <-done; err != nil {
				reader.Rollback()
				t.Fatal(err)
			}

			// The reader still sees the grid from before, whole.
			old, err := s.readGridInfo(reader)
			if (err == nil) != (beforeErr == nil) || (err != nil && !errors.Is(err, ErrNoGrid)) ||
				old.Source != before.Source || old.Frames != before.Frames {
				t.Errorf("old reader sees %+v, %v; want %+v, %v", old, err, before, beforeErr)
			}
			if err == nil {
				var runs []grid.Run
				var frames []grid.Frame
				if old.Kind == GridLattice {
					runs, err = s.readLattice(reader, old.Frames)
				} else {
					frames, err = s.readPolygons(reader, old.Frames)
				}
				if err != nil || !reflect.DeepEqual(runs, beforeRuns) || len(frames) != len(beforeFrames) {
					t.Errorf("old reader read %d runs, %d frames (%v); want %d, %d", len(runs), len(frames), err, len(beforeRuns), len(beforeFrames))
				}
			}
			reader.Rollback()

			info, _, _, err := s.Grid()
			if err != nil || info.Kind != st.kind {
				t.Fatalf("new Grid() = %+v, %v; want kind %s", info, err, st.kind)
			}
			s.db.View(func(tx *bbolt.Tx) error {
				got := [2]bool{tx.Bucket(bucketLattice) != nil, tx.Bucket(bucketFrames) != nil}
				if got != st.buckets {
					t.Errorf("buckets (lattice, frames) = %v, want %v", got, st.buckets)
				}
				return nil
			})
		})
	}
}

func TestStore_GridCorrupt(t *testing.T) {
	tests := []struct {
		name   string
		polys  bool // store testFrames instead of testRuns
		damage func(tx *bbolt.Tx) error
		want   string
	}{
		{"grid record not JSON", false, func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaGrid, []byte("{"))
		}, "grid record"},
		{"unknown kind", false, func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaGrid, []byte(`{"kind":"hexagons","frames":1}`))
		}, `unknown grid kind "hexagons"`},
		{"frame count off", false, func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaGrid, []byte(`{"kind":"lattice","frames":149}`))
		}, "lattice holds 148 cells, its record says 149"},
		{"lattice bucket gone", false, func(tx *bbolt.Tx) error {
			return tx.DeleteBucket(bucketLattice)
		}, "lattice bucket missing"},
		{"row key short", false, func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketLattice).Put([]byte{1}, make([]byte, 8))
		}, "lattice key of 1 bytes"},
		{"run reversed", false, func(tx *bbolt.Tx) error {
			v := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 9), 4)
			return tx.Bucket(bucketLattice).Put(binary.BigEndian.AppendUint32(nil, 1200), v)
		}, "lattice row 1200: run 9..4"},
		{"frame value cut", true, func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketFrames)
			k := binary.BigEndian.AppendUint64(nil, 42)
			v := slices.Clone(b.Get(k))
			return b.Put(k, v[:len(v)-3])
		}, "frame 42"},
		{"frame count huge", true, func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketFrames)
			return b.Put(binary.BigEndian.AppendUint64(nil, 42), binary.AppendUvarint(nil, 1<<62))
		}, "do not fit"},
		{"frames bucket gone", true, func(tx *bbolt.Tx) error {
			return tx.DeleteBucket(bucketFrames)
		}, "frames bucket missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			var err error
			if tt.polys {
				_, err = s.PutPolygons(testFrames(), "x")
			} else {
				_, err = s.PutLattice(testRuns, "x")
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := s.db.Update(tt.damage); err != nil {
				t.Fatal(err)
			}
			_, _, _, err = s.Grid()
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Grid() error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, s.Path(), tt.want)
		})
	}
}

// TestStore_GridDamagedPage flips bytes of a lattice record in the file
// itself, as bit rot would.
func TestStore_GridDamagedPage(t *testing.T) {
	path := makeStoreFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The value of row 1201 is the one run 21990..22030.
	v := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 21990), 22030)
	// Small buckets live inline in their parent's page, and pages of
	// earlier transactions linger in the file, so there may be copies:
	// damage them all.
	n := 0
	for at := bytes.Index(data, v); at >= 0; at = bytes.Index(data, v) {
		data[at] = 0xFF // col0 now far past col1
		n++
	}
	if n == 0 {
		t.Fatal("lattice record not found in the file")
	}
	path = writeTemp(t, "damaged.db", data)
	s := mustOpenStoreOpts(t, path, Options{})
	_, _, _, err = s.Grid()
	if !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("Grid() error = %v, want ErrCorrupt", err)
	}
	assertErrText(t, err, path, "lattice row 1201")
}

// TestStore_PutPolygonsMany stores enough frames to fill many pages.
func TestStore_PutPolygonsMany(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	frames := squareFrames(20000)
	slices.Reverse(frames) // exercise the sort
	s := MustOpenStore(t)
	info, err := s.PutPolygons(frames, "squares")
	if err != nil {
		t.Fatal(err)
	}
	if info.Frames != 20000 {
		t.Errorf("Frames = %d, want 20000", info.Frames)
	}
	_, _, got, err := s.Grid()
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range got {
		want := frames[len(frames)-1-i]
		if f.ID != want.ID || !sameBits(f.Geom, want.Geom) {
			t.Fatalf("frame %d = %v, want %v", i, f, want)
		}
	}
}

// squareFrames returns n lattice squares as polygon frames, in id order,
// in rows of 1000 starting at row 1200, column 22000.
func squareFrames(n int) []grid.Frame {
	frames := make([]grid.Frame, n)
	for i := range frames {
		row, col := 1200+i/1000, 22000+i%1000
		b := grid.CellBox(row, col)
		frames[i] = grid.Frame{ID: grid.CellID(row, col), Geom: grid.MultiPolygon{{square(b.MinLon, b.MinLat, b.MaxLon, b.MaxLat)}}}
	}
	return frames
}
