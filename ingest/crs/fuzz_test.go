package crs

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFromWKT checks that no text makes the WKT reader or Parse panic or
// hang, and that a system it accepts transforms without panicking.
func FuzzFromWKT(f *testing.F) {
	files, _ := filepath.Glob("testdata/wkt/*")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(minna33WKT)
	f.Add(`COMPD_CS["x",GEOGCS["g",DATUM["D_Minna",SPHEROID["s",6378249.145,293.465],TOWGS84[1,2,3]]],VERT_CS["h"]]`)
	f.Add(`GEOGCS("x",DATUM("WGS84"))`)
	f.Add(`BOUNDCRS[SOURCECRS[GEOGCRS["m",DATUM["Minna"]]],TARGETCRS[GEOGCRS["w",DATUM["WGS84"]]],ABRIDGEDTRANSFORMATION["t",METHOD["Coordinate Frame"],PARAMETER["X-axis rotation",1,ANGLEUNIT["r",1]]]]`)
	f.Add("urn:ogc:def:crs:EPSG::26392")
	f.Add("EPSG:")
	f.Fuzz(func(t *testing.T, s string) {
		sys, err := Parse(s)
		if err != nil {
			return
		}
		if sys == nil {
			t.Fatal("nil system without error")
		}
		lon, lat := sys.ToWGS84(500000, 1000000)
		_ = math.IsNaN(lon + lat)
		_ = sys.Transformation(1, 2)
	})
}
