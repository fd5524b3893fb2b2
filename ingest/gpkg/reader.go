package gpkg

import (
	"database/sql"
	"errors"
	"fmt"
	"frameindex/grid"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// Options says which layer to read and how to reach WGS 84.
type Options struct {
	// Layer is the feature table to read. Empty picks the only feature
	// layer and is an error when the file has several.
	Layer string

	// Transform is asked, once in Open, for a function taking the layer's
	// coordinates (x, y in the layer's system) to WGS 84 longitude and
	// latitude. It gets the layer's gpkg_spatial_ref_sys row: srs_id,
	// organization (e.g. "EPSG"), organization_coordsys_id and definition
	// (WKT; the definition_12_063 WKT2 text when definition is
	// "undefined"). Returning (nil, nil) means the coordinates are lon/lat
	// already; an error makes Open fail. It is not called for layers in
	// EPSG:4326 or OGC CRS84, which need no transformation. The returned
	// function is called from the goroutine calling Next.
	//
	// With a nil Transform only EPSG:4326 and CRS84 layers are accepted.
	Transform func(srsID int, orgName string, orgCode int, definition string) (func(x, y float64) (lon, lat float64), error)
}

// Field is one property column of the layer.
type Field struct {
	Name string // the column name, used as the property name
	Type string // the declared SQL type, upper case (e.g. "TEXT", "INTEGER", "DOUBLE", "DATETIME")
}

// Feature is one row of the layer.
type Feature struct {
	// Index counts the features Next returned or failed on, from 0.
	Index int
	// FID is the row's primary key (GeoPackage's feature id); for a layer
	// without an integer primary key (a view) it is Index+1.
	FID int64
	// JSON is the feature as a compact GeoJSON Feature object:
	// {"type":"Feature","geometry":...,"properties":{...}}, without "id"
	// (the fid is not a frame id). It is only valid until the next call to
	// Next.
	JSON []byte
}

// FeatureError is the error Next returns for a feature it cannot convert.
// The reader stays usable: the next call to Next goes on with the next row.
type FeatureError struct {
	Path  string
	Layer string
	Index int   // as in Feature.Index
	FID   int64 // as in Feature.FID
	Err   error
}

func (e *FeatureError) Error() string {
	return fmt.Sprintf("%s: layer %q: feature %d (fid %d): %v", e.Path, e.Layer, e.Index, e.FID, e.Err)
}

func (e *FeatureError) Unwrap() error { return e.Err }

// Reader streams the features of one GeoPackage layer. A Reader is not safe
// for concurrent use.
type Reader struct {
	path   string
	layer  string
	layers []string
	fields []Field

	db   *sql.DB
	rows *sql.Rows

	hasFID  bool
	fid     sql.NullInt64
	geom    sql.RawBytes
	vals    []any
	dest    []any
	keys    [][]byte // `"name":` per field, with a leading comma but for the first
	boolean []bool   // per field: declared BOOLEAN, so 0/1 become false/true

	dec   decoder
	buf   []byte
	index int
	err   error // sticky: a failed query or a closed reader
}

// GeoPackage application_id values (the SQLite header's application id):
// 'GPKG' for 1.2 and later, 'GP10' and 'GP11' for 1.0 and 1.1.
const (
	appGPKG = 0x47504B47
	appGP10 = 0x47503130
	appGP11 = 0x47503131
)

// Open opens the GeoPackage at path read-only and prepares to stream one
// feature layer. Before any feature is read it checks that the file is a
// GeoPackage (an SQLite database whose application_id is GPKG, GP10 or GP11,
// or which has a gpkg_contents table), picks the layer (opts.Layer, or the
// only feature layer), and resolves the layer's coordinate system (see
// Options.Transform). Errors name the file and, once known, the layer: a
// missing file, a file that is not an SQLite database or not a GeoPackage,
// a GeoPackage without feature layers, several layers and no name (the
// error lists them), a name that is not a layer (the error lists the
// layers), and a coordinate system that cannot be handled.
func Open(path string, opts Options) (*Reader, error) {
	if err := checkSQLite(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", readOnlyDSN(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	r := &Reader{path: path, db: db}
	if err := r.open(opts); err != nil {
		db.Close()
		return nil, err
	}
	return r, nil
}

// checkSQLite reports a clear error for a missing path, a directory, or a
// file that does not start with the SQLite header.
func checkSQLite(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err // *PathError names the file
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a GeoPackage file", path)
	}
	var head [16]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:]) != "SQLite format 3\x00" {
		return fmt.Errorf("%s: not a GeoPackage: the file is not an SQLite database", path)
	}
	return nil
}

