package export

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// wgs84WKT is the EPSG:4326 definition GeoPackage requires in
// gpkg_spatial_ref_sys (the text of the spec's Annex example).
const wgs84WKT = `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]`

// gpkgSchema creates the tables every GeoPackage 1.3 with features has.
var gpkgSchema = []string{
	`PRAGMA application_id = 1196444487`, // 'GPKG'
	`PRAGMA user_version = 10300`,        // 1.3.0
	`CREATE TABLE gpkg_spatial_ref_sys (
		srs_name TEXT NOT NULL,
		srs_id INTEGER NOT NULL PRIMARY KEY,
		organization TEXT NOT NULL,
		organization_coordsys_id INTEGER NOT NULL,
		definition TEXT NOT NULL,
		description TEXT)`,
	`INSERT INTO gpkg_spatial_ref_sys VALUES
		('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
		('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
		('WGS 84 geodetic', 4326, 'EPSG', 4326, '` + wgs84WKT + `', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')`,
	`CREATE TABLE gpkg_contents (
		table_name TEXT NOT NULL PRIMARY KEY,
		data_type TEXT NOT NULL,
		identifier TEXT UNIQUE,
		description TEXT DEFAULT '',
		last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
		min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
		srs_id INTEGER,
		CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id))`,
	`CREATE TABLE gpkg_geometry_columns (
		table_name TEXT NOT NULL,
		column_name TEXT NOT NULL,
		geometry_type_name TEXT NOT NULL,
		srs_id INTEGER NOT NULL,
		z TINYINT NOT NULL,
		m TINYINT NOT NULL,
		CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
		CONSTRAINT uk_gc_table_name UNIQUE (table_name),
		CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
		CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id))`,
	`CREATE TABLE gpkg_extensions (
		table_name TEXT,
		column_name TEXT,
		extension_name TEXT NOT NULL,
		definition TEXT NOT NULL,
		scope TEXT NOT NULL,
		CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name))`,
}

// rtreeTriggers are the GeoPackage 1.3 R-tree maintenance triggers, with
// {T} the feature table and {R} the rtree table (quoted), {N} the layer
// name inside the quoted trigger names. They
// call ST_* functions that GIS software (GDAL, QGIS) registers; they are
// created after the bulk load so that this writer never fires them.
const rtreeTriggers = `
CREATE TRIGGER "rtree_{N}_geom_insert" AFTER INSERT ON {T}
  WHEN (new.geom NOT NULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  INSERT OR REPLACE INTO {R} VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom));
END;
CREATE TRIGGER "rtree_{N}_geom_update1" AFTER UPDATE OF geom ON {T}
  WHEN OLD.fid = NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  INSERT OR REPLACE INTO {R} VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom));
END;
CREATE TRIGGER "rtree_{N}_geom_update2" AFTER UPDATE OF geom ON {T}
  WHEN OLD.fid = NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM {R} WHERE id = OLD.fid;
END;
CREATE TRIGGER "rtree_{N}_geom_update3" AFTER UPDATE ON {T}
  WHEN OLD.fid != NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM {R} WHERE id = OLD.fid;
  INSERT OR REPLACE INTO {R} VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom));
END;
CREATE TRIGGER "rtree_{N}_geom_update4" AFTER UPDATE ON {T}
  WHEN OLD.fid != NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM {R} WHERE id IN (OLD.fid, NEW.fid);
END;
CREATE TRIGGER "rtree_{N}_geom_delete" AFTER DELETE ON {T}
  WHEN old.geom NOT NULL
BEGIN
  DELETE FROM {R} WHERE id = OLD.fid;
END;`

// gpkgWriter writes a GeoPackage through SQLite, in one transaction.
type gpkgWriter struct {
	state
	tmp   string
	opts  Options
	db    *sql.DB
	tx    *sql.Tx
	ins   *sql.Stmt
	args  []any
	vals  []value
	blob  []byte
	shape shape
	ext   extent
	boxes []box32 // per row (fid-1), for the R-tree
}

