package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/state"
)

// Opener opens an input file for reading; step names the step for progress
// reports. The returned function closes the file.
type Opener func(path, step string) (io.Reader, func() error, error)

// OpenFile is the Opener without progress reports.
func OpenFile(path, _ string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	return f, f.Close, nil
}

// Sink receives an import's records in ascending frame order, each frame
// once: its attributes object (nil for none) and its features (compact
// GeoJSON Feature objects). What Put is given is valid only during the
// call. *bolt.ImportWriter is the sink of a real import.
type Sink interface {
	Put(frame uint64, attrs []byte, features [][]byte) error
}

// Import checks m, reads its inputs (opened with open) against the grid of
// store and writes the result as the dataset's new version through
// Store.BeginImport, switching to it in one transaction at the end. It
// returns the stored dataset and how many rows or features were skipped
// ("outside": "skip").
//
// Everything that needs no data is checked first: the manifest, the owner,
// and every input's header (CSV columns, shapefile and GeoPackage layers
// and coordinate systems, a raster's georeferencing and bands), so that a
// declared attribute no input gives is refused before any data is read.
// Inputs are then streamed: memory holds the attribute values (bounded by
// frames × attributes, not by the input) and at most spillBytes of
// features, which spill to sorted temporary files beyond that. Nothing is
// visible until the final switch; on any error the staged version is
// removed and the old one keeps being served.
//
// Errors wrap state.ErrInvalid for bad input and name the file and the line
// (CSV, counted from 1, the header being line 1), the feature (counted from
// 0), or the raster's strip or tile, with the reason; state.ErrNotFound when
// the owner does not exist; bolt.ErrNoGrid when the file holds no grid;
// ctx's error when ctx ends.
func Import(ctx context.Context, m Manifest, store *bolt.Store, open Opener, now time.Time) (state.Dataset, int, error) {
	im, ins, err := prepare(ctx, m, store, open)
	if err != nil {
		return state.Dataset{}, 0, err
	}
	defer im.close()
	if err := im.readAll(ctx, ins); err != nil {
		return state.Dataset{}, 0, err
	}
	w, err := store.BeginImport(im.dataset, now)
	if err != nil {
		return state.Dataset{}, 0, err
	}
	if err := im.emit(ctx, w); err != nil {
		w.Abort()
		return state.Dataset{}, 0, err
	}
	d, err := w.Commit()
	if err != nil {
		return state.Dataset{}, 0, err
	}
	return d, im.skipped, nil
}

// Gather is Import without the store write: it returns the dataset and its
// records in ascending frame order, all in memory (tests and small
// imports), and how many rows or features were skipped. It writes nothing.
func Gather(ctx context.Context, m Manifest, store *bolt.Store, open Opener) (state.Dataset, []bolt.FrameRecord, int, error) {
	im, ins, err := prepare(ctx, m, store, open)
	if err != nil {
		return state.Dataset{}, nil, 0, err
	}
	defer im.close()
	if err := im.readAll(ctx, ins); err != nil {
		return state.Dataset{}, nil, 0, err
	}
	var sink memSink
	if err := im.emit(ctx, &sink); err != nil {
		return state.Dataset{}, nil, 0, err
	}
	return im.dataset, sink.records, im.skipped, nil
}

// memSink keeps records in memory, copying what it is given.
type memSink struct{ records []bolt.FrameRecord }

func (s *memSink) Put(frame uint64, attrs []byte, features [][]byte) error {
	r := bolt.FrameRecord{Frame: frame}
	if attrs != nil {
		r.Attrs = slices.Clone(attrs)
	}
	for _, f := range features {
		r.Features = append(r.Features, slices.Clone(f))
	}
	s.records = append(s.records, r)
	return nil
}

