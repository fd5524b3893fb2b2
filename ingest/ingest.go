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

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
)

// Opener opens an input file for reading; step names the step for progress
// reports. The returned function closes the file.
type Opener func(path, step string) (io.Reader, func() error, error)

// OpenFile is the Opener without progress reports.
func OpenFile(path, _ string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", bolt.ErrInvalid, err)
	}
	return f, f.Close, nil
}

// Gather checks m, reads its inputs (opened with open) against the grid of
// store and returns the dataset and its records, ready for
// Store.ImportDataset, and how many rows or features were skipped. It
// writes nothing.
//
// Errors wrap bolt.ErrInvalid for bad input and name the file and the line
// (CSV, counted from 1, the header being line 1) or the feature (GeoJSON,
// counted from 0 as in grid.ReadFeatures) with the reason; bolt.ErrNotFound
// when the owner does not exist; bolt.ErrNoGrid when the file holds no
// grid; ctx's error when ctx ends.
func Gather(ctx context.Context, m Manifest, store *bolt.Store, open Opener) (bolt.Dataset, []bolt.FrameRecord, int, error) {
	d, ins, err := checkManifest(m)
	if err != nil {
		return bolt.Dataset{}, nil, 0, err
	}
	if _, err := store.Org(d.Owner); err != nil {
		return bolt.Dataset{}, nil, 0, fmt.Errorf("dataset %q: owner: %w", d.ID, err)
	}
	info, runs, frames, err := store.Grid()
	if err != nil {
		return bolt.Dataset{}, nil, 0, err
	}
	var ix *index.Index
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	} else {
		ix = index.NewPolygons(frames)
	}
	im := newImporter(ix, d.Attributes)
	for i, in := range ins {
		if err := readInput(ctx, open, im, i, in); err != nil {
			return bolt.Dataset{}, nil, 0, err
		}
	}
	records, err := im.records()
	if err != nil {
		return bolt.Dataset{}, nil, 0, fmt.Errorf("%w: dataset %q: %v", bolt.ErrInvalid, d.ID, err)
	}
	return d, records, im.skipped, nil
}

// readInput opens one input and feeds it to im.
func readInput(ctx context.Context, open Opener, im *importer, i int, in checkedInput) error {
	r, closeFn, err := open(in.path, "reading "+filepath.Base(in.path))
	if err != nil {
		return err
	}
	defer closeFn()
	switch in.kind {
	case inputCSV:
		err = im.readCSV(ctx, r, in.path, i, in.skip)
	case inputFeatures:
		err = im.readFeatures(ctx, r, in.path, i, in.skip)
	default:
		err = im.readZones(ctx, r, in.path, i, in.props)
	}
	if err != nil && !errors.Is(err, bolt.ErrInvalid) && ctx.Err() == nil {
		err = fmt.Errorf("%w: %v", bolt.ErrInvalid, err)
	}
	return err
}

