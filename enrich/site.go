package enrich

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"frameindex/grid"
	"frameindex/ingest"
	"frameindex/ingest/crs"
	"frameindex/ingest/gpkg"
)

// Site is one row of a site file.
type Site struct {
	N int // 1-based: the CSV line's record number, the feature's number

	// Lon and Lat are the site's point: the point itself, or a polygon's
	// representative point (ingest.RepresentativePoint).
	Lon, Lat float64
	// Polygon is set for a Polygon or MultiPolygon site, whose geometry
	// is Geometry.
	Polygon  bool
	Geometry json.RawMessage // GeoJSON geometry (features inputs)

	Fields []string        // a CSV row's fields, as read
	Props  json.RawMessage // a feature's properties object (or nil)

	// Note says why the site cannot be enriched (bad coordinates, an
	// unsupported geometry); its figures are then empty.
	Note string
}

// areaJSON is the area object of a polygon site.
func (s *Site) areaJSON() []byte {
	return append(append([]byte(`{"geometry":`), s.Geometry...), '}')
}

// Reader reads sites one at a time; not safe for concurrent use.
type Reader interface {
	// Header names the input's columns: a CSV's header, or the properties
	// of the first feature in their order.
	Header() []string
	// Features reports an input of GeoJSON features (GeoJSON, GeoPackage),
	// which may hold polygons.
	Features() bool
	// Next returns the next site, io.EOF after the last. A site whose
	// coordinates are unusable comes back with a Note; a file that cannot
	// be read on is an error naming where.
	Next() (Site, error)
	// Read is how many bytes of the input were read (for progress), and
	// Size the input's size (0 when unknown).
	Read() int64
	Size() int64
	Close() error
}

// Options say how to read a site file.
type Options struct {
	// LonColumn and LatColumn name a CSV's coordinate columns; empty
	// finds them by name (lon, lng, long, longitude, x; lat, latitude,
	// y; any case).
	LonColumn, LatColumn string
	// Layer is a GeoPackage's layer ("" for its only one).
	Layer string
}

// Open opens a site file by its extension: .csv, .geojson or .json,
// .gpkg. Errors name the file and what is wrong (CodeInvalid for content,
// the system's for opening).
func Open(path string, opts Options) (Reader, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r, err := NewCSVReader(f, opts)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.size, r.close = fileSize(f), f.Close
		return r, nil
	case ".geojson", ".json":
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r, err := NewGeoJSONReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r.size, r.close = fileSize(f), f.Close
		return r, nil
	case ".gpkg":
		return openGPKG(path, opts)
	}
	return nil, invalid("%s: site files are .csv (lon and lat columns), .geojson or .gpkg", path)
}

func fileSize(f *os.File) int64 {
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		return st.Size()
	}
	return 0
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// CSVReader reads sites from CSV: a header line, then one site a row,
// located by its lon and lat columns.
type CSVReader struct {
	cr       *csv.Reader
	cnt      *counter
	header   []string
	lon, lat int
	n        int
	size     int64
	close    func() error
}

var (
	lonNames = []string{"lon", "lng", "long", "longitude", "x"}
	latNames = []string{"lat", "latitude", "y"}
)