// prepare checks the manifest and the owner, loads the grid and opens every
// input far enough to check its header. The returned importer owns the open
// inputs (im.close closes them).
func prepare(ctx context.Context, m Manifest, store *bolt.Store, open Opener) (*importer, []*openInput, error) {
	d, ins, err := checkManifest(m)
	if err != nil {
		return nil, nil, err
	}
	if _, err := store.Org(d.Owner); err != nil {
		return nil, nil, fmt.Errorf("dataset %q: owner: %w", d.ID, err)
	}
	info, runs, frames, err := store.Grid()
	if err != nil {
		return nil, nil, err
	}
	var ix *index.Index
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	} else {
		ix = index.NewPolygons(frames)
	}
	im := newImporter(ix, d, info.Kind == bolt.GridLattice)
	opened := make([]*openInput, 0, len(ins))
	for i, in := range ins {
		oi, err := im.openInput(ctx, open, i, in)
		if err != nil {
			im.close()
			return nil, nil, err
		}
		opened = append(opened, oi)
	}
	for k, ok := range im.given {
		if !ok {
			im.close()
			return nil, nil, fmt.Errorf("%w: dataset %q: attribute %q is declared but no input gives it (no CSV column, property, count or raster maps to it)",
				state.ErrInvalid, d.ID, im.attrs[k].Name)
		}
	}
	return im, opened, nil
}

// readAll reads every opened input in order.
func (im *importer) readAll(ctx context.Context, ins []*openInput) error {
	for _, oi := range ins {
		err := oi.read(ctx)
		if err != nil && !errors.Is(err, state.ErrInvalid) && ctx.Err() == nil {
			err = fmt.Errorf("%w: %v", state.ErrInvalid, err)
		}
		if err != nil {
			return err
		}
	}
	return im.finishDerived()
}

// importer gathers what the inputs of one import give, compactly: an
// attribute value is an entry of 24 bytes pointing into a shared byte
// arena (a zone's value is stored once for all its frames); features go to
// a spillSorter; attributes derived from features (count, take) to per-frame
// aggregates.
type importer struct {
	ix      *index.Index
	lattice bool
	dataset state.Dataset
	attrs   []state.Attribute
	byName  map[string]int
	given   []bool // attribute i is given by some input
	entries []attrEntry
	vals    []byte
	feats   *spillSorter
	derived derivedAggs
	paths   []string // by input number
	kinds   []int
	closers []func() error
	skipped int
	scratch []byte
}

type attrEntry struct {
	frame uint64
	attr  uint16
	input uint16
	pos   int32 // CSV line or feature number
	off   uint32
	n     uint32
}

// maxArena bounds the value arena so that offsets fit their fields.
const maxArena = math.MaxUint32

func newImporter(ix *index.Index, d state.Dataset, lattice bool) *importer {
	im := &importer{ix: ix, lattice: lattice, dataset: d, attrs: d.Attributes, byName: map[string]int{},
		given: make([]bool, len(d.Attributes)), feats: newSpillSorter(spillBytes)}
	for i, a := range d.Attributes {
		im.byName[a.Name] = i
	}
	im.derived.slot = map[uint64]uint32{}
	return im
}

func (im *importer) close() {
	for _, c := range im.closers {
		c()
	}
	im.closers = nil
	im.feats.close()
}

func (im *importer) register(path string, input, kind int) {
	for len(im.paths) <= input {
		im.paths = append(im.paths, "")
		im.kinds = append(im.kinds, 0)
	}
	im.paths[input], im.kinds[input] = path, kind
}

// place names where an entry came from: "FILE line N", "FILE feature N"
// or, for a raster, the file.
func (im *importer) place(input uint16, pos int32) string {
	switch im.kinds[input] {
	case inputCSV:
		return fmt.Sprintf("%s line %d", im.paths[input], pos)
	case inputRaster:
		return im.paths[input]
	}
	return fmt.Sprintf("%s feature %d", im.paths[input], pos)
}

// addValue stores a value's JSON text and returns its place in the arena.
func (im *importer) addValue(v []byte) (off, n uint32, err error) {
	if len(im.vals)+len(v) > maxArena {
		return 0, 0, errors.New("the attribute values exceed 4 GiB")
	}
	off = uint32(len(im.vals))
	im.vals = append(im.vals, v...)
	return off, uint32(len(v)), nil
}

