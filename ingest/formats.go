package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"frameindex/grid"
	"frameindex/ingest/crs"
	"frameindex/ingest/gpkg"
	"frameindex/ingest/raster"
	"frameindex/ingest/shapefile"
	"frameindex/state"
)

// fileSource streams a shapefile or a GeoPackage layer: the readers give
// each feature as GeoJSON text in WGS 84, reprojected by package crs.
type fileSource struct {
	path   string
	kind   int
	next   func() (int, []byte, error) // feature number, text; io.EOF at the end
	close  func() error
	names  []string
	format string
}

func (s *fileSource) fields() []string { return s.names }
func (s *fileSource) describe() string { return s.format }

func (s *fileSource) each(ctx context.Context, fn func(int, grid.InFeature) error) error {
	for k := 0; ; k++ {
		if k%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		i, text, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", state.ErrInvalid, err)
		}
		f, err := parseFeature(text)
		if err != nil {
			return fmt.Errorf("%w: %s feature %d: %v", state.ErrInvalid, s.path, i, err)
		}
		if err := fn(i, f); err != nil {
			return err
		}
	}
}

// openVectorFile opens a shapefile (.shp, or a .zip holding one) or a
// GeoPackage layer and checks its coordinate system.
func openVectorFile(kind int, in checkedInput) (*fileSource, error) {
	if kind == vectorShapefile {
		return openShapefile(in)
	}
	var sys string
	r, err := gpkg.Open(in.path, gpkg.Options{Layer: in.layer, Transform: func(srsID int, org string, code int, def string) (func(x, y float64) (float64, float64), error) {
		var system *crs.System
		var err error
		if code > 0 && (org == "EPSG" || org == "epsg") {
			system, err = crs.FromEPSG(code)
		} else {
			system, err = crs.FromWKT(def)
		}
		if err != nil {
			return nil, err
		}
		sys = system.String()
		if system.IsWGS84() {
			return nil, nil
		}
		return system.ToWGS84, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	if sys == "" {
		sys = "EPSG:4326"
	}
	return newFileSource(in.path, kind, "GeoPackage layer "+r.Layer()+" ("+sys+")", r,
		func(f gpkg.Field) string { return f.Name },
		func(f gpkg.Feature) (int, []byte) { return f.Index, f.JSON }), nil
}

// layerReader is what a fileSource reads through: a gpkg.Reader or a
// shapefile.Reader, which differ only in the types of their fields and
// features.
type layerReader[Field, Feature any] interface {
	Fields() []Field
	Next() (Feature, error) // io.EOF after the last
	Close() error
}

// newFileSource wraps an open reader of the file at path; name gives a
// field's name, and text a feature's number and GeoJSON text.
func newFileSource[Field, Feature any](path string, kind int, format string, r layerReader[Field, Feature],
	name func(Field) string, text func(Feature) (int, []byte)) *fileSource {
	s := &fileSource{path: path, kind: kind, close: r.Close, format: format}
	for _, f := range r.Fields() {
		s.names = append(s.names, name(f))
	}
	s.next = func() (int, []byte, error) {
		f, err := r.Next()
		i, b := text(f)
		return i, b, err
	}
	return s
}

// rasterInput is a raster input: the band's figure per frame goes to one
// attribute, aggregated as the attribute declares.
type rasterInput struct {
	im    *importer
	r     *raster.Raster
	path  string
	input int
	attr  int
	band  int
	agg   raster.Aggregation
}

// openRaster reads a GeoTIFF's header and checks the band, the attribute
// and the grid: rasters are aggregated onto the 30-arc-second lattice.
func (im *importer) openRaster(_ context.Context, in checkedInput, input int) (*openInput, error) {
	im.register(in.path, input, inputRaster)
	if !im.lattice {
		return nil, fmt.Errorf("%w: %s: rasters are aggregated onto the 30-arc-second lattice, and this file's grid is an imported polygon grid", state.ErrInvalid, in.path)
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		f.Close()
		if err == nil {
			err = errors.New("is a directory, not a GeoTIFF")
		}
		return nil, fmt.Errorf("%w: %s: %v", state.ErrInvalid, in.path, err)
	}
	r, err := raster.Open(f, st.Size(), in.path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	im.closers = append(im.closers, f.Close)
	if in.band > r.Bands() {
		return nil, fmt.Errorf("%w: %s: band %d: the raster has %d band(s)", state.ErrInvalid, in.path, in.band, r.Bands())
	}
	a := im.attrs[in.attr]
	agg, err := raster.ParseAggregation(a.Aggregation)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: attribute %q: %v", state.ErrInvalid, in.path, a.Name, err)
	}
	im.given[in.attr] = true
	ri := &rasterInput{im: im, r: r, path: in.path, input: input, attr: in.attr, band: in.band, agg: agg}
	return &openInput{read: ri.read}, nil
}

func (ri *rasterInput) read(ctx context.Context) error {
	im := ri.im
	category := im.attrs[ri.attr].Type == state.TypeCategory
	var text []byte
	err := ri.r.Frames(ctx, ri.band, ri.agg, func(frame uint64, v float64) error {
		if _, ok := im.ix.Shape(frame); !ok {
			return nil // the raster reaches beyond the grid
		}
		text = text[:0]
		if category {
			text = grid.AppendJSONString(text, string(appendNumberValue(nil, v)))
		} else {
			text = appendNumberValue(text, v)
		}
		return im.addEntry(frame, ri.attr, ri.input, 0, text)
	})
	if err != nil && !errors.Is(err, state.ErrInvalid) && ctx.Err() == nil {
		err = fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	return err
}

// openShapefile opens a shapefile (.shp beside its .dbf and .prj, or a .zip
// holding one; in.layer picks one of several).
func openShapefile(in checkedInput) (*fileSource, error) {
	r, err := shapefile.Open(in.path, shapefile.Options{Layer: in.layer})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	return newFileSource(in.path, vectorShapefile, "shapefile ("+r.System().String()+")", r,
		func(f shapefile.Field) string { return f.Name },
		func(f shapefile.Feature) (int, []byte) { return f.Index, f.JSON }), nil
}