// importer gathers what the inputs of one import give, compactly: an
// attribute value is an entry of 24 bytes pointing into a shared byte
// arena (a zone's value is stored once for all its frames), a feature an
// entry pointing into another.
type importer struct {
	ix      *index.Index
	attrs   []bolt.Attribute
	byName  map[string]int
	given   []bool // attribute i was a CSV column or a zone mapping target
	entries []attrEntry
	vals    []byte
	feats   []featEntry
	fbytes  []byte
	paths   []string // by input number
	kinds   []int
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

type featEntry struct {
	frame uint64
	off   uint64
	n     uint32
}

// maxArena bounds each byte arena so that offsets fit their fields.
const maxArena = math.MaxUint32

func newImporter(ix *index.Index, attrs []bolt.Attribute) *importer {
	im := &importer{ix: ix, attrs: attrs, byName: map[string]int{}, given: make([]bool, len(attrs))}
	for i, a := range attrs {
		im.byName[a.Name] = i
	}
	return im
}

func (im *importer) register(path string, input, kind int) {
	for len(im.paths) <= input {
		im.paths = append(im.paths, "")
		im.kinds = append(im.kinds, 0)
	}
	im.paths[input], im.kinds[input] = path, kind
}

// place names where an entry came from: "FILE line N" or "FILE feature N".
func (im *importer) place(input uint16, pos int32) string {
	if im.kinds[input] == inputCSV {
		return fmt.Sprintf("%s line %d", im.paths[input], pos)
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

// records turns what the inputs gave into one record per frame, in frame
// order: the attributes object (attributes in declared order) and the
// features in input order. Errors: a frame given one attribute twice, a
// declared attribute no input gives, nothing at all to import.
func (im *importer) records() ([]bolt.FrameRecord, error) {
	for k, ok := range im.given {
		if !ok {
			return nil, fmt.Errorf("attribute %q is declared but no input gives it (no CSV column or zone property maps to it)", im.attrs[k].Name)
		}
	}
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
			return nil, fmt.Errorf("frame %d is given attribute %q twice: by %s and by %s", es[i].frame,
				im.attrs[es[i].attr].Name, im.place(es[i-1].input, es[i-1].pos), im.place(es[i].input, es[i].pos))
		}
	}
	fs := im.feats
	slices.SortStableFunc(fs, func(a, b featEntry) int { return cmp.Compare(a.frame, b.frame) })
	if len(es) == 0 && len(fs) == 0 {
		return nil, errors.New("nothing to import: no frame got an attribute value or a feature")
	}

	// Attribute objects go into one buffer; records take slices of it once
	// it is complete, so that a growing buffer cannot leave them behind.
	names := make([][]byte, len(im.attrs))
	for k, a := range im.attrs {
		names[k] = append(grid.AppendJSONString(nil, a.Name), ':')
	}
	// Size everything first: the frames (a merge of the two sorted lists)
	// and the attribute objects' text.
	frames, size := 0, 0
	for i, j := 0, 0; i < len(es) || j < len(fs); frames++ {
		var frame uint64
		switch {
		case j >= len(fs):
			frame = es[i].frame
		case i >= len(es):
			frame = fs[j].frame
		default:
			frame = min(es[i].frame, fs[j].frame)
		}
		if i < len(es) && es[i].frame == frame {
			size += 2
		}
		for ; i < len(es) && es[i].frame == frame; i++ {
			size += len(names[es[i].attr]) + int(es[i].n) + 1
		}
		for ; j < len(fs) && fs[j].frame == frame; j++ {
		}
	}
	type span struct{ off, end int }
	recs := make([]bolt.FrameRecord, 0, frames)
	spans := make([]span, 0, frames)
	buf := make([]byte, 0, size)
	i, j := 0, 0
	for i < len(es) || j < len(fs) {
		var frame uint64
		switch {
		case j >= len(fs):
			frame = es[i].frame
		case i >= len(es):
			frame = fs[j].frame
		default:
			frame = min(es[i].frame, fs[j].frame)
		}
		rec := bolt.FrameRecord{Frame: frame}
		sp := span{-1, -1}
		if i < len(es) && es[i].frame == frame {
			sp.off = len(buf)
			buf = append(buf, '{')
			for first := true; i < len(es) && es[i].frame == frame; i, first = i+1, false {
				if !first {
					buf = append(buf, ',')
				}
				e := es[i]
				buf = append(buf, names[e.attr]...)
				buf = append(buf, im.vals[e.off:e.off+e.n]...)
			}
			buf = append(buf, '}')
			sp.end = len(buf)
		}
		for ; j < len(fs) && fs[j].frame == frame; j++ {
			f := fs[j]
			rec.Features = append(rec.Features, im.fbytes[f.off:f.off+uint64(f.n):f.off+uint64(f.n)])
		}
		recs = append(recs, rec)
		spans = append(spans, sp)
	}
	for k, sp := range spans {
		if sp.off >= 0 {
			recs[k].Attrs = buf[sp.off:sp.end:sp.end]
		}
	}
	return recs, nil
}