// addEntry records that input gives attribute k the value v on frame.
func (im *importer) addEntry(frame uint64, k, input int, pos int, v []byte) error {
	off, n, err := im.addValue(v)
	if err != nil {
		return err
	}
	im.entries = append(im.entries, attrEntry{frame: frame, attr: uint16(k), input: uint16(input),
		pos: int32(min(pos, math.MaxInt32)), off: off, n: n})
	return nil
}

// emit sorts what the inputs gave and hands the sink one record per frame,
// in frame order: the attributes object (attributes in declared order) and
// the features in input order. Errors: a frame given one attribute twice,
// nothing at all to import, the sink's errors, ctx's.
func (im *importer) emit(ctx context.Context, sink Sink) error {
	es := im.entries
	slices.SortFunc(es, func(a, b attrEntry) int {
		if c := cmp.Compare(a.frame, b.frame); c != 0 {
			return c
		}
		if c := cmp.Compare(a.attr, b.attr); c != 0 {
			return c
		}
		if c := cmp.Compare(a.input, b.input); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i := 1; i < len(es); i++ {
		if es[i].frame == es[i-1].frame && es[i].attr == es[i-1].attr {
			return fmt.Errorf("%w: dataset %q: frame %d is given attribute %q twice: by %s and by %s", state.ErrInvalid, im.dataset.ID, es[i].frame,
				im.attrs[es[i].attr].Name, im.place(es[i-1].input, es[i-1].pos), im.place(es[i].input, es[i].pos))
		}
	}
	if len(es) == 0 && im.feats.n == 0 {
		return fmt.Errorf("%w: dataset %q: nothing to import: no frame got an attribute value or a feature", state.ErrInvalid, im.dataset.ID)
	}
	it, err := im.feats.iter()
	if err != nil {
		return err
	}
	names := make([][]byte, len(im.attrs))
	for k, a := range im.attrs {
		names[k] = append(grid.AppendJSONString(nil, a.Name), ':')
	}
	var (
		attrs    []byte
		features [][]byte
		fbuf     []byte // the current frame's features, back to back
		ends     []int
	)
	ff, ftext, fok, err := it.next()
	if err != nil {
		return err
	}
	i, done := 0, 0
	for i < len(es) || fok {
		var frame uint64
		switch {
		case !fok:
			frame = es[i].frame
		case i >= len(es):
			frame = ff
		default:
			frame = min(es[i].frame, ff)
		}
		attrs = attrs[:0]
		if i < len(es) && es[i].frame == frame {
			attrs = append(attrs, '{')
			for first := true; i < len(es) && es[i].frame == frame; i, first = i+1, false {
				if !first {
					attrs = append(attrs, ',')
				}
				e := es[i]
				attrs = append(attrs, names[e.attr]...)
				attrs = append(attrs, im.vals[e.off:e.off+e.n]...)
			}
			attrs = append(attrs, '}')
		}
		fbuf, ends = fbuf[:0], ends[:0]
		for fok && ff == frame {
			fbuf = append(fbuf, ftext...)
			ends = append(ends, len(fbuf))
			if ff, ftext, fok, err = it.next(); err != nil {
				return err
			}
		}
		features = features[:0]
		for k, end := range ends {
			start := 0
			if k > 0 {
				start = ends[k-1]
			}
			features = append(features, fbuf[start:end:end])
		}
		var a []byte
		if len(attrs) > 0 {
			a = attrs
		}
		if err := sink.Put(frame, a, features); err != nil {
			return err
		}
		if done++; done%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendNumberValue appends v as a JSON number: integers without a
// fraction or exponent (up to 2^53), others in their shortest form.
func appendNumberValue(dst []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	if math.Abs(v) < 1e21 && math.Abs(v) >= 1e-6 {
		return strconv.AppendFloat(dst, v, 'f', -1, 64)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// inputName is how progress reports name an input file.
func inputName(path string) string { return filepath.Base(path) }
