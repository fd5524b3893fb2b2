package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"frameindex/grid"
	"frameindex/state"
	bbolt "go.etcd.io/bbolt"
)

// GridKind says how a grid is stored.
type GridKind string

const (
	GridLattice  GridKind = "lattice"
	GridPolygons GridKind = "polygons"
)

// GridInfo describes the stored grid.
type GridInfo struct {
	Kind    GridKind
	Frames  int      // number of frames (lattice cells or polygon frames)
	Bounds  grid.Box // box holding every frame
	Source  string   // what the grid was built from, as the caller named it
	BuiltAt time.Time
}

// gridRecord is GridInfo as stored (JSON) in the meta bucket.
type gridRecord struct {
	Kind    GridKind   `json:"kind"`
	Frames  int        `json:"frames"`
	Bounds  [4]float64 `json:"bounds"` // minLon, minLat, maxLon, maxLat
	Source  string     `json:"source"`
	BuiltAt time.Time  `json:"builtAt"`
}

// maxSourceLen bounds GridInfo.Source, which is shown in logs and listings.
const maxSourceLen = 4096

// sortedFillPercent is the bucket fill for keys put in ascending order:
// pages are split full rather than half-empty (bbolt Bucket.FillPercent).
const sortedFillPercent = 1.0

// PutLattice replaces the grid, whatever it was, with lattice runs, in one
// transaction: a reader sees the old grid or the new one, never a mix.
// runs must be sorted by row, then column, with every run inside the
// lattice, Col0 <= Col1, and runs of one row apart (adjacent runs are
// accepted and kept as given). source says what the grid was built from.
// Errors: ErrInvalid with the first offending run and why; errors from
// the file (read-only, closed, disk full).
func (s *Store) PutLattice(runs []grid.Run, source string) (GridInfo, error) {
	if err := checkSource(source); err != nil {
		return GridInfo{}, err
	}
	if len(runs) == 0 {
		return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid lattice: no runs")
	}
	frames := 0
	minRow, maxRow := runs[0].Row, runs[0].Row
	minCol, maxCol := runs[0].Col0, runs[0].Col1
	for i, r := range runs {
		why := ""
		switch {
		case r.Row < 0 || r.Row >= grid.Rows:
			why = fmt.Sprintf("row outside 0..%d", grid.Rows-1)
		case r.Col0 < 0 || r.Col1 >= grid.Cols:
			why = fmt.Sprintf("columns outside 0..%d", grid.Cols-1)
		case r.Col0 > r.Col1:
			why = "first column after last"
		case i > 0 && r.Row < runs[i-1].Row:
			why = "rows out of order (runs must be sorted by row, then column)"
		case i > 0 && r.Row == runs[i-1].Row && r.Col0 <= runs[i-1].Col1:
			why = fmt.Sprintf("overlaps or precedes the run before it (cols %d..%d)", runs[i-1].Col0, runs[i-1].Col1)
		}
		if why != "" {
			return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid lattice: run %d (row %d, cols %d..%d): %s", i, r.Row, r.Col0, r.Col1, why)
		}
		frames += r.Len()
		minRow, maxRow = min(minRow, r.Row), max(maxRow, r.Row)
		minCol, maxCol = min(minCol, r.Col0), max(maxCol, r.Col1)
	}
	info := GridInfo{
		Kind:   GridLattice,
		Frames: frames,
		Bounds: grid.Box{
			MinLon: grid.Lon(int(minCol)), MinLat: grid.Lat(int(maxRow) + 1),
			MaxLon: grid.Lon(int(maxCol) + 1), MaxLat: grid.Lat(int(minRow)),
		},
		Source:  source,
		BuiltAt: s.clock().UTC(),
	}

	// bbolt keeps the value slices until commit, so every row's value is a
	// separate part of one buffer that is never reallocated.
	buf := make([]byte, 0, 8*len(runs))
	var key [4]byte
	err := s.update(func(tx *bbolt.Tx) error {
		b, err := replaceGrid(tx, bucketLattice)
		if err != nil {
			return err
		}
		for i := 0; i < len(runs); {
			start := len(buf)
			j := i
			for ; j < len(runs) && runs[j].Row == runs[i].Row; j++ {
				buf = appendRunPair(buf, runs[j])
			}
			if err := b.Put(rowKey(key[:0], runs[i].Row), buf[start:len(buf):len(buf)]); err != nil {
				return err
			}
			i = j
		}
		return putGridInfo(tx, info)
	})
	if err != nil {
		return GridInfo{}, err
	}
	return info, nil
}

