package gpkg

import (
	"database/sql"
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"
)

// wkbw builds WKB by hand for tests, in either byte order.
type wkbw struct {
	b   []byte
	big bool
}

func (w *wkbw) order() binary.AppendByteOrder {
	if w.big {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (w *wkbw) head(typ uint32) *wkbw {
	if w.big {
		w.b = append(w.b, 0)
	} else {
		w.b = append(w.b, 1)
	}
	w.b = w.order().AppendUint32(w.b, typ)
	return w
}

func (w *wkbw) u32(n int) *wkbw {
	w.b = w.order().AppendUint32(w.b, uint32(n))
	return w
}

func (w *wkbw) f(vs ...float64) *wkbw {
	for _, v := range vs {
		w.b = w.order().AppendUint64(w.b, math.Float64bits(v))
	}
	return w
}

// pts appends a count and the points (each of dims values).
func (w *wkbw) pts(dims int, vs ...float64) *wkbw {
	w.u32(len(vs) / dims)
	return w.f(vs...)
}

func wkbPt(x, y float64) []byte { return (&wkbw{}).head(1).f(x, y).b }

func wkbPoly(rings ...[]float64) []byte {
	w := (&wkbw{}).head(3).u32(len(rings))
	for _, r := range rings {
		w.pts(2, r...)
	}
	return w.b
}

// gp wraps WKB in a GeoPackage binary header with srs_id 4326 and an
// envelope of the given indicator (its values are not checked by readers).
func gp(wkb []byte, env int, empty bool) []byte {
	flags := byte(1) | byte(env<<1)
	if empty {
		flags |= 0x10
	}
	b := []byte{'G', 'P', 0, flags}
	b = binary.LittleEndian.AppendUint32(b, 4326)
	b = append(b, make([]byte, envelopeSizes[env])...)
	return append(b, wkb...)
}

// fixtureLayer is one feature table of a hand-made GeoPackage.
type fixtureLayer struct {
	name    string
	srsID   int
	columns string // SQL column definitions after fid and geom, e.g. `, name TEXT`
	rows    [][]any
}

// makeGPKG writes a minimal GeoPackage 1.3 by SQL alone (no GDAL): the
// required tables, an extra spatial reference system (EPSG:32632) and the
// layers, each row given as fid, geometry blob, then the other columns.
func makeGPKG(t testing.TB, layers ...fixtureLayer) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.gpkg")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`PRAGMA application_id = 1196444487`)
	exec(`PRAGMA user_version = 10300`)
	exec(`CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
		organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL,
		definition TEXT NOT NULL, description TEXT)`)
	exec(`INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL),
		('WGS 84 / UTM zone 32N', 32632, 'EPSG', 32632, 'PROJCS["WGS 84 / UTM zone 32N"]', NULL),
		('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL)`)
	exec(`CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
		identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME,
		min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER)`)
	exec(`CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
		geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL)`)
	for _, l := range layers {
		exec(`CREATE TABLE "` + l.name + `" (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom GEOMETRY` + l.columns + `)`)
		exec(`INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)`, l.name, l.name, l.srsID)
		exec(`INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'GEOMETRY', ?, 0, 0)`, l.name, l.srsID)
		for _, row := range l.rows {
			marks := "?"
			for range row[1:] {
				marks += ",?"
			}
			exec(`INSERT INTO "`+l.name+`" VALUES (`+marks+`)`, row...)
		}
	}
	return path
}
