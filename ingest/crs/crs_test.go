package crs

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		code    int
		name    string
		wantErr string
	}{
		{in: "EPSG:32632", code: 32632, name: "WGS 84 / UTM zone 32N"},
		{in: "epsg:26392", code: 26392, name: "Minna / Nigeria Mid Belt"},
		{in: " EPSG::26391 ", code: 26391},
		{in: "urn:ogc:def:crs:EPSG::32632", code: 32632},
		{in: "urn:ogc:def:crs:EPSG:9.8.15:26332", code: 26332},
		{in: "http://www.opengis.net/def/crs/EPSG/0/32633", code: 32633},
		{in: "32631", code: 32631},
		{in: "EPSG:4326", code: 4326, name: "WGS 84"},
		{in: "CRS84", code: 4326, name: "WGS 84 (CRS84)"},
		{in: "OGC:CRS84", code: 4326, name: "WGS 84 (CRS84)"},
		{in: "urn:ogc:def:crs:OGC:1.3:CRS84", code: 4326, name: "WGS 84 (CRS84)"},
		{in: "http://www.opengis.net/def/crs/OGC/1.3/CRS84", code: 4326},
		{in: "EPSG:26333", code: 26333, name: "Minna / UTM zone 33N"},
		{in: "EPSG:4263", code: 4263, name: "Minna"},
		{in: `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, code: 4326},
		{in: "EPSG:3857", wantErr: "EPSG:3857"},
		{in: "urn:ogc:def:crs:EPSG::2154", wantErr: "EPSG:2154"},
		{in: "", wantErr: "empty"},
		{in: "EPSG:abc", wantErr: `"EPSG:abc"`},
		{in: "EPSG:-5", wantErr: `"EPSG:-5"`},
		{in: "+proj=utm +zone=32", wantErr: "want EPSG:code"},
		{in: "PROJCS[", wantErr: "WKT"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			s, err := Parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse(%q) = %v, %v; want error containing %q", tc.in, s, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if s.Code != tc.code || (tc.name != "" && s.Name != tc.name) {
				t.Fatalf("Parse(%q) = %d %q, want %d %q", tc.in, s.Code, s.Name, tc.code, tc.name)
			}
		})
	}
}

func TestFromEPSGUnsupported(t *testing.T) {
	_, err := FromEPSG(3857)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "EPSG:3857") {
		t.Fatalf("FromEPSG(3857) error %v", err)
	}
	for _, c := range Supported() {
		if _, err := FromEPSG(c); err != nil {
			t.Errorf("FromEPSG(%d): %v", c, err)
		}
	}
}

func TestIsWGS84(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{{"EPSG:4326", true}, {"CRS84", true}, {"EPSG:32632", false}, {"EPSG:4263", false}, {"EPSG:26391", false}} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.IsWGS84() != tc.want {
				t.Fatalf("IsWGS84 = %v", !tc.want)
			}
			if tc.want {
				if lon, lat := s.ToWGS84(7.5, 9.25); lon != 7.5 || lat != 9.25 {
					t.Fatalf("identity gave %v %v", lon, lat)
				}
			}
		})
	}
}

// TestToWGS84Known checks values gdaltransform (GDAL 3.6.2, PROJ 9.1.1)
// printed, so that the transformations are checked without GDAL too.
func TestToWGS84Known(t *testing.T) {
	tests := []struct {
		code     int
		x, y     float64
		lon, lat float64
	}{
		{32632, 500000, 1000000, 9, 9.04656246376895},
		{32632, 350000, 600000, 7.64608399704899, 5.42670894015313},
		{32631, 350000, 600000, 1.64608399704898, 5.42670894015313},
		{26332, 500000, 1000000, 8.99929543094989, 9.04764567751517},
		{26332, 350000, 600000, 7.64547119979741, 5.42772699198669},
		{26391, 500000, 1000000, 6.98146869162792, 13.032581272109},
		{26391, 350000, 600000, 5.58533870725198, 9.42582204018464},
		{26392, 350000, 600000, 5.58112238595024, 9.41541206103367},
		{26393, 350000, 600000, 5.59158458823708, 9.35983805321574},
		{26333, 300000, 1200000, 13.169836078473, 10.8511300252485},
		{4263, 7.0, 4.8, 6.99935407744954, 4.80060633092214},
		{4263, 6.9, 5.65, 6.89932030088132, 5.65050319794298},
		{4263, 3.4, 6.45, 3.3992100865475, 6.45049168784645},
	}
	for _, tc := range tests {
		s, err := FromEPSG(tc.code)
		if err != nil {
			t.Fatal(err)
		}
		lon, lat := s.ToWGS84(tc.x, tc.y)
		if d := metres(lon, lat, tc.lon, tc.lat); d > 0.001 {
			t.Errorf("EPSG:%d (%v, %v) = %.9f %.9f, want %.9f %.9f (%.4f m)", tc.code, tc.x, tc.y, lon, lat, tc.lon, tc.lat, d)
		}
	}
}

// TestTransformationChoice pins which EPSG transformation is used where,
// following PROJ 9.1's choice (see datum.go).
func TestTransformationChoice(t *testing.T) {
	tests := []struct {
		code     int
		lon, lat float64 // Minna longitude/latitude of the point
		want     string
	}{
		{4263, 3.4, 6.45, "EPSG:1168"},   // Lagos: whole-Nigeria (2)
		{4263, 7.0, 4.8, "EPSG:1754"},    // Port Harcourt: onshore south (3)
		{4263, 6.9, 5.65, "EPSG:6196"},   // OML 124: inside onshore south, same accuracy, smaller
		{4263, 7.0, 4.1, "EPSG:15493"},   // 4°N-5°N south of (3)'s area
		{4263, 14.66, 11, "EPSG:1167"},   // east of (2)'s area: Cameroon
		{26332, 7.0, 5.0, "EPSG:15706"},  // EPSG gives 26332 an offshore area: (13) sorts first
		{26332, 9.0, 9.0, "EPSG:1168"},   // north of (13)'s area
		{26391, 4.5, 6.5, "EPSG:1754"},   // onshore south beats (2)
		{26392, 9.5, 10.0, "EPSG:1168"},  // Gongola (10) is less accurate
		{26393, 12.0, 11.0, "EPSG:1168"}, //
		{26333, 2.0, 11.0, "Ballpark"},   // outside every area
	}
	for _, tc := range tests {
		s, err := FromEPSG(tc.code)
		if err != nil {
			t.Fatal(err)
		}
		x, y := tc.lon, tc.lat
		if s.proj != nil {
			x, y = s.proj.forward(tc.lon*math.Pi/180, tc.lat*math.Pi/180)
		}
		if got := s.Transformation(x, y); !strings.HasPrefix(got, tc.want) {
			t.Errorf("EPSG:%d at %v°E %v°N: %s, want %s", tc.code, tc.lon, tc.lat, got, tc.want)
		}
	}
	w, _ := FromEPSG(32632)
	if got := w.Transformation(500000, 1000000); got != "" {
		t.Errorf("WGS 84 transformation %q", got)
	}
}

func TestTmercRoundTrip(t *testing.T) {
	for _, code := range []int{32631, 32632, 32633, 26331, 26332, 26333, 26391, 26392, 26393} {
		s, _ := FromEPSG(code)
		for lat := -80.0; lat <= 84; lat += 4 {
			for dl := -20.0; dl <= 20; dl += 2.5 {
				lon := s.proj.lon0*180/math.Pi + dl
				x, y := s.proj.forward(lon*math.Pi/180, lat*math.Pi/180)
				l2, p2 := s.proj.inverse(x, y)
				if d := math.Hypot((l2*180/math.Pi-lon)*math.Cos(lat*math.Pi/180), p2*180/math.Pi-lat) * 111320; d > 1e-6 {
					t.Fatalf("EPSG:%d %v,%v: round trip off by %g m", code, lon, lat, d)
				}
			}
		}
	}
}

func TestToWGS84Invalid(t *testing.T) {
	s, _ := FromEPSG(32632)
	for _, p := range [][2]float64{{math.NaN(), 0}, {0, math.Inf(1)}, {1e12, 1e6}, {500000, 1e12}} {
		if lon, lat := s.ToWGS84(p[0], p[1]); !math.IsNaN(lon) || !math.IsNaN(lat) {
			t.Errorf("ToWGS84(%v, %v) = %v, %v, want NaN", p[0], p[1], lon, lat)
		}
	}
}

func BenchmarkToWGS84(b *testing.B) {
	for _, tc := range []struct {
		code int
		x, y float64
	}{{4326, 7.5, 9.1}, {32632, 350000, 600000}, {26332, 350000, 600000}, {26392, 350000, 600000}, {4263, 7.0, 4.8}} {
		s, _ := FromEPSG(tc.code)
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			var sum float64
			for i := 0; b.Loop(); i++ {
				lon, lat := s.ToWGS84(tc.x+float64(i&1023), tc.y)
				sum += lon + lat
			}
			if sum == 0 {
				b.Fatal("zero")
			}
		})
	}
}