// PutPolygons replaces the grid, whatever it was, with polygon frames, in
// one transaction: a reader sees the old grid or the new one, never a mix.
// Frame ids must be unique; frames may come in any order (they are stored
// in id order; frames is not modified). Every ring must have at least four
// points, be closed, and hold finite coordinates in world range; rings are
// not checked for self-crossings or winding (that is the importer's job).
// Errors: ErrInvalid naming the first offending frame by index and id;
// errors from the file (read-only, closed, disk full).
//
// The whole new grid is held in memory until the transaction commits: a
// million square frames allocate about 600 MB and take a second or two.
// The pages of the grid replaced are reused by later writes; the file
// never shrinks.
func (s *Store) PutPolygons(frames []grid.Frame, source string) (GridInfo, error) {
	if err := checkSource(source); err != nil {
		return GridInfo{}, err
	}
	switch {
	case len(frames) == 0:
		return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid polygon grid: no frames")
	case len(frames) > math.MaxInt32:
		return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid polygon grid: %d frames, at most %d", len(frames), math.MaxInt32)
	}
	bounds := grid.Box{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	size := 0
	for i, f := range frames {
		if err := checkMultiPolygon(f.Geom); err != nil {
			return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid polygon grid: frame %d (id %d): %v", i, f.ID, err)
		}
		for _, poly := range f.Geom {
			for _, ring := range poly {
				for _, p := range ring {
					bounds = bounds.Union(grid.Box{MinLon: p[0], MinLat: p[1], MaxLon: p[0], MaxLat: p[1]})
				}
			}
		}
		size += multiPolygonSize(f.Geom)
	}

	// Put in ascending key order, which with a full fill percent packs the
	// pages and is several times faster than random order.
	order := make([]int32, len(frames))
	for i := range order {
		order[i] = int32(i)
	}
	if !slices.IsSortedFunc(frames, func(a, b grid.Frame) int { return cmpID(a.ID, b.ID) }) {
		slices.SortStableFunc(order, func(a, b int32) int { return cmpID(frames[a].ID, frames[b].ID) })
	}
	for k := 1; k < len(order); k++ {
		if a, b := order[k-1], order[k]; frames[a].ID == frames[b].ID {
			return GridInfo{}, state.Errorf(state.ErrInvalid, "invalid polygon grid: frame %d has id %d, as frame %d does: ids must be unique", b, frames[b].ID, a)
		}
	}
	info := GridInfo{Kind: GridPolygons, Frames: len(frames), Bounds: bounds, Source: source, BuiltAt: s.clock().UTC()}

	buf := make([]byte, 0, size) // never reallocated: bbolt keeps the values until commit
	var key [8]byte
	err := s.update(func(tx *bbolt.Tx) error {
		b, err := replaceGrid(tx, bucketFrames)
		if err != nil {
			return err
		}
		for _, i := range order {
			start := len(buf)
			buf = appendMultiPolygon(buf, frames[i].Geom)
			// bbolt copies keys (not values), so one key buffer serves.
			if err := b.Put(frameKey(key[:0], frames[i].ID), buf[start:len(buf):len(buf)]); err != nil {
				return err
			}
		}
		return putGridInfo(tx, info)
	})
	if err != nil {
		return GridInfo{}, err
	}
	return info, nil
}

func cmpID(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func checkSource(source string) error {
	if len(source) > maxSourceLen || !utf8.ValidString(source) {
		return state.Errorf(state.ErrInvalid, "invalid grid source: must be UTF-8 text of at most %d bytes", maxSourceLen)
	}
	return nil
}

// replaceGrid deletes both grid buckets and creates the named one empty,
// filled for ascending puts.
func replaceGrid(tx *bbolt.Tx, name []byte) (*bbolt.Bucket, error) {
	for _, old := range [][]byte{bucketLattice, bucketFrames} {
		if tx.Bucket(old) != nil {
			if err := tx.DeleteBucket(old); err != nil {
				return nil, err
			}
		}
	}
	b, err := tx.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	b.FillPercent = sortedFillPercent
	return b, nil
}

func putGridInfo(tx *bbolt.Tx, info GridInfo) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	return putJSON(meta, metaGrid, gridRecord{
		Kind: info.Kind, Frames: info.Frames, Source: info.Source, BuiltAt: info.BuiltAt,
		Bounds: [4]float64{info.Bounds.MinLon, info.Bounds.MinLat, info.Bounds.MaxLon, info.Bounds.MaxLat},
	})
}

// GridInfo describes the stored grid without reading it. Errors: ErrNoGrid
// when no grid was ever stored; ErrCorrupt.
func (s *Store) GridInfo() (GridInfo, error) {
	return viewValue(s, s.readGridInfo)
}

func (s *Store) readGridInfo(tx *bbolt.Tx) (GridInfo, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return GridInfo{}, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: meta bucket missing", s.path)
	}
	v := meta.Get(metaGrid)
	if v == nil {
		return GridInfo{}, state.Errorf(ErrNoGrid, "data file %q holds no grid: build one with `frameindex grid build` or `frameindex grid import`", s.path)
	}
	var r gridRecord
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return GridInfo{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: grid record: %v", s.path, err)
	}
	if r.Kind != GridLattice && r.Kind != GridPolygons {
		return GridInfo{}, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: unknown grid kind %q", s.path, r.Kind)
	}
	if r.Frames <= 0 {
		return GridInfo{}, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: grid record counts %d frames", s.path, r.Frames)
	}
	return GridInfo{
		Kind: r.Kind, Frames: r.Frames, Source: r.Source, BuiltAt: r.BuiltAt,
		Bounds: grid.Box{MinLon: r.Bounds[0], MinLat: r.Bounds[1], MaxLon: r.Bounds[2], MaxLat: r.Bounds[3]},
	}, nil
}

