package crs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// ErrUnsupported is wrapped by every error that refuses a coordinate system
// this package does not transform.
var ErrUnsupported = errors.New("unsupported coordinate system")

// System is a supported coordinate reference system and its transformation
// to WGS 84 longitude/latitude. A System is immutable: share it freely
// between goroutines.
type System struct {
	// Code is the EPSG code (4326 for OGC CRS84 too; 26333 for Minna /
	// UTM zone 33N, which the EPSG dataset does not define).
	Code int
	// Name is the EPSG name, e.g. "Minna / UTM zone 32N".
	Name string
	// Datum is "WGS 84" or "Minna".
	Datum string

	proj  *tmerc      // nil for geographic systems
	shift *datumShift // nil on WGS 84
	// towgs84 is set when the shift came from a WKT TOWGS84 clause.
	towgs84 bool
}

// IsWGS84 reports whether coordinates are already WGS 84 longitude/latitude
// (EPSG:4326 or CRS84), so that ToWGS84 is the identity.
func (s *System) IsWGS84() bool { return s.proj == nil && s.shift == nil }

// String returns "EPSG:n (name)".
func (s *System) String() string { return fmt.Sprintf("EPSG:%d (%s)", s.Code, s.Name) }

// ToWGS84 transforms x, y in the system to WGS 84 longitude and latitude in
// degrees. For geographic systems x is the longitude and y the latitude
// (the order GDAL uses in shapefiles and GeoPackages, whatever the EPSG axis
// order); for projected systems x is the easting and y the northing, in
// metres. Points the projection cannot invert (NaN, infinities, or
// further than about 150° from the central meridian) give NaN results. It
// does not allocate and is safe for concurrent use.
func (s *System) ToWGS84(x, y float64) (lon, lat float64) {
	if s.proj == nil && s.shift == nil {
		return x, y
	}
	var lam, phi float64
	if s.proj != nil {
		lam, phi = s.proj.inverse(x, y)
	} else {
		lam, phi = x*math.Pi/180, y*math.Pi/180
	}
	if s.shift != nil {
		op := s.shift.pick(x, y)
		lam, phi = op.apply(lam, phi)
	}
	return lam * 180 / math.Pi, phi * 180 / math.Pi
}

// Transformation names the datum transformation ToWGS84 applies at x, y:
// "" on WGS 84, else e.g. "EPSG:1168 Minna to WGS 84 (2), accuracy 15 m".
func (s *System) Transformation(x, y float64) string {
	if s.shift == nil {
		return ""
	}
	op := s.shift.pick(x, y)
	if s.towgs84 || op.ballpark {
		return op.name
	}
	return fmt.Sprintf("EPSG:%d %s, accuracy %g m", op.code, op.name, op.accuracy)
}

// def describes a supported system.
type def struct {
	code   int
	name   string
	minna  bool
	tm     bool
	lat0   float64
	lon0   float64
	k0     float64
	fe, fn float64
	// esri are normalised ESRI / GDAL names (see normName).
	esri []string
}

var defs = []def{
	{code: 4326, name: "WGS 84", esri: []string{"gcswgs1984", "wgs84", "wgs1984"}},
	{code: 4263, name: "Minna", minna: true, esri: []string{"gcsminna", "minna"}},
	utm(32631, 31, false), utm(32632, 32, false), utm(32633, 33, false),
	utm(26331, 31, true), utm(26332, 32, true), utm(26333, 33, true),
	{code: 26391, name: "Minna / Nigeria West Belt", minna: true, tm: true, lat0: 4, lon0: 4.5, k0: 0.99975, fe: 230738.26,
		esri: []string{"minnanigeriawestbelt", "nigeriawestbelt"}},
	{code: 26392, name: "Minna / Nigeria Mid Belt", minna: true, tm: true, lat0: 4, lon0: 8.5, k0: 0.99975, fe: 670553.98,
		esri: []string{"minnanigeriamidbelt", "nigeriamidbelt"}},
	{code: 26393, name: "Minna / Nigeria East Belt", minna: true, tm: true, lat0: 4, lon0: 12.5, k0: 0.99975, fe: 1110369.7,
		esri: []string{"minnanigeriaeastbelt", "nigeriaeastbelt"}},
}

func utm(code, zone int, minna bool) def {
	d := def{code: code, tm: true, minna: minna, lon0: float64(zone*6 - 183), k0: 0.9996, fe: 500000}
	z := strconv.Itoa(zone)
	if minna {
		d.name = "Minna / UTM zone " + z + "N"
		d.esri = []string{"minnautmzone" + z + "n"}
	} else {
		d.name = "WGS 84 / UTM zone " + z + "N"
		d.esri = []string{"wgs1984utmzone" + z + "n", "wgs84utmzone" + z + "n"}
	}
	return d
}

var (
	buildOnce sync.Once
	byCode    map[int]*System
	byName    map[string]int
)

