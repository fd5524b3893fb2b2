package shapefile

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A small shapefile writer for hand-made fixtures.

const (
	prjWGS84   = `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`
	prjUTM32N  = `PROJCS["WGS_1984_UTM_Zone_32N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",9.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]`
	prjWebMerc = `PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],UNIT["Meter",1.0]]`
)

// shape is one record's geometry: typ 0 is a Null shape; parts hold the
// points (one part for Point and MultiPoint).
type shape struct {
	typ   int32
	parts [][]pt
}

type dbfField struct {
	name     string
	typ      byte
	length   int
	decimals int
}

type fixture struct {
	shapeType int32
	shapes    []shape
	raw       [][]byte // record contents used instead of shapes when set
	fields    []dbfField
	rows      [][]string // field text per record; "*" first makes a deleted record via deleted
	deleted   []bool
	prj       string // "" writes no .prj
	cpg       string // "" writes no .cpg
	ldid      byte
	noDBF     bool
	noSHX     bool
	extCase   func(string) string // maps ".shp" etc. to the written extension
}

func hasZ(t int32) bool { return t >= 11 && t <= 18 }
func hasM(t int32) bool { return t >= 11 }

// encodeShape returns the record content of s.
func encodeShape(s shape) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	w(s.typ)
	var all []pt
	for _, p := range s.parts {
		all = append(all, p...)
	}
	bbox := func() {
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range all {
			minX, minY = math.Min(minX, p.x), math.Min(minY, p.y)
			maxX, maxY = math.Max(maxX, p.x), math.Max(maxY, p.y)
		}
		w([4]float64{minX, minY, maxX, maxY})
	}
	zm := func() {
		if hasZ(s.typ) {
			w([2]float64{0, 10})
			for range all {
				w(5.0)
			}
		}
		if hasM(s.typ) {
			w([2]float64{0, 1})
			for range all {
				w(1.0)
			}
		}
	}
	switch baseType(s.typ) {
	case typeNull:
	case typePoint:
		w(all[0].x)
		w(all[0].y)
		if hasZ(s.typ) {
			w(5.0)
		}
		if hasM(s.typ) {
			w(1.0)
		}
	case typeMultiPoint:
		bbox()
		w(int32(len(all)))
		for _, p := range all {
			w(p.x)
			w(p.y)
		}
		zm()
	default:
		bbox()
		w(int32(len(s.parts)))
		w(int32(len(all)))
		n := 0
		for _, p := range s.parts {
			w(int32(n))
			n += len(p)
		}
		for _, p := range all {
			w(p.x)
			w(p.y)
		}
		zm()
	}
	return b.Bytes()
}

func shpFileHeader(shapeType int32, length int) []byte {
	h := make([]byte, 100)
	binary.BigEndian.PutUint32(h[0:], 9994)
	binary.BigEndian.PutUint32(h[24:], uint32(length/2))
	binary.LittleEndian.PutUint32(h[28:], 1000)
	binary.LittleEndian.PutUint32(h[32:], uint32(shapeType))
	return h
}

func encodeDBF(f fixture) []byte {
	var b bytes.Buffer
	recLen := 1
	for _, fd := range f.fields {
		recLen += fd.length
	}
	h := make([]byte, 32)
	h[0] = 3
	h[1], h[2], h[3] = 124, 1, 1
	binary.LittleEndian.PutUint32(h[4:], uint32(len(f.rows)))
	binary.LittleEndian.PutUint16(h[8:], uint16(32+32*len(f.fields)+1))
	binary.LittleEndian.PutUint16(h[10:], uint16(recLen))
	h[29] = f.ldid
	b.Write(h)
	for _, fd := range f.fields {
		d := make([]byte, 32)
		copy(d, fd.name)
		d[11] = fd.typ
		d[16] = byte(fd.length)
		d[17] = byte(fd.decimals)
		b.Write(d)
	}
	b.WriteByte(0x0D)
	for i, row := range f.rows {
		if i < len(f.deleted) && f.deleted[i] {
			b.WriteByte('*')
		} else {
			b.WriteByte(' ')
		}
		for j, fd := range f.fields {
			v := row[j]
			if len(v) > fd.length {
				v = v[:fd.length]
			}
			pad := strings.Repeat(" ", fd.length-len(v))
			if fd.typ == 'N' || fd.typ == 'F' {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
		}
	}
	b.WriteByte(0x1A)
	return b.Bytes()
}

// writeFixture writes the shapefile dir/name.* and returns the .shp path.
func writeFixture(t testing.TB, dir, name string, f fixture) string {
	t.Helper()
	ext := func(e string) string {
		if f.extCase != nil {
			return f.extCase(e)
		}
		return e
	}
	contents := f.raw
	if contents == nil {
		for _, s := range f.shapes {
			contents = append(contents, encodeShape(s))
		}
	}
	var body, index bytes.Buffer
	off := 100
	for i, c := range contents {
		var rh [8]byte
		binary.BigEndian.PutUint32(rh[0:], uint32(i+1))
		binary.BigEndian.PutUint32(rh[4:], uint32(len(c)/2))
		var ix [8]byte
		binary.BigEndian.PutUint32(ix[0:], uint32(off/2))
		binary.BigEndian.PutUint32(ix[4:], uint32(len(c)/2))
		index.Write(ix[:])
		body.Write(rh[:])
		body.Write(c)
		off += 8 + len(c)
	}
	base := filepath.Join(dir, name)
	write := func(e string, b []byte) {
		if err := os.WriteFile(base+ext(e), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".shp", append(shpFileHeader(f.shapeType, off), body.Bytes()...))
	if !f.noSHX {
		write(".shx", append(shpFileHeader(f.shapeType, 100+index.Len()), index.Bytes()...))
	}
	if !f.noDBF {
		write(".dbf", encodeDBF(f))
	}
	if f.prj != "" {
		write(".prj", []byte(f.prj))
	}
	if f.cpg != "" {
		write(".cpg", []byte(f.cpg))
	}
	return base + ext(".shp")
}