// polygonArenaChunk is how many points, rings or polygons Grid allocates at
// a time when decoding polygon frames.
const polygonArenaChunk = 1 << 16

// Grid reads the whole grid in one short read transaction: the runs of a
// lattice grid (frames nil) or the frames of a polygon grid, in ascending
// id order (runs nil). Everything returned is a copy owned by the caller;
// nothing refers to the file. Errors: ErrNoGrid when none was ever built;
// ErrCorrupt when a record is damaged or the count does not match.
func (s *Store) Grid() (GridInfo, []grid.Run, []grid.Frame, error) {
	var (
		info   GridInfo
		runs   []grid.Run
		frames []grid.Frame
	)
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		if info, err = s.readGridInfo(tx); err != nil {
			return err
		}
		switch info.Kind {
		case GridLattice:
			runs, err = s.readLattice(tx, info.Frames)
		case GridPolygons:
			frames, err = s.readPolygons(tx, info.Frames)
		}
		return err
	})
	if err != nil {
		return GridInfo{}, nil, nil, err
	}
	return info, runs, frames, nil
}

func (s *Store) readLattice(tx *bbolt.Tx, want int) ([]grid.Run, error) {
	b := tx.Bucket(bucketLattice)
	if b == nil {
		return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: lattice bucket missing", s.path)
	}
	var runs []grid.Run
	cells := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n := len(runs)
		var err error
		if runs, err = decodeRow(runs, k, v); err != nil {
			return nil, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: %v", s.path, err)
		}
		for _, r := range runs[n:] {
			cells += r.Len()
		}
	}
	if cells != want {
		return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: lattice holds %d cells, its record says %d", s.path, cells, want)
	}
	return runs, nil
}

func (s *Store) readPolygons(tx *bbolt.Tx, want int) ([]grid.Frame, error) {
	b := tx.Bucket(bucketFrames)
	if b == nil {
		return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: frames bucket missing", s.path)
	}
	frames := make([]grid.Frame, 0, want)
	a := &arena{chunk: polygonArenaChunk}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: frame key of %d bytes, want 8", s.path, len(k))
		}
		id := binary.BigEndian.Uint64(k)
		mp, err := decodeMultiPolygon(v, a)
		if err != nil {
			return nil, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: frame %d: %v", s.path, id, err)
		}
		frames = append(frames, grid.Frame{ID: id, Geom: mp})
	}
	if len(frames) != want {
		return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: %d frames stored, its record says %d", s.path, len(frames), want)
	}
	return frames, nil
}
