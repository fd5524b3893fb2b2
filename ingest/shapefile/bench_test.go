package shapefile

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"frameindex/ingest/crs"
)

// writePoints writes an n-point shapefile (fields id N(10), name C(24),
// value N(12,3)) in the system sys, points spread over Nigeria, and
// returns its .shp path.
func writePoints(tb testing.TB, dir string, n int, sys *crs.System, prj string) string {
	tb.Helper()
	base := filepath.Join(dir, "points")
	shpF, err := os.Create(base + ".shp")
	if err != nil {
		tb.Fatal(err)
	}
	shxF, _ := os.Create(base + ".shx")
	dbfF, _ := os.Create(base + ".dbf")
	shp, shx, dbf := bufio.NewWriter(shpF), bufio.NewWriter(shxF), bufio.NewWriter(dbfF)
	shp.Write(shpFileHeader(typePoint, 100+28*n))
	shx.Write(shpFileHeader(typePoint, 100+8*n))
	f := fixture{fields: []dbfField{{"id", 'N', 10, 0}, {"name", 'C', 24, 0}, {"value", 'N', 12, 3}}}
	hdr := encodeDBF(f) // header, terminator and EOF marker for zero rows
	binary.LittleEndian.PutUint32(hdr[4:], uint32(n))
	dbf.Write(hdr[:len(hdr)-1])
	var rec [28]byte
	for i := 0; i < n; i++ {
		lon := 3 + 11*float64(i%1000)/1000
		lat := 4.5 + 9*float64(i/1000%1000)/1000
		x, y := lon, lat
		if sys != nil && !sys.IsWGS84() {
			x, y = forwardForTest(sys, lon, lat)
		}
		binary.BigEndian.PutUint32(rec[0:], uint32(i+1))
		binary.BigEndian.PutUint32(rec[4:], 10)
		binary.LittleEndian.PutUint32(rec[8:], typePoint)
		binary.LittleEndian.PutUint64(rec[12:], math.Float64bits(x))
		binary.LittleEndian.PutUint64(rec[20:], math.Float64bits(y))
		shp.Write(rec[:])
		var ix [8]byte
		binary.BigEndian.PutUint32(ix[0:], uint32((100+28*i)/2))
		binary.BigEndian.PutUint32(ix[4:], 10)
		shx.Write(ix[:])
		fmt.Fprintf(dbf, " %10d%-24s%12.3f", i, fmt.Sprintf("facility %d", i), float64(i)/7)
	}
	dbf.WriteByte(0x1A)
	for _, w := range []*bufio.Writer{shp, shx, dbf} {
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	shpF.Close()
	shxF.Close()
	dbfF.Close()
	os.WriteFile(base+".prj", []byte(prj), 0o644)
	return base + ".shp"
}

// forwardForTest projects lon/lat to the system by Newton iteration on
// ToWGS84 (the benchmark only needs plausible projected coordinates).
func forwardForTest(sys *crs.System, lon, lat float64) (float64, float64) {
	x, y := 500000.0, lat*110000
	for k := 0; k < 20; k++ {
		l, p := sys.ToWGS84(x, y)
		x += (lon - l) * 110000 * math.Cos(lat*math.Pi/180)
		y += (lat - p) * 110000
	}
	return x, y
}

// BenchmarkRead1MPoints reads a 1,000,000-point shapefile with three fields
// to GeoJSON features; points/s is the figure of merit (target 100,000/s).
func BenchmarkRead1MPoints(b *testing.B) {
	const n = 1_000_000
	for _, tc := range []struct {
		name string
		code int
		prj  string
	}{
		{"EPSG:4326", 4326, prjWGS84},
		{"EPSG:32632", 32632, prjUTM32N},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sys, _ := crs.FromEPSG(tc.code)
			p := writePoints(b, b.TempDir(), n, sys, tc.prj)
			b.ReportAllocs()
			b.ResetTimer()
			var bytesOut int64
			for b.Loop() {
				r, err := Open(p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				count := 0
				for {
					f, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					bytesOut += int64(len(f.JSON))
					count++
				}
				r.Close()
				if count != n {
					b.Fatalf("%d features", count)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			b.ReportMetric(float64(bytesOut)/float64(b.N)/n, "JSON-bytes/point")
		})
	}
}