// readOnlyDSN builds a modernc.org/sqlite DSN that opens path read-only.
// immutable=1 (no locking, no change detection) is added only when no
// write-ahead log sits beside the file: an immutable open would ignore the
// log and read stale data. trusted_schema=OFF keeps functions named in the
// file's own views and triggers from running with full rights.
func readOnlyDSN(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	q := "mode=ro"
	if st, err := os.Stat(abs + "-wal"); err != nil || st.Size() == 0 {
		q += "&immutable=1"
	}
	q += "&_pragma=trusted_schema(0)&_pragma=query_only(1)"
	return "file:" + uriPath(abs) + "?" + q
}

// uriPath percent-escapes the characters that would end or break the path
// part of an SQLite URI.
func uriPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (r *Reader) fail(format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{r.path}, args...)...)
}

func (r *Reader) failLayer(format string, args ...any) error {
	return fmt.Errorf("%s: layer %q: "+format, append([]any{r.path, r.layer}, args...)...)
}

func (r *Reader) open(opts Options) error {
	var appID int64
	if err := r.db.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		return r.fail("not a readable SQLite database: %v", err)
	}
	hasContents, err := r.hasTable("gpkg_contents")
	if err != nil {
		return err
	}
	isGPKG := appID == appGPKG || appID == appGP10 || appID == appGP11
	switch {
	case !isGPKG && !hasContents:
		return r.fail("not a GeoPackage: an SQLite database without the GeoPackage application id or a gpkg_contents table")
	case !hasContents:
		return r.fail("GeoPackage without a gpkg_contents table: it lists no layers")
	}
	hasGeomCols, err := r.hasTable("gpkg_geometry_columns")
	if err != nil {
		return err
	}
	if hasGeomCols {
		if err := r.listLayers(); err != nil {
			return err
		}
	}
	if len(r.layers) == 0 {
		return r.fail("GeoPackage has no feature layers (no gpkg_contents row with data_type 'features' and a gpkg_geometry_columns entry)")
	}
	if err := r.pickLayer(opts.Layer); err != nil {
		return err
	}
	geomCol, tr, err := r.resolveCRS(opts.Transform)
	if err != nil {
		return err
	}
	r.dec.tr = tr
	return r.prepare(geomCol)
}

func (r *Reader) hasTable(name string) (bool, error) {
	var n int
	err := r.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND lower(name) = lower(?)", name).Scan(&n)
	if err != nil {
		return false, r.fail("reading the schema: %v", err)
	}
	return n > 0, nil
}

func (r *Reader) listLayers() error {
	rows, err := r.db.Query(`SELECT c.table_name FROM gpkg_contents c
		JOIN gpkg_geometry_columns g ON lower(g.table_name) = lower(c.table_name)
		WHERE c.data_type = 'features' ORDER BY c.table_name`)
	if err != nil {
		return r.fail("listing layers: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return r.fail("listing layers: %v", err)
		}
		r.layers = append(r.layers, name)
	}
	if err := rows.Err(); err != nil {
		return r.fail("listing layers: %v", err)
	}
	return nil
}

