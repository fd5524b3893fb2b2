package export

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"

	"frameindex/grid"
)

// geojsonlWriter writes one GeoJSON Feature a line.
type geojsonlWriter struct {
	state
	opts Options
	f    *os.File
	w    *bufio.Writer
	keys [][]byte // `,"name":` per column
	vals []value
	line []byte
}

func newGeoJSONL(path string, opts Options) (Writer, error) {
	f, err := tempFor(path)
	if err != nil {
		return nil, err
	}
	g := &geojsonlWriter{state: state{path: path}, opts: opts, f: f, w: bufio.NewWriterSize(f, 1<<20)}
	for _, c := range opts.Columns {
		k := append([]byte{','}, grid.AppendJSONString(nil, c.Name)...)
		g.keys = append(g.keys, append(k, ':'))
	}
	return g, nil
}

func (g *geojsonlWriter) Write(fr Frame) error {
	if err := g.writable(); err != nil {
		return err
	}
	if err := g.write(&fr); err != nil {
		return g.fail(err)
	}
	return nil
}

func (g *geojsonlWriter) write(fr *Frame) error {
	var err error
	if g.vals, err = checkValues(g.opts.Columns, fr, g.vals); err != nil {
		return err
	}
	b := append(g.line[:0], `{"type":"Feature","id":"`...)
	b = strconv.AppendUint(b, fr.ID, 10)
	b = append(b, `","geometry":`...)
	if b, err = appendGeometry(b, fr, g.opts.Multi); err != nil {
		return err
	}
	b = append(b, `,"properties":{"frame_id":"`...)
	b = strconv.AppendUint(b, fr.ID, 10)
	b = append(b, '"')
	for i, v := range g.vals {
		b = append(b, g.keys[i]...)
		switch v.kind {
		case Number:
			b = appendJSONFloat(b, v.f)
		case Integer:
			b = strconv.AppendInt(b, v.i, 10)
		case Text:
			b = grid.AppendJSONString(b, v.s)
		default:
			b = append(b, "null"...)
		}
	}
	b = append(b, "}}\n"...)
	g.line = b
	_, err = g.w.Write(b)
	return err
}

// appendGeometry appends a frame's geometry as GeoJSON with 7 decimals:
// grid.Shape's encoding, wrapped as a MultiPolygon when multi is set.
func appendGeometry(b []byte, fr *Frame, multi bool) ([]byte, error) {
	if fr.Geom == nil {
		if fr.ID > grid.MaxID {
			return b, fmt.Errorf("frame %d: no geometry given and the id is not a lattice cell (largest is %d)", fr.ID, grid.MaxID)
		}
		if !multi {
			return grid.Shape{ID: fr.ID}.AppendGeometry(b), nil
		}
		row, col, _ := grid.RowCol(fr.ID)
		b = append(b, `{"type":"MultiPolygon","coordinates":[[[`...)
		for i, p := range [5][2]int{{col, row + 1}, {col + 1, row + 1}, {col + 1, row}, {col, row}, {col, row + 1}} {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = grid.AppendLonEdge(b, p[0])
			b = append(b, ',')
			b = grid.AppendLatEdge(b, p[1])
			b = append(b, ']')
		}
		return append(b, "]]]}"...), nil
	}
	var s shape
	if err := s.load(fr, multi); err != nil {
		return b, err
	}
	if !multi {
		return grid.Shape{ID: fr.ID, Geom: fr.Geom}.AppendGeometry(b), nil
	}
	b = append(b, `{"type":"MultiPolygon","coordinates":[`...)
	for i, p := range fr.Geom {
		if i > 0 {
			b = append(b, ',')
		}
		// grid writes a one-polygon MultiPolygon as a Polygon: take its
		// coordinates member.
		one := grid.Shape{ID: fr.ID, Geom: grid.MultiPolygon{p}}.AppendGeometry(nil)
		const prefix = `{"type":"Polygon","coordinates":`
		b = append(b, one[len(prefix):len(one)-1]...)
	}
	return append(b, "]}"...), nil
}

func (g *geojsonlWriter) Close() error { return g.close(g.complete, g.cleanup) }

// complete flushes and closes the temporary file and renames it into place.
func (g *geojsonlWriter) complete() error {
	err := g.w.Flush()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = finish(g.f.Name(), g.path)
	}
	return err
}

// cleanup removes the temporary file, closing it first unless complete
// has (a second Close only fails).
func (g *geojsonlWriter) cleanup() {
	g.f.Close()
	os.Remove(g.f.Name())
}

func (g *geojsonlWriter) Abort() error {
	if !g.abort() {
		return nil
	}
	g.f.Close()
	return removeIfExists(g.f.Name())
}

func removeIfExists(name string) error {
	if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// appendJSONFloat appends a finite f as encoding/json writes a float64.
func appendJSONFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
