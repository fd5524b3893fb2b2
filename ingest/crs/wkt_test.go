package crs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files in testdata/wkt are gdalsrsinfo -o wkt1|wkt2|wkt_esri output
// (GDAL 3.6.2).
func TestFromWKTFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/wkt/*")
	if err != nil || len(files) == 0 {
		t.Fatal("no testdata/wkt files")
	}
	want := map[string]int{"crs84": 4326, "bound": 26332, "towgs84": 26332}
	wantErr := map[string]string{
		"3857.wkt1":  "EPSG:3857",
		"3857.esri":  `"WGS_1984_Web_Mercator_Auxiliary_Sphere"`,
		"32634.esri": `"WGS_1984_UTM_Zone_34N"`,
		"2311.esri":  `"WGS_1984_TM_6_NE"`,
		"4978.wkt1":  `"WGS 84" (EPSG:4978) (not a geographic or projected system)`,
	}
	for _, f := range files {
		base := filepath.Base(f)
		stem := strings.TrimSuffix(base, filepath.Ext(base))
		t.Run(base, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := FromWKT(string(b))
			if msg, ok := wantErr[base]; ok {
				if err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("FromWKT = %v, %v; want error containing %s", s, err, msg)
				}
				if !errors.Is(err, ErrUnsupported) {
					t.Fatalf("error %v does not wrap ErrUnsupported", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			code, ok := want[stem]
			if !ok {
				code = atoi(t, stem)
			}
			if s.Code != code {
				t.Fatalf("FromWKT gave EPSG:%d, want %d", s.Code, code)
			}
			if (stem == "bound" || stem == "towgs84") != s.towgs84 {
				t.Fatalf("towgs84 = %v", s.towgs84)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("bad test file stem %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

const esriGeogWGS84 = `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`
const esriGeogMinna = `GEOGCS["GCS_Minna",DATUM["D_Minna",SPHEROID["Clarke_1880_RGS",6378249.145,293.465]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`

func esriTM(name, geog string, fe, lon0, k0, lat0 string) string {
	return `PROJCS["` + name + `",` + geog + `,PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",` + fe +
		`],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",` + lon0 + `],PARAMETER["Scale_Factor",` + k0 +
		`],PARAMETER["Latitude_Of_Origin",` + lat0 + `],UNIT["Meter",1.0]]`
}

func TestFromWKT(t *testing.T) {
	tests := []struct {
		name    string
		wkt     string
		code    int
		wantErr string
	}{
		{"ESRI GCS_WGS_1984", esriGeogWGS84, 4326, ""},
		{"ESRI GCS_Minna", esriGeogMinna, 4263, ""},
		{"ESRI WGS UTM 31N", esriTM("WGS_1984_UTM_Zone_31N", esriGeogWGS84, "500000.0", "3.0", "0.9996", "0.0"), 32631, ""},
		{"ESRI WGS UTM 33N", esriTM("WGS_1984_UTM_Zone_33N", esriGeogWGS84, "500000.0", "15.0", "0.9996", "0.0"), 32633, ""},
		{"ESRI Minna UTM 31N", esriTM("Minna_UTM_Zone_31N", esriGeogMinna, "500000.0", "3.0", "0.9996", "0.0"), 26331, ""},
		{"ESRI Minna UTM 33N", minna33WKT, 26333, ""},
		{"ESRI Minna_Nigeria_West_Belt", esriTM("Minna_Nigeria_West_Belt", esriGeogMinna, "230738.26", "4.5", "0.99975", "4.0"), 26391, ""},
		{"ESRI Minna_Nigeria_Mid_Belt", esriTM("Minna_Nigeria_Mid_Belt", esriGeogMinna, "670553.98", "8.5", "0.99975", "4.0"), 26392, ""},
		{"GDAL Nigeria_East_Belt", esriTM("Nigeria_East_Belt", esriGeogMinna, "1110369.7", "12.5", "0.99975", "4.0"), 26393, ""},
		{"parentheses", strings.NewReplacer("[", "(", "]", ")").Replace(esriGeogWGS84), 4326, ""},
		{"name only", `PROJCS["WGS_1984_UTM_Zone_32N",` + esriGeogWGS84 + `,PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]`, 32632, ""},
		{"params beat name", esriTM("WGS_1984_UTM_Zone_32N", esriGeogWGS84, "500000.0", "21.0", "0.9996", "0.0"), 0, "central meridian 21"},
		{"wrong datum", esriTM("Adindan_UTM_Zone_32N", `GEOGCS["GCS_Adindan",DATUM["D_Adindan",SPHEROID["Clarke_1880_RGS",6378249.145,293.465]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, "500000.0", "9.0", "0.9996", "0.0"), 0, `"Adindan_UTM_Zone_32N" (datum "D_Adindan")`},
		{"Minna name on WGS ellipsoid", `GEOGCS["x",DATUM["D_Minna",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]`, 0, "ellipsoid"},
		{"feet", strings.Replace(esriTM("WGS_1984_UTM_Zone_32N", esriGeogWGS84, "500000.0", "9.0", "0.9996", "0.0"), `UNIT["Meter",1.0]`, `UNIT["Foot_US",0.3048006096012192]`, 1), 0, "linear unit"},
		{"grads", `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Grad",0.01570796326794897]]`, 0, "angular unit"},
		{"Paris meridian", `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Paris",2.337229166666667],UNIT["Degree",0.0174532925199433]]`, 0, "prime meridian"},
		{"mercator", `PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",` + esriGeogWGS84 + `,PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],UNIT["Meter",1.0]]`, 0, `"WGS_1984_Web_Mercator_Auxiliary_Sphere" (projection "Mercator_Auxiliary_Sphere")`},
		{"unknown EPSG wins", `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4979"]]`, 0, "(EPSG:4979)"},
		{"compound", `COMPD_CS["x",` + esriTM("Minna_UTM_Zone_32N", esriGeogMinna, "500000.0", "9.0", "0.9996", "0.0") + `,VERT_CS["h",VERT_DATUM["d",2005]]]`, 26332, ""},
		{"WKT2 OGC CRS84", `GEOGCRS["WGS 84 (CRS84)",ENSEMBLE["World Geodetic System 1984 ensemble",MEMBER["World Geodetic System 1984 (G2139)"],ELLIPSOID["WGS 84",6378137,298.257223563,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",0.0174532925199433]],CS[ellipsoidal,2],AXIS["geodetic longitude (Lon)",east,ORDER[1],ANGLEUNIT["degree",0.0174532925199433]],AXIS["geodetic latitude (Lat)",north,ORDER[2],ANGLEUNIT["degree",0.0174532925199433]],ID["OGC","CRS84"]]`, 4326, ""},
		{"unclosed", `GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984"`, 0, "not closed"},
		{"trailing", esriGeogWGS84 + "]", 0, "after the closing bracket"},
		{"not a crs", `FOO["x"]`, 0, "not a coordinate system"},
		{"bad number", `GEOGCS["x",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0.0,298.257223563]]]`, 0, "bad number"},
		{"deep", strings.Repeat("A[", 40) + strings.Repeat("]", 40), 0, "nested"},
		{"quote escape", `GEOGCRS["W ""84""",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",0.0174532925199433]],CS[ellipsoidal,2],AXIS["latitude",north,ORDER[1],ANGLEUNIT["degree",0.0174532925199433]],AXIS["longitude",east,ORDER[2],ANGLEUNIT["degree",0.0174532925199433]]]`, 4326, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromWKT(tc.wkt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromWKT = %v, %v; want error containing %s", s, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromWKT: %v", err)
			}
			if s.Code != tc.code {
				t.Fatalf("FromWKT gave %v, want EPSG:%d", s, tc.code)
			}
		})
	}
}