func newGPKG(path string, opts Options) (Writer, error) {
	f, err := tempFor(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	g := &gpkgWriter{state: state{path: path}, tmp: f.Name(), opts: opts}
	if err := g.start(); err != nil {
		g.cleanup()
		return nil, fmt.Errorf("export %s: %w", path, err)
	}
	return g, nil
}

// dsn opens the temporary file without a rollback journal and without
// syncs: the file is scratch until Close renames it, so crash safety
// inside SQLite buys nothing. The page cache is capped at 8 MiB: rows
// and index nodes are appended in key order, so a bigger one gains nothing.
func (g *gpkgWriter) dsn() string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(g.tmp); i++ {
		switch c := g.tmp[i]; c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)&_pragma=locking_mode(EXCLUSIVE)")
	return b.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (g *gpkgWriter) geomType() string {
	if g.opts.Multi {
		return "MULTIPOLYGON"
	}
	return "POLYGON"
}

func (g *gpkgWriter) start() error {
	db, err := sql.Open("sqlite", g.dsn())
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	g.db = db
	if err := CreateGPKGTables(db); err != nil {
		return err
	}
	t := quoteIdent(g.opts.Layer)
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE " + t + ` ("fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "geom" ` + g.geomType() + `, "frame_id" TEXT NOT NULL`)
	for _, c := range g.opts.Columns {
		typ := map[ColumnType]string{Number: "DOUBLE", Text: "TEXT", Integer: "INTEGER"}[c.Type]
		ddl.WriteString(", " + quoteIdent(c.Name) + " " + typ)
	}
	ddl.WriteString(")")
	stmts := []struct {
		q    string
		args []any
	}{
		{ddl.String(), nil},
		{`INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, 'features', ?, 'frameindex grid frames', 4326)`, []any{g.opts.Layer, g.opts.Layer}},
		{`INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, 4326, 0, 0)`, []any{g.opts.Layer, g.geomType()}},
	}
	for _, s := range stmts {
		if _, err := db.Exec(s.q, s.args...); err != nil {
			return fmt.Errorf("creating layer %q: %w", g.opts.Layer, err)
		}
	}
	if g.tx, err = db.Begin(); err != nil {
		return err
	}
	marks := strings.Repeat(",?", len(g.opts.Columns))
	g.ins, err = g.tx.Prepare("INSERT INTO " + t + " VALUES (?,?,?" + marks + ")")
	if err != nil {
		return err
	}
	g.args = make([]any, 3+len(g.opts.Columns))
	return nil
}

func (g *gpkgWriter) Write(fr Frame) error {
	if err := g.writable(); err != nil {
		return err
	}
	if err := g.write(&fr); err != nil {
		return g.fail(err)
	}
	return nil
}

func (g *gpkgWriter) write(fr *Frame) error {
	var err error
	if g.vals, err = checkValues(g.opts.Columns, fr, g.vals); err != nil {
		return err
	}
	s := &g.shape
	if err := s.load(fr, g.opts.Multi); err != nil {
		return err
	}
	g.ext.add(s)
	g.boxes = append(g.boxes, boxOf(s))
	g.blob = appendGPGeometry(g.blob[:0], s, g.opts.Multi)
	g.args[0] = g.ext.n
	g.args[1] = g.blob
	g.args[2] = strconv.FormatUint(fr.ID, 10)
	for i, v := range g.vals {
		switch v.kind {
		case Number:
			g.args[3+i] = v.f
		case Integer:
			g.args[3+i] = v.i
		case Text:
			g.args[3+i] = v.s
		default:
			g.args[3+i] = nil
		}
	}
	if _, err := g.ins.Exec(g.args...); err != nil {
		return fmt.Errorf("frame %d: %w", fr.ID, err)
	}
	return nil
}

// appendGPGeometry appends GeoPackage binary: the header (version 0,
// little-endian, xy envelope, srs_id 4326) and little-endian ISO WKB.
func appendGPGeometry(b []byte, s *shape, multi bool) []byte {
	b = append(b, 'G', 'P', 0, 0x03)
	le := binary.LittleEndian
	b = le.AppendUint32(b, 4326)
	for _, v := range [4]float64{s.minX, s.maxX, s.minY, s.maxY} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	if multi {
		b = append(b, 1)
		b = le.AppendUint32(b, 6)
		b = le.AppendUint32(b, uint32(len(s.polys)))
	}
	for _, p := range s.polys {
		b = append(b, 1)
		b = le.AppendUint32(b, 3)
		b = le.AppendUint32(b, uint32(len(p)))
		for _, r := range p {
			b = le.AppendUint32(b, uint32(len(r)))
			for _, pt := range r {
				b = le.AppendUint64(b, math.Float64bits(pt[0]))
				b = le.AppendUint64(b, math.Float64bits(pt[1]))
			}
		}
	}
	return b
}

// Close bulk-loads the R-tree index (see rtree.go), adds its triggers and
// gpkg_extensions row, records the extent, commits and renames the file
// into place.
func (g *gpkgWriter) Close() error { return g.close(g.complete, g.cleanup) }

func (g *gpkgWriter) complete() error {
	if err := g.ins.Close(); err != nil {
		return err
	}
	t := quoteIdent(g.opts.Layer)
	rtree := "rtree_" + g.opts.Layer + "_geom"
	r := quoteIdent(rtree)
	if _, err := g.tx.Exec("CREATE VIRTUAL TABLE " + r + " USING rtree(id, minx, maxx, miny, maxy)"); err != nil {
		return fmt.Errorf("creating the spatial index: %w", err)
	}
	if err := bulkLoadRTree(g.tx, rtree, g.boxes, g.ext); err != nil {
		return fmt.Errorf("filling the spatial index: %w", err)
	}
	g.boxes = nil
	name := strings.ReplaceAll(g.opts.Layer, `"`, `""`)
	trig := strings.NewReplacer("{N}", name, "{T}", t, "{R}", r).Replace(rtreeTriggers)
	if _, err := g.tx.Exec(trig); err != nil {
		return fmt.Errorf("creating the spatial index triggers: %w", err)
	}
	if _, err := g.tx.Exec(`INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`, g.opts.Layer); err != nil {
		return err
	}
	var bounds []any
	if g.ext.n > 0 {
		bounds = []any{g.ext.minX, g.ext.minY, g.ext.maxX, g.ext.maxY}
	} else {
		bounds = []any{nil, nil, nil, nil}
	}
	if _, err := g.tx.Exec(`UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?,
		last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE table_name = ?`, append(bounds, g.opts.Layer)...); err != nil {
		return err
	}
	if err := g.tx.Commit(); err != nil {
		return err
	}
	g.tx = nil
	if err := g.db.Close(); err != nil {
		return err
	}
	g.db = nil
	return finish(g.tmp, g.path)
}

// cleanup closes the database and removes the temporary file.
func (g *gpkgWriter) cleanup() {
	if g.ins != nil {
		g.ins.Close()
	}
	if g.tx != nil {
		g.tx.Rollback()
		g.tx = nil
	}
	if g.db != nil {
		g.db.Close()
		g.db = nil
	}
	os.Remove(g.tmp)
	os.Remove(g.tmp + "-journal")
}

func (g *gpkgWriter) Abort() error {
	if !g.abort() {
		return nil
	}
	g.cleanup()
	if _, err := os.Stat(g.tmp); err == nil {
		return fmt.Errorf("export %s: could not remove %s", g.path, g.tmp)
	}
	return nil
}

// CreateGPKGTables creates, on an empty SQLite database, the tables every
// GeoPackage 1.3 of features has (application id and version,
// gpkg_spatial_ref_sys with WGS 84, gpkg_contents, gpkg_geometry_columns,
// gpkg_extensions), for writers of layers other than frames (package
// enrich's sites). The layer's own table and rows are the caller's.
func CreateGPKGTables(db *sql.DB) error {
	for _, q := range gpkgSchema {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("creating the GeoPackage tables: %w", err)
		}
	}
	return nil
}