// NewCSVReader reads the header of r and finds the coordinate columns.
func NewCSVReader(r io.Reader, opts Options) (*CSVReader, error) {
	cnt := &counter{r: r}
	cr := csv.NewReader(bufio.NewReaderSize(cnt, 64<<10))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, invalid("the CSV is empty: it needs a header line with lon and lat columns")
	}
	if err != nil {
		return nil, invalid("the CSV header does not parse: %v", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	find := func(given string, names []string, what string) (int, error) {
		for i, h := range header {
			h = strings.TrimSpace(h)
			if given != "" && h == given || given == "" && slices.Contains(names, strings.ToLower(h)) {
				return i, nil
			}
		}
		if given != "" {
			return -1, invalid("the CSV has no column %q for the %s (its columns: %s)", given, what, strings.Join(header, ", "))
		}
		return -1, invalid("the CSV has no %s column: name it one of %s, or say which (--lon-column, --lat-column); its columns are %s",
			what, strings.Join(names, ", "), strings.Join(header, ", "))
	}
	c := &CSVReader{cr: cr, cnt: cnt, header: header}
	if c.lon, err = find(opts.LonColumn, lonNames, "longitude"); err != nil {
		return nil, err
	}
	if c.lat, err = find(opts.LatColumn, latNames, "latitude"); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *CSVReader) Header() []string { return slices.Clone(c.header) }
func (c *CSVReader) Features() bool   { return false }
func (c *CSVReader) Read() int64      { return c.cnt.n }
func (c *CSVReader) Size() int64      { return c.size }

func (c *CSVReader) Close() error {
	if c.close != nil {
		return c.close()
	}
	return nil
}

func (c *CSVReader) Next() (Site, error) {
	rec, err := c.cr.Read()
	if err == io.EOF {
		return Site{}, io.EOF
	}
	c.n++
	if err != nil {
		return Site{}, invalid("CSV record %d does not parse: %v", c.n, err)
	}
	s := Site{N: c.n, Fields: rec}
	field := func(i int) string {
		if i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	lon, err1 := strconv.ParseFloat(field(c.lon), 64)
	lat, err2 := strconv.ParseFloat(field(c.lat), 64)
	switch {
	case err1 != nil || err2 != nil:
		s.Note = fmt.Sprintf("lon %q, lat %q are not numbers", field(c.lon), field(c.lat))
	default:
		s.Lon, s.Lat, s.Note = lon, lat, checkPoint(lon, lat)
	}
	return s, nil
}

// checkPoint is the note of a point out of range ("" when it is fine).
func checkPoint(lon, lat float64) string {
	if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
		return fmt.Sprintf("lon %v, lat %v are not a point (lon in [-180, 180], lat in [-90, 90])", lon, lat)
	}
	if math.Abs(lat) > 85 {
		return fmt.Sprintf("lat %v is too near a pole for rings", lat)
	}
	return ""
}

// GeoJSONReader streams the features of a GeoJSON FeatureCollection (or
// one Feature), one at a time.
type GeoJSONReader struct {
	dec    *json.Decoder
	cnt    *counter
	header []string
	first  *Site // read ahead for the header
	n      int
	single bool // a lone Feature
	done   bool
	size   int64
	close  func() error
}

// NewGeoJSONReader reads r up to its first feature.
func NewGeoJSONReader(r io.Reader) (*GeoJSONReader, error) {
	cnt := &counter{r: r}
	g := &GeoJSONReader{dec: json.NewDecoder(bufio.NewReaderSize(cnt, 64<<10)), cnt: cnt}
	if err := g.seek(); err != nil {
		return nil, err
	}
	if g.first == nil {
		s, err := g.next()
		if err != nil && err != io.EOF {
			return nil, err
		}
		if err == nil {
			g.first = &s
		}
	}
	if g.first != nil {
		gjson.ParseBytes(g.first.Props).ForEach(func(k, _ gjson.Result) bool {
			if !slices.Contains(g.header, k.String()) {
				g.header = append(g.header, k.String())
			}
			return true
		})
	}
	return g, nil
}

// seek reads up to the first feature: into the "features" array of a
// FeatureCollection, whatever members come before it; a lone Feature is
// read whole.
func (g *GeoJSONReader) seek() error {
	tok, err := g.dec.Token()
	if err != nil || tok != json.Delim('{') {
		return invalid("not GeoJSON: the file must hold a FeatureCollection object")
	}
	var members []byte
	for g.dec.More() {
		tok, err := g.dec.Token()
		if err != nil {
			return invalid("not GeoJSON: %v", err)
		}
		name, _ := tok.(string)
		if name == "features" {
			tok, err := g.dec.Token()
			if err != nil || tok != json.Delim('[') {
				return invalid("the FeatureCollection's features is not an array")
			}
			return nil
		}
		var v json.RawMessage
		if err := g.dec.Decode(&v); err != nil {
			return invalid("not GeoJSON: member %q: %v", name, err)
		}
		if name == "type" && string(bytes.TrimSpace(v)) == `"Feature"` {
			g.single = true
		}
		if g.single || name == "geometry" || name == "properties" {
			members = fmt.Appendf(members, "%s%q:%s", map[bool]string{true: ",", false: ""}[len(members) > 0], name, v)
		}
	}
	if g.single {
		// A lone Feature: its members were kept, the object is read.
		s := g.feature(append(append([]byte("{"), members...), '}'))
		g.first, g.done = &s, true
		return nil
	}
	return invalid("the GeoJSON object has no features: give a FeatureCollection of sites")
}

func (g *GeoJSONReader) next() (Site, error) {
	if g.done {
		return Site{}, io.EOF
	}
	if !g.dec.More() {
		g.done = true
		return Site{}, io.EOF
	}
	var raw json.RawMessage
	if err := g.dec.Decode(&raw); err != nil {
		return Site{}, invalid("feature %d does not parse: %v", g.n+1, err)
	}
	return g.feature(raw), nil
}

// feature reads one Feature object.
func (g *GeoJSONReader) feature(raw []byte) Site {
	g.n++
	s := Site{N: g.n}
	var f struct {
		Type       string          `json:"type"`
		Geometry   json.RawMessage `json:"geometry"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		s.Note = "not a GeoJSON Feature: " + err.Error()
		return s
	}
	if p := bytes.TrimSpace(f.Properties); len(p) > 0 && p[0] == '{' {
		s.Props = f.Properties
	}
	locate(&s, f.Geometry)
	return s
}

// locate sets s's point, polygon and note from its geometry.
func locate(s *Site, geom json.RawMessage) {
	s.Geometry = geom
	var g struct {
		Type string `json:"type"`
	}
	json.Unmarshal(geom, &g)
	switch g.Type {
	case "Point", "Polygon", "MultiPolygon":
	case "":
		s.Note = "the feature has no geometry"
		return
	default:
		s.Note = "a " + g.Type + " is not a site: give points or polygons"
		return
	}
	if g.Type != "Point" {
		m, err := grid.ParseGeometry(geom)
		if err == nil {
			err = m.Validate()
		}
		if err != nil {
			s.Note = "the polygon is not valid: " + strings.TrimPrefix(err.Error(), "grid: ")
			return
		}
		s.Polygon = true
	}
	p, err := ingest.RepresentativePoint(geom)
	if err != nil {
		s.Note = "the geometry " + err.Error()
		return
	}
	s.Lon, s.Lat = p[0], p[1]
	if n := checkPoint(s.Lon, s.Lat); n != "" {
		s.Note = n
	}
}

func (g *GeoJSONReader) Header() []string { return slices.Clone(g.header) }
func (g *GeoJSONReader) Features() bool   { return true }
func (g *GeoJSONReader) Read() int64      { return g.cnt.n }
func (g *GeoJSONReader) Size() int64      { return g.size }

func (g *GeoJSONReader) Close() error {
	if g.close != nil {
		return g.close()
	}
	return nil
}

func (g *GeoJSONReader) Next() (Site, error) {
	if g.first != nil {
		s := *g.first
		g.first = nil
		return s, nil
	}
	return g.next()
}

// gpkgReader reads the features of a GeoPackage layer.
type gpkgReader struct {
	r      *gpkg.Reader
	header []string
	size   int64
	n      int
}

func openGPKG(path string, opts Options) (Reader, error) {
	r, err := gpkg.Open(path, gpkg.Options{Layer: opts.Layer, Transform: func(_ int, org string, code int, def string) (func(x, y float64) (float64, float64), error) {
		var system *crs.System
		var err error
		if code > 0 && strings.EqualFold(org, "EPSG") {
			system, err = crs.FromEPSG(code)
		} else {
			system, err = crs.FromWKT(def)
		}
		if err != nil || system.IsWGS84() {
			return nil, err
		}
		return system.ToWGS84, nil
	}})
	if err != nil {
		return nil, invalid("%v", err)
	}
	g := &gpkgReader{r: r}
	for _, f := range r.Fields() {
		g.header = append(g.header, f.Name)
	}
	if st, err := os.Stat(path); err == nil {
		g.size = st.Size()
	}
	return g, nil
}

func (g *gpkgReader) Header() []string { return slices.Clone(g.header) }
func (g *gpkgReader) Features() bool   { return true }
func (g *gpkgReader) Size() int64      { return 0 }
func (g *gpkgReader) Close() error     { return g.r.Close() }

// Read is unknown for a GeoPackage (rows, not bytes): 0.
func (g *gpkgReader) Read() int64 { return 0 }

func (g *gpkgReader) Next() (Site, error) {
	f, err := g.r.Next()
	if err == io.EOF {
		return Site{}, io.EOF
	}
	g.n++
	var fe *gpkg.FeatureError
	if errors.As(err, &fe) {
		return Site{N: g.n, Note: fe.Error()}, nil
	}
	if err != nil {
		return Site{}, err
	}
	var ft struct {
		Geometry   json.RawMessage `json:"geometry"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(f.JSON, &ft); err != nil {
		return Site{N: g.n, Note: err.Error()}, nil
	}
	s := Site{N: g.n, Props: ft.Properties}
	locate(&s, ft.Geometry)
	return s, nil
}
