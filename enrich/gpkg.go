package enrich

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tidwall/gjson"

	"frameindex/export"
	"frameindex/grid"
)

// GPKGLayer is the layer of an enriched GeoPackage.
const GPKGLayer = "sites"

// GPKGWriter writes rows as a GeoPackage 1.3 layer "sites": the site's
// geometry (a Point, or a MultiPolygon for a polygon site; none for a row
// without a point), the input's columns as text, the figures as DOUBLE
// and NoteColumn. Rows are inserted in one transaction, committed by
// Close.
type GPKGWriter struct {
	db   *sql.DB
	tx   *sql.Tx
	ins  *sql.Stmt
	l    Layout
	args []any
	blob []byte
}

// NewGPKGWriter creates the GeoPackage at path (a new, scratch file: no
// journal, no syncs, as Create renames it into place only when whole).
func NewGPKGWriter(path string, l Layout) (*GPKGWriter, error) {
	head := append(append(append([]string{}, l.Header...), l.Figures...), NoteColumn)
	if err := checkNames(append(head, "fid", "geom")); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)+
		"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	g := &GPKGWriter{db: db, l: l}
	if err := g.start(head); err != nil {
		db.Close()
		return nil, err
	}
	return g, nil
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (g *GPKGWriter) start(head []string) error {
	if err := export.CreateGPKGTables(g.db); err != nil {
		return err
	}
	var ddl strings.Builder
	ddl.WriteString(`CREATE TABLE "` + GPKGLayer + `" ("fid" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "geom" GEOMETRY`)
	for i, h := range head {
		typ := "TEXT"
		if i >= len(g.l.Header) && i < len(g.l.Header)+len(g.l.Figures) {
			typ = "DOUBLE"
		}
		ddl.WriteString(", " + quote(h) + " " + typ)
	}
	ddl.WriteString(")")
	for _, q := range []string{ddl.String(),
		`INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES ('` + GPKGLayer + `', 'features', '` + GPKGLayer + `', 'sites enriched by frameindex', 4326)`,
		`INSERT INTO gpkg_geometry_columns VALUES ('` + GPKGLayer + `', 'geom', 'GEOMETRY', 4326, 0, 0)`,
	} {
		if _, err := g.db.Exec(q); err != nil {
			return fmt.Errorf("creating the GeoPackage layer: %w", err)
		}
	}
	var err error
	if g.tx, err = g.db.Begin(); err != nil {
		return err
	}
	g.ins, err = g.tx.Prepare(`INSERT INTO "` + GPKGLayer + `" VALUES (NULL, ?` + strings.Repeat(", ?", len(head)) + ")")
	g.args = make([]any, 1+len(head))
	return err
}

func (g *GPKGWriter) Write(s *Site, r *Row) error {
	g.args[0] = nil
	switch {
	case s.Polygon:
		m, err := grid.ParseGeometry(s.Geometry)
		if err != nil {
			return fmt.Errorf("site %d: %w", s.N, err)
		}
		g.blob = appendGPMultiPolygon(g.blob[:0], m)
		g.args[0] = g.blob
	case s.Note == "":
		g.blob = appendGPPoint(g.blob[:0], s.Lon, s.Lat)
		g.args[0] = g.blob
	}
	k := 1
	for i, h := range g.l.Header {
		var v any
		if g.l.Features {
			if p := gjson.GetBytes(s.Props, escapePath(h)); p.Exists() && p.Type != gjson.Null {
				v = propText(p)
			}
		} else if i < len(s.Fields) {
			v = s.Fields[i]
		}
		g.args[k] = v
		k++
	}
	for _, f := range r.Figures {
		g.args[k] = nil
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			g.args[k] = f
		}
		k++
	}
	g.args[k] = nil
	if r.Note != "" {
		g.args[k] = r.Note
	}
	_, err := g.ins.Exec(g.args...)
	return err
}

// Close commits the rows and closes the database.
func (g *GPKGWriter) Close() error {
	err := g.ins.Close()
	if cerr := g.tx.Commit(); err == nil {
		err = cerr
	}
	if cerr := g.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// gpHeader appends a GeoPackage binary header: version 0, little-endian,
// srs_id 4326, with an xy envelope (flags 0x03) or none (0x01).
func gpHeader(b []byte, env *[4]float64) []byte {
	flags := byte(0x01)
	if env != nil {
		flags = 0x03
	}
	b = append(b, 'G', 'P', 0, flags)
	b = binary.LittleEndian.AppendUint32(b, 4326)
	if env != nil {
		for _, v := range env {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

func appendPoint(b []byte, x, y float64) []byte {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(y))
}

// appendGPPoint is a Point in GeoPackage binary (no envelope, as the
// standard allows for points).
func appendGPPoint(b []byte, lon, lat float64) []byte {
	b = gpHeader(b, nil)
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 1)
	return appendPoint(b, lon, lat)
}

// appendGPMultiPolygon is a MultiPolygon in GeoPackage binary, with its
// envelope.
func appendGPMultiPolygon(b []byte, m grid.MultiPolygon) []byte {
	bb := m.Bounds()
	b = gpHeader(b, &[4]float64{bb.MinLon, bb.MaxLon, bb.MinLat, bb.MaxLat})
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 6)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m)))
	for _, p := range m {
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint32(b, 3)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
		for _, r := range p {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
			for _, pt := range r {
				b = appendPoint(b, pt[0], pt[1])
			}
		}
	}
	return b
}