func build() {
	byCode = map[int]*System{}
	byName = map[string]int{}
	for _, d := range defs {
		byCode[d.code] = d.system(nil)
		for _, n := range d.esri {
			byName[n] = d.code
		}
		byName[normName(d.name)] = d.code
	}
}

// system builds the System of d; a non-nil towgs84 replaces the EPSG
// candidate transformations by that single Helmert transformation.
func (d def) system(towgs84 *helmert) *System {
	s := &System{Code: d.code, Name: d.name, Datum: "WGS 84"}
	if d.tm {
		el := wgs84Ellipsoid
		if d.minna {
			el = clarke1880RGS
		}
		s.proj = newTmerc(el, d.lat0, d.lon0, d.k0, d.fe, d.fn)
	}
	if d.minna {
		s.Datum = "Minna"
		if towgs84 != nil {
			s.towgs84 = true
			s.shift = &datumShift{cands: []candidate{{
				op:   &shiftOp{name: "TOWGS84 from the WKT", h: *towgs84},
				minX: math.Inf(-1), minY: math.Inf(-1), maxX: math.Inf(1), maxY: math.Inf(1),
			}}}
			return s
		}
		s.shift = newDatumShift(minnaOrder[d.code], s.proj)
	}
	return s
}

func defByCode(code int) (def, bool) {
	for _, d := range defs {
		if d.code == code {
			return d, true
		}
	}
	return def{}, false
}

// Supported lists the EPSG codes this package transforms, in ascending order.
func Supported() []int {
	return []int{4263, 4326, 26331, 26332, 26333, 26391, 26392, 26393, 32631, 32632, 32633}
}

// FromEPSG returns the system of an EPSG code. Errors wrap ErrUnsupported
// and name the code. Safe for concurrent use; the result is shared.
func FromEPSG(code int) (*System, error) {
	buildOnce.Do(build)
	if s, ok := byCode[code]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("EPSG:%d: %w (supported: WGS 84 EPSG:4326/CRS84, "+
		"WGS 84 / UTM 31N-33N EPSG:32631-32633, Minna EPSG:4263, Minna / UTM 31N-33N EPSG:26331-26333, "+
		"Minna / Nigeria West, Mid, East Belt EPSG:26391-26393)", code, ErrUnsupported)
}

// Parse identifies a system from "EPSG:32632", "urn:ogc:def:crs:EPSG::32632"
// (any version), "http://www.opengis.net/def/crs/EPSG/0/32632", a bare
// code, the CRS84 names ("CRS84", "OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84"
// and its http form), or WKT (see FromWKT). Errors wrap ErrUnsupported for
// recognised but unsupported systems. Safe for concurrent use.
func Parse(s string) (*System, error) {
	t := strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if t == "" {
		return nil, errors.New("empty coordinate system")
	}
	if i := strings.IndexAny(t, "[("); i > 0 && isWKTKeyword(t[:i]) {
		return FromWKT(t)
	}
	u := strings.ToUpper(t)
	switch u {
	case "CRS84", "OGC:CRS84", "URN:OGC:DEF:CRS:OGC:1.3:CRS84", "URN:OGC:DEF:CRS:OGC::CRS84",
		"HTTP://WWW.OPENGIS.NET/DEF/CRS/OGC/1.3/CRS84", "HTTPS://WWW.OPENGIS.NET/DEF/CRS/OGC/1.3/CRS84":
		return crs84(), nil
	}
	code := ""
	switch {
	case strings.HasPrefix(u, "EPSG:"):
		code = strings.TrimPrefix(strings.TrimPrefix(u, "EPSG:"), ":")
	case strings.HasPrefix(u, "URN:OGC:DEF:CRS:EPSG:"):
		rest := strings.TrimPrefix(u, "URN:OGC:DEF:CRS:EPSG:")
		if i := strings.LastIndexByte(rest, ':'); i >= 0 {
			code = rest[i+1:]
		}
	case strings.HasPrefix(u, "HTTP://WWW.OPENGIS.NET/DEF/CRS/EPSG/"),
		strings.HasPrefix(u, "HTTPS://WWW.OPENGIS.NET/DEF/CRS/EPSG/"):
		if i := strings.LastIndexByte(u, '/'); i >= 0 {
			code = u[i+1:]
		}
	default:
		code = u
	}
	n, err := strconv.Atoi(code)
	if err != nil || n <= 0 || code[0] == '+' {
		return nil, fmt.Errorf("coordinate system %q: want EPSG:code, an OGC URN or URL, CRS84, or WKT", clip(t))
	}
	return FromEPSG(n)
}

var crs84Once = sync.OnceValue(func() *System {
	return &System{Code: 4326, Name: "WGS 84 (CRS84)", Datum: "WGS 84"}
})

func crs84() *System { return crs84Once() }

// normName lowercases a name and keeps only letters and digits, so that
// "WGS_1984_UTM_Zone_32N", "WGS 84 / UTM zone 32N" and "wgs84utmzone32n"
// compare by their letters.
func normName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return string(b)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
