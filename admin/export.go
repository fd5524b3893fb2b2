package admin

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"slices"

	"github.com/tidwall/gjson"

	"frameindex/bolt"
	"frameindex/export"
	"frameindex/grid"
	"frameindex/state"
)

// OpGridExport writes the grid, and optionally a dataset's attributes, to a
// file for GIS.
const OpGridExport = "grid.export"

// GridExport writes the grid to Out (.gpkg, .fgb or .geojsonl, by
// extension; an absolute path when sent to a server), with Dataset's
// attributes as columns when set.
type GridExport struct {
	Out     string `json:"out"`
	Dataset string `json:"dataset,omitempty"`
}

// ExportView is the result of a grid export.
type ExportView struct {
	Out     string `json:"out"`
	Frames  int    `json:"frames"`
	Dataset string `json:"dataset,omitempty"`
	Columns int    `json:"columns"`
}

// ExportGrid writes every frame of the grid, in ascending id, with its id
// (frame_id, a string of digits) and geometry, to a.Out in the format its
// extension names (see export.Create), streaming. With a.Dataset, each of
// the dataset's attributes is a column (numbers as numbers, categories and
// texts as text) holding what it records on the frame, empty where it
// records nothing. Nothing is left at a.Out unless the export completed:
// the file is written beside it and renamed into place. It reads in one
// read transaction, so writes go on while it runs. Errors: state.ErrInvalid
// for a bad path or extension; state.ErrNotFound for an unknown dataset;
// bolt.ErrNoGrid; ctx's error when ctx ends (nothing written).
func (o *Ops) ExportGrid(ctx context.Context, a GridExport) (ExportView, error) {
	c, err := o.catalogue()
	if err != nil {
		return ExportView{}, err
	}
	if !filepath.IsAbs(a.Out) {
		return ExportView{}, fmt.Errorf("%w: --out %q must be an absolute path", state.ErrInvalid, a.Out)
	}
	info, runs, frames, err := c.Grid()
	if err != nil {
		return ExportView{}, err
	}
	var attrs []state.Attribute
	if a.Dataset != "" {
		d, err := o.Store.Dataset(a.Dataset)
		if err != nil {
			return ExportView{}, fmt.Errorf("dataset %q: %w", a.Dataset, err)
		}
		attrs = d.Attributes
	}
	cols := make([]export.Column, len(attrs))
	for i, at := range attrs {
		cols[i] = export.Column{Name: at.Name, Type: export.Text}
		if at.Type == state.TypeNumber {
			cols[i].Type = export.Number
		}
	}
	multi := info.Kind != bolt.GridLattice
	w, err := export.Create(a.Out, export.Options{Columns: cols, Multi: multi})
	if err != nil {
		return ExportView{}, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	// The grid's frames in ascending id: lattice runs are sorted by row
	// (ids grow along a row), imported frames by id.
	ids := func(yield func(uint64, grid.MultiPolygon) bool) {
		if info.Kind == bolt.GridLattice {
			rs := slices.Clone(runs)
			slices.SortFunc(rs, func(x, y grid.Run) int {
				if x.Row != y.Row {
					return int(x.Row - y.Row)
				}
				return int(x.Col0 - y.Col0)
			})
			for _, r := range rs {
				for c := r.Col0; c <= r.Col1; c++ {
					if !yield(grid.CellID(int(r.Row), int(c)), nil) {
						return
					}
				}
			}
			return
		}
		fs := slices.Clone(frames)
		slices.SortFunc(fs, func(x, y grid.Frame) int { return cmp.Compare(x.ID, y.ID) })
		for _, f := range fs {
			if !yield(f.ID, f.Geom) {
				return
			}
		}
	}
	total := info.Frames
	n := 0
	values := make([]any, len(attrs))
	write := func(id uint64, geom grid.MultiPolygon, rec []byte) error {
		clear(values)
		if rec != nil {
			gjson.ParseBytes(rec).ForEach(func(k, v gjson.Result) bool {
				for i, at := range attrs {
					if at.Name != k.Str {
						continue
					}
					switch {
					case v.Type == gjson.Number && at.Type == state.TypeNumber:
						values[i] = v.Num
					case v.Type == gjson.String && at.Type != state.TypeNumber:
						values[i] = v.Str
					}
				}
				return true
			})
		}
		if err := w.Write(export.Frame{ID: id, Geom: geom, Values: values}); err != nil {
			return err
		}
		if n++; n%16384 == 0 {
			if o.Progress != nil {
				o.Progress("exporting frames", int64(n), int64(total))
			}
			return ctx.Err()
		}
		return nil
	}
	next, stop := iter.Pull2(ids)
	defer stop()
	// peek returns the grid's next frame without taking it; take takes it.
	var (
		headID   uint64
		headGeom grid.MultiPolygon
		headOK   bool
		have     bool
	)
	peek := func() (uint64, grid.MultiPolygon, bool) {
		if !have {
			headID, headGeom, headOK = next()
			have = true
		}
		return headID, headGeom, headOK
	}
	take := func() { have = false }
	var werr error
	if a.Dataset != "" {
		// Merge the dataset's records (ascending frame) into the grid walk;
		// records on frames the grid no longer holds are left out.
		err = o.Store.ScanRecords(a.Dataset, []bolt.IDRange{bolt.AllFrames}, func(frame uint64, _ int, rec []byte) bool {
			for {
				id, geom, ok := peek()
				switch {
				case !ok:
					return false
				case id > frame:
					return true // the record's frame is not in the grid
				}
				take()
				if id == frame {
					werr = write(id, geom, rec)
					return werr == nil
				}
				if werr = write(id, geom, nil); werr != nil {
					return false
				}
			}
		})
	}
	for werr == nil && err == nil {
		id, geom, ok := peek()
		if !ok {
			break
		}
		take()
		werr = write(id, geom, nil)
	}
	if werr == nil {
		werr = err
	}
	if werr != nil {
		w.Abort()
		return ExportView{}, werr
	}
	if err := w.Close(); err != nil {
		return ExportView{}, err
	}
	return ExportView{Out: a.Out, Frames: n, Dataset: a.Dataset, Columns: len(cols)}, nil
}
