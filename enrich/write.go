package enrich

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// NoteColumn is the column that says why a row's figures are missing.
const NoteColumn = "enrich_note"

// Writer writes enriched rows in input order; not safe for concurrent
// use.
type Writer interface {
	Write(s *Site, r *Row) error
	// Close completes the output (a GeoJSON collection's end, buffered
	// bytes, a GeoPackage's transaction); Create's drop function removes
	// a file output after a failure.
	Close() error
}

// Layout is what a writer is told about the columns.
type Layout struct {
	Header   []string // the input's columns (Reader.Header)
	Features bool     // the input is GeoJSON features (Reader.Features)
	Figures  []string // Engine.Columns
}

// Create writes to path by its extension (.csv, .geojson or .json,
// .gpkg); the data go to a temporary file beside it that Close renames
// into place, so a failed run leaves no half-written output. The function
// returned drops that temporary file (after a failure).
func Create(path string, l Layout) (Writer, func(), error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".csv" && ext != ".geojson" && ext != ".json" && ext != ".gpkg" {
		return nil, nil, invalid("%s: enriched sites are written as .csv, .geojson or .gpkg", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, nil, err
	}
	abort := func() { f.Close(); os.Remove(f.Name()) }
	if ext == ".gpkg" {
		// SQLite writes the file itself: an empty one is a new database.
		f.Close()
		g, err := NewGPKGWriter(f.Name(), l)
		if err != nil {
			abort()
			return nil, nil, err
		}
		return &gpkgFile{g, f.Name(), path}, func() { g.db.Close(); os.Remove(f.Name()) }, nil
	}
	var w Writer
	if ext == ".csv" {
		w, err = NewCSVWriter(f, l)
	} else {
		w, err = NewGeoJSONWriter(f, l)
	}
	if err != nil {
		abort()
		return nil, nil, err
	}
	return &fileWriter{Writer: w, f: f, path: path}, abort, nil
}

type fileWriter struct {
	Writer
	f    *os.File
	path string
}

func (w *fileWriter) Close() error {
	err := w.Writer.Close()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(w.f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
	}
	return err
}

// gpkgFile renames a finished GeoPackage into place.
type gpkgFile struct {
	*GPKGWriter
	tmp, path string
}

func (g *gpkgFile) Close() error {
	err := g.GPKGWriter.Close()
	if err == nil {
		err = os.Chmod(g.tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(g.tmp, g.path)
	}
	if err != nil {
		os.Remove(g.tmp)
	}
	return err
}

// formatFigure writes a figure: the shortest decimal that reads back as
// the same float64 (so a row can be checked exactly), "" for none.
func formatFigure(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// CSVWriter writes rows as CSV: the input's columns (for features input,
// their properties by the first feature's names, then the site's lon and
// lat), the figures, and NoteColumn.
type CSVWriter struct {
	bw  *bufio.Writer
	cw  *csv.Writer
	l   Layout
	rec []string
}

// NewCSVWriter writes the header line to w.
func NewCSVWriter(w io.Writer, l Layout) (*CSVWriter, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	c := &CSVWriter{bw: bw, cw: csv.NewWriter(bw), l: l}
	head := slices.Clone(l.Header)
	if l.Features {
		head = append(head, "lon", "lat")
	}
	head = append(head, l.Figures...)
	head = append(head, NoteColumn)
	if err := checkNames(head); err != nil {
		return nil, err
	}
	return c, c.cw.Write(head)
}

// checkNames refuses an input column a figure would repeat.
func checkNames(head []string) error {
	seen := map[string]bool{}
	for _, h := range head {
		k := strings.ToLower(strings.TrimSpace(h))
		if seen[k] && k != "" {
			return invalid("the output would have the column %q twice: rename that column of the input", h)
		}
		seen[k] = true
	}
	return nil
}

func (c *CSVWriter) Write(s *Site, r *Row) error {
	c.rec = c.rec[:0]
	if c.l.Features {
		for _, h := range c.l.Header {
			c.rec = append(c.rec, propText(gjson.GetBytes(s.Props, escapePath(h))))
		}
		if s.Note == "" || s.Lon != 0 || s.Lat != 0 {
			c.rec = append(c.rec, formatFigure(s.Lon), formatFigure(s.Lat))
		} else {
			c.rec = append(c.rec, "", "")
		}
	} else {
		for i := range c.l.Header {
			v := ""
			if i < len(s.Fields) {
				v = s.Fields[i]
			}
			c.rec = append(c.rec, v)
		}
	}
	for _, v := range r.Figures {
		c.rec = append(c.rec, formatFigure(v))
	}
	c.rec = append(c.rec, r.Note)
	return c.cw.Write(c.rec)
}

func (c *CSVWriter) Close() error {
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return err
	}
	return c.bw.Flush()
}

// propText is a property as CSV text: a string as it is, null as empty,
// anything else as its JSON.
func propText(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Null:
		return ""
	}
	return v.Raw
}

// escapePath makes a property name a gjson path matching it literally.
func escapePath(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// GeoJSONWriter writes a FeatureCollection, one feature a line: the
// site's geometry (a point for CSV input) and its properties (the CSV's
// columns as strings) with the figures (numbers, null for none) and
// NoteColumn (when there is a note) added.
type GeoJSONWriter struct {
	bw    *bufio.Writer
	l     Layout
	names [][]byte // `"name":` of each figure
	n     int
	buf   []byte
}

// NewGeoJSONWriter writes the collection's start to w.
func NewGeoJSONWriter(w io.Writer, l Layout) (*GeoJSONWriter, error) {
	g := &GeoJSONWriter{bw: bufio.NewWriterSize(w, 64<<10), l: l}
	if err := checkNames(append(slices.Clone(l.Header), append(slices.Clone(l.Figures), NoteColumn)...)); err != nil {
		return nil, err
	}
	for _, f := range l.Figures {
		b, _ := json.Marshal(f)
		g.names = append(g.names, append(b, ':'))
	}
	_, err := g.bw.WriteString(`{"type":"FeatureCollection","features":[` + "\n")
	return g, err
}

func (g *GeoJSONWriter) Write(s *Site, r *Row) error {
	b := g.buf[:0]
	if g.n > 0 {
		b = append(b, ",\n"...)
	}
	g.n++
	b = append(b, `{"type":"Feature","geometry":`...)
	switch {
	case len(s.Geometry) > 0:
		b = appendCompact(b, s.Geometry)
	case s.Note == "":
		b = fmt.Appendf(b, `{"type":"Point","coordinates":[%s,%s]}`, formatFigure(s.Lon), formatFigure(s.Lat))
	default:
		b = append(b, "null"...)
	}
	b = append(b, `,"properties":{`...)
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if g.l.Features {
		gjson.ParseBytes(s.Props).ForEach(func(k, v gjson.Result) bool {
			sep()
			b = append(b, k.Raw...)
			b = append(b, ':')
			b = append(b, v.Raw...)
			return true
		})
	} else {
		for i, h := range g.l.Header {
			v := ""
			if i < len(s.Fields) {
				v = s.Fields[i]
			}
			sep()
			b = appendJSONString(b, h)
			b = append(b, ':')
			b = appendJSONString(b, v)
		}
	}
	for i, v := range r.Figures {
		sep()
		b = append(b, g.names[i]...)
		if f := formatFigure(v); f != "" {
			b = append(b, f...)
		} else {
			b = append(b, "null"...)
		}
	}
	if r.Note != "" {
		sep()
		b = appendJSONString(b, NoteColumn)
		b = append(b, ':')
		b = appendJSONString(b, r.Note)
	}
	b = append(b, "}}"...)
	g.buf = b
	_, err := g.bw.Write(b)
	return err
}

func (g *GeoJSONWriter) Close() error {
	if _, err := g.bw.WriteString("\n]}\n"); err != nil {
		return err
	}
	return g.bw.Flush()
}

func appendCompact(b, raw []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return append(b, "null"...)
	}
	return append(b, buf.Bytes()...)
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
