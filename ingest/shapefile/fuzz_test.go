package shapefile

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"frameindex/ingest/crs"
)

// FuzzSHPRecord feeds arbitrary record contents to the geometry decoder, in
// files of each shape type and in a geographic and a projected system. It
// must not panic and must write valid JSON when it succeeds.
func FuzzSHPRecord(f *testing.F) {
	for _, s := range []shape{
		{1, [][]pt{{{3, 6}}}},
		{11, [][]pt{{{3, 6}}}},
		{8, [][]pt{{{3, 6}, {4, 7}}}},
		{3, [][]pt{{{3, 6}, {4, 7}}, {{5, 5}, {6, 6}}}},
		{5, [][]pt{square(0, 0, 10, true), square(2, 2, 2, false), square(20, 0, 1, true)}},
		{15, [][]pt{square(0, 0, 1, false)[:4]}},
		{0, nil},
	} {
		f.Add(encodeShape(s), uint8(baseType(s.typ)), false)
	}
	f.Add([]byte{5, 0, 0, 0}, uint8(5), true)
	wgs, _ := crs.FromEPSG(4326)
	utm, _ := crs.FromEPSG(26392)
	f.Fuzz(func(t *testing.T, c []byte, fileType uint8, projected bool) {
		sys := wgs
		if projected {
			sys = utm
		}
		g := geomDecoder{sys: sys, fileType: baseType(int32(fileType % 10))}
		if g.fileType < 0 {
			g.fileType = typeNull
		}
		out, err := g.appendGeometry(nil, c)
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid JSON %s", out)
		}
	})
}

// FuzzDBF feeds arbitrary bytes to the dBASE reader: header, field
// descriptors and records.
func FuzzDBF(f *testing.F) {
	f.Add(encodeDBF(fixture{
		fields: []dbfField{{"NAME", 'C', 8, 0}, {"POP", 'N', 6, 0}, {"R", 'F', 8, 3}, {"OK", 'L', 1, 0}, {"D", 'D', 8, 0}},
		rows:   [][]string{{"Kano", "12", "1.5", "T", "20240101"}, {"\xe9", "", "*", "?", "00000000"}, {"x", "1e5", "-.5", "n", ""}},
		ldid:   0x57,
	}))
	f.Add(encodeDBF(fixture{fields: []dbfField{{"A", 'C', 1, 0}}, rows: [][]string{{"a"}}, ldid: 0x03}))
	f.Add([]byte{3, 0, 0, 0, 1, 0, 0, 0, 33, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		hd, dec, err := readDBFHeader(r, "f.dbf", nil)
		if err != nil {
			return
		}
		rec := make([]byte, hd.recordLen)
		for i := 0; i < hd.numRecords && i < 1000; i++ {
			if _, err := io.ReadFull(r, rec); err != nil {
				return
			}
			out, err := hd.appendProperties(nil, rec, dec)
			if err == nil && !json.Valid(out) {
				t.Fatalf("invalid JSON %s", out)
			}
		}
	})
}