func (r *Reader) pickLayer(want string) error {
	list := quoteList(r.layers)
	if want == "" {
		if len(r.layers) > 1 {
			return r.fail("%d feature layers (%s): say which one to read", len(r.layers), list)
		}
		r.layer = r.layers[0]
		return nil
	}
	for _, l := range r.layers {
		if l == want {
			r.layer = l
			return nil
		}
	}
	var folded []string
	for _, l := range r.layers {
		if strings.EqualFold(l, want) {
			folded = append(folded, l)
		}
	}
	if len(folded) == 1 {
		r.layer = folded[0]
		return nil
	}
	return r.fail("no feature layer %q; the layers are %s", want, list)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// resolveCRS reads the layer's geometry column and coordinate system and
// returns the transformation to lon/lat (nil for none).
func (r *Reader) resolveCRS(hook func(int, string, int, string) (func(x, y float64) (float64, float64), error)) (string, func(x, y float64) (float64, float64), error) {
	var geomCol string
	var srsID int
	err := r.db.QueryRow(`SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)`, r.layer).Scan(&geomCol, &srsID)
	if err != nil {
		return "", nil, r.failLayer("reading gpkg_geometry_columns: %v", err)
	}
	var (
		name, org sql.NullString
		code      sql.NullInt64
		def       sql.NullString
	)
	err = r.db.QueryRow(`SELECT srs_name, organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?`, srsID).Scan(&name, &org, &code, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, r.failLayer("coordinate system srs_id %d is not in gpkg_spatial_ref_sys", srsID)
	}
	if err != nil {
		return "", nil, r.failLayer("reading gpkg_spatial_ref_sys: %v", err)
	}
	definition := def.String
	if strings.EqualFold(strings.TrimSpace(definition), "undefined") || definition == "" {
		// The WKT2 text of the crs_wkt extension, when the file has it.
		var wkt2 sql.NullString
		if r.db.QueryRow(`SELECT definition_12_063 FROM gpkg_spatial_ref_sys WHERE srs_id = ?`, srsID).Scan(&wkt2) == nil && wkt2.Valid {
			definition = wkt2.String
		}
	}
	if isWGS84(srsID, org.String, code.Int64, name.String, definition) {
		return geomCol, nil, nil
	}
	system := fmt.Sprintf("srs_id %d (%s:%d %q)", srsID, org.String, code.Int64, name.String)
	if hook == nil {
		return "", nil, r.failLayer("coordinates are in %s, not WGS 84 longitude/latitude (EPSG:4326); reproject the file to EPSG:4326 first (ogr2ogr -t_srs EPSG:4326)", system)
	}
	tr, err := hook(srsID, org.String, int(code.Int64), definition)
	if err != nil {
		return "", nil, r.failLayer("coordinate system %s: %v", system, err)
	}
	return geomCol, tr, nil
}

// isWGS84 reports whether a gpkg_spatial_ref_sys row is EPSG:4326 or OGC
// CRS84 (both store longitude as x in GeoPackage). srs_id 4326 counts
// unless the organization names another code.
func isWGS84(srsID int, org string, code int64, name, def string) bool {
	switch strings.ToUpper(strings.TrimSpace(org)) {
	case "EPSG":
		return code == 4326
	case "OGC":
		if code == 84 || strings.Contains(strings.ToUpper(name), "CRS84") {
			return true
		}
	}
	if strings.Contains(def, `"OGC","CRS84"`) || strings.Contains(def, `"CRS84"]`) {
		return true
	}
	return srsID == 4326
}

// prepare reads the layer's columns and starts the row cursor.
func (r *Reader) prepare(geomCol string) error {
	rows, err := r.db.Query(`SELECT name, upper(type), pk FROM pragma_table_info(?)`, r.layer)
	if err != nil {
		return r.failLayer("reading the columns: %v", err)
	}
	type col struct {
		name, typ string
		pk        int
	}
	var cols []col
	pks := 0
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.name, &c.typ, &c.pk); err != nil {
			rows.Close()
			return r.failLayer("reading the columns: %v", err)
		}
		if c.pk > 0 {
			pks++
		}
		cols = append(cols, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r.failLayer("reading the columns: %v", err)
	}
	if len(cols) == 0 {
		return r.failLayer("the table does not exist or has no columns")
	}
	fidCol := ""
	foundGeom := false
	for _, c := range cols {
		if pks == 1 && c.pk == 1 && c.typ == "INTEGER" {
			fidCol = c.name
		}
		if strings.EqualFold(c.name, geomCol) {
			foundGeom = true
		}
	}
	if !foundGeom {
		return r.failLayer("geometry column %q named in gpkg_geometry_columns is not in the table", geomCol)
	}
	var sel strings.Builder
	sel.WriteString("SELECT ")
	if fidCol != "" {
		sel.WriteString(quoteIdent(fidCol))
		r.hasFID = true
	} else {
		sel.WriteString("NULL")
	}
	sel.WriteString(", " + quoteIdent(geomCol))
	for _, c := range cols {
		if c.name == fidCol || strings.EqualFold(c.name, geomCol) {
			continue
		}
		r.fields = append(r.fields, Field{Name: c.name, Type: c.typ})
		switch c.typ {
		case "DATE", "DATETIME", "TIMESTAMP", "TIME":
			// Read the text as stored: the driver would turn it into a
			// time.Time, losing the original form.
			sel.WriteString(", CAST(" + quoteIdent(c.name) + " AS TEXT)")
		default:
			sel.WriteString(", " + quoteIdent(c.name))
		}
	}
	sel.WriteString(" FROM " + quoteIdent(r.layer))
	if fidCol != "" {
		sel.WriteString(" ORDER BY " + quoteIdent(fidCol))
	}

	r.vals = make([]any, len(r.fields))
	r.dest = make([]any, 0, 2+len(r.fields))
	r.dest = append(r.dest, &r.fid, &r.geom)
	for i := range r.vals {
		r.dest = append(r.dest, &r.vals[i])
	}
	r.keys = make([][]byte, len(r.fields))
	r.boolean = make([]bool, len(r.fields))
	for i, f := range r.fields {
		var k []byte
		if i > 0 {
			k = append(k, ',')
		}
		k = grid.AppendJSONString(k, f.Name)
		r.keys[i] = append(k, ':')
		r.boolean[i] = f.Type == "BOOLEAN"
	}

	r.rows, err = r.db.Query(sel.String())
	if err != nil {
		return r.failLayer("reading the features: %v", err)
	}
	return nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Layer returns the name of the layer being read.
func (r *Reader) Layer() string { return r.layer }

// Layers returns the names of all feature layers in the file, sorted.
func (r *Reader) Layers() []string { return append([]string(nil), r.layers...) }

// Fields returns the layer's property columns in table order: every column
// but the geometry and the integer primary key (the fid).
func (r *Reader) Fields() []Field { return append([]Field(nil), r.fields...) }

// Next returns the next feature, or io.EOF after the last. Properties hold
// every field: INTEGER values as JSON integers (0/1 of a BOOLEAN column as
// false/true), REAL values as numbers (NaN and infinities as null), TEXT,
// DATE and DATETIME as strings as stored, BLOB values as base64 strings, and
// NULL as null; the type is the value's own (SQLite allows any value in any
// column). Geometry is in WGS 84 longitude/latitude, at most 7 decimals,
// polygon rings wound as RFC 7946 asks; Z and M are dropped; an empty or
// NULL geometry is "geometry":null.
//
// A feature that cannot be converted gives a *FeatureError (and a Feature
// with its Index and FID but no JSON); the next call goes on with the
// following row. Other errors (a read failure, a closed
// reader) are returned again by every later call.
func (r *Reader) Next() (Feature, error) {
	if r.err != nil {
		return Feature{}, r.err
	}
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			r.err = r.failLayer("reading after feature %d: %v", r.index, err)
			return Feature{}, r.err
		}
		r.err = io.EOF
		return Feature{}, io.EOF
	}
	idx := r.index
	r.index++
	if err := r.rows.Scan(r.dest...); err != nil {
		r.err = r.failLayer("reading feature %d: %v", idx, err)
		return Feature{}, r.err
	}
	fid := int64(idx) + 1
	if r.hasFID && r.fid.Valid {
		fid = r.fid.Int64
	}
	b := append(r.buf[:0], `{"type":"Feature","geometry":`...)
	b, err := r.dec.appendGeometry(b, r.geom)
	if err != nil {
		r.buf = b
		return Feature{Index: idx, FID: fid}, &FeatureError{Path: r.path, Layer: r.layer, Index: idx, FID: fid, Err: fmt.Errorf("geometry: %w", err)}
	}
	b = append(b, `,"properties":{`...)
	for i, v := range r.vals {
		b = append(b, r.keys[i]...)
		b = appendValue(b, v, r.boolean[i])
	}
	b = append(b, "}}"...)
	r.buf = b
	return Feature{Index: idx, FID: fid, JSON: b}, nil
}

// appendValue appends one property value as JSON.
func appendValue(b []byte, v any, boolean bool) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		if boolean && (v == 0 || v == 1) {
			return strconv.AppendBool(b, v == 1)
		}
		return strconv.AppendInt(b, v, 10)
	case float64:
		return appendFloat(b, v)
	case string:
		return grid.AppendJSONString(b, v)
	case []byte:
		return appendBase64(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	default:
		// The driver gives only the types above for the columns selected;
		// anything else is shown as text rather than lost.
		return grid.AppendJSONString(b, fmt.Sprint(v))
	}
}

// Close ends the read and closes the file. It is safe to call more than
// once; Next after Close returns an error.
func (r *Reader) Close() error {
	if r.db == nil {
		return nil
	}
	var errs []error
	if r.rows != nil {
		errs = append(errs, r.rows.Close())
	}
	errs = append(errs, r.db.Close())
	r.db = nil
	if r.err == nil || r.err == io.EOF {
		r.err = r.fail("reader is closed")
	}
	if err := errors.Join(errs...); err != nil {
		return r.fail("closing: %v", err)
	}
	return nil
}
