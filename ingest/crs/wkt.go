package crs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxWKT bounds the text FromWKT reads: a .prj is a few hundred bytes, a
// WKT2 with every ID and usage a few kilobytes.
const (
	maxWKT      = 1 << 20
	maxWKTDepth = 32
)

// wktNode is one KEYWORD[arg, …] of a WKT text. Arguments are quoted
// strings, numbers, bare words (AXIS directions, CS types) or nodes.
type wktNode struct {
	key  string // upper case
	args []wktArg
}

type wktArg struct {
	str   string // quoted string or bare word
	num   float64
	isNum bool
	node  *wktNode
}

type wktParser struct {
	s   string
	pos int
}

// parseWKT parses a WKT1 (OGC 01-009, ESRI) or WKT2 (ISO 19162) text into
// its tree. Both bracket kinds are accepted; WKT2's doubled quote inside a
// string is one quote.
func parseWKT(s string) (*wktNode, error) {
	if len(s) > maxWKT {
		return nil, fmt.Errorf("WKT is %d bytes, more than %d", len(s), maxWKT)
	}
	p := &wktParser{s: s}
	p.space()
	n, err := p.node(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.s) {
		return nil, p.errorf("unexpected text after the closing bracket")
	}
	return n, nil
}

func (p *wktParser) errorf(format string, a ...any) error {
	return fmt.Errorf("WKT at byte %d: %s", p.pos, fmt.Sprintf(format, a...))
}

func (p *wktParser) space() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.pos++
		default:
			return
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

func (p *wktParser) word() string {
	start := p.pos
	for p.pos < len(p.s) && isWordByte(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// node parses KEYWORD[ … ] at the current position.
func (p *wktParser) node(depth int) (*wktNode, error) {
	if depth > maxWKTDepth {
		return nil, p.errorf("nested more than %d deep", maxWKTDepth)
	}
	key := p.word()
	if key == "" {
		return nil, p.errorf("want a keyword")
	}
	p.space()
	if p.pos >= len(p.s) || (p.s[p.pos] != '[' && p.s[p.pos] != '(') {
		return nil, p.errorf("want [ after %s", key)
	}
	closing := byte(']')
	if p.s[p.pos] == '(' {
		closing = ')'
	}
	p.pos++
	n := &wktNode{key: strings.ToUpper(key)}
	for {
		p.space()
		if p.pos >= len(p.s) {
			return nil, p.errorf("%s is not closed", key)
		}
		if p.s[p.pos] == closing && len(n.args) == 0 {
			p.pos++
			return n, nil
		}
		a, err := p.arg(depth)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, a)
		p.space()
		if p.pos >= len(p.s) {
			return nil, p.errorf("%s is not closed", key)
		}
		switch c := p.s[p.pos]; {
		case c == ',':
			p.pos++
		case c == closing:
			p.pos++
			return n, nil
		default:
			return nil, p.errorf("want , or %c in %s, got %q", closing, key, c)
		}
	}
}

func (p *wktParser) arg(depth int) (wktArg, error) {
	c := p.s[p.pos]
	switch {
	case c == '"':
		var b strings.Builder
		p.pos++
		for {
			i := strings.IndexByte(p.s[p.pos:], '"')
			if i < 0 {
				return wktArg{}, p.errorf("string is not closed")
			}
			b.WriteString(p.s[p.pos : p.pos+i])
			p.pos += i + 1
			if p.pos < len(p.s) && p.s[p.pos] == '"' { // WKT2 "" escape
				b.WriteByte('"')
				p.pos++
				continue
			}
			return wktArg{str: b.String()}, nil
		}
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.s) && strings.IndexByte("0123456789+-.eE", p.s[p.pos]) >= 0 {
			p.pos++
		}
		v, err := strconv.ParseFloat(p.s[start:p.pos], 64)
		if err != nil {
			return wktArg{}, p.errorf("bad number %q", p.s[start:p.pos])
		}
		return wktArg{num: v, isNum: true}, nil
	case isWordByte(c):
		save := p.pos
		w := p.word()
		p.space()
		if p.pos < len(p.s) && (p.s[p.pos] == '[' || p.s[p.pos] == '(') {
			p.pos = save
			n, err := p.node(depth + 1)
			return wktArg{node: n}, err
		}
		return wktArg{str: w}, nil
	}
	return wktArg{}, p.errorf("unexpected %q", c)
}

// name is the node's first argument when it is a string.
func (n *wktNode) name() string {
	if n == nil {
		return ""
	}
	if len(n.args) > 0 && n.args[0].node == nil && !n.args[0].isNum {
		return n.args[0].str
	}
	return ""
}

// child returns the first direct child node with one of the keywords.
func (n *wktNode) child(keys ...string) *wktNode {
	for _, a := range n.args {
		if a.node == nil {
			continue
		}
		for _, k := range keys {
			if a.node.key == k {
				return a.node
			}
		}
	}
	return nil
}

// nums returns the numeric arguments of n.
func (n *wktNode) nums() []float64 {
	var v []float64
	for _, a := range n.args {
		if a.isNum {
			v = append(v, a.num)
		}
	}
	return v
}

// num returns the i-th numeric argument.
func (n *wktNode) num(i int) (float64, bool) {
	v := n.nums()
	if i < len(v) {
		return v[i], true
	}
	return 0, false
}

// epsgID returns the authority and code of the node's own AUTHORITY (WKT1)
// or ID (WKT2) child, if any.
func (n *wktNode) authority() (auth, code string) {
	for _, a := range n.args {
		if a.node == nil || (a.node.key != "AUTHORITY" && a.node.key != "ID") || len(a.node.args) < 2 {
			continue
		}
		c := a.node.args[1]
		code = c.str
		if c.isNum {
			code = strconv.FormatFloat(c.num, 'f', -1, 64)
		}
		return strings.ToUpper(a.node.args[0].str), code
	}
	return "", ""
}

var (
	projectedKeys  = []string{"PROJCS", "PROJCRS", "PROJECTEDCRS"}
	geographicKeys = []string{"GEOGCS", "GEOGCRS", "GEOGRAPHICCRS", "GEODCRS", "GEODETICCRS", "BASEGEOGCRS", "BASEGEODCRS"}
	otherCRSKeys   = []string{"GEOCCS", "VERT_CS", "VERTCRS", "VERTICALCRS", "LOCAL_CS", "ENGCRS", "ENGINEERINGCRS",
		"COMPD_CS", "COMPOUNDCRS", "BOUNDCRS", "FITTED_CS", "IMAGECRS", "PARAMETRICCRS", "TIMECRS", "DERIVEDPROJCRS"}
)

func isOneOf(k string, keys []string) bool {
	for _, x := range keys {
		if k == x {
			return true
		}
	}
	return false
}

func isWKTKeyword(s string) bool {
	k := strings.ToUpper(strings.TrimSpace(s))
	return isOneOf(k, projectedKeys) || isOneOf(k, geographicKeys) || isOneOf(k, otherCRSKeys)
}

// FromWKT identifies a system from OGC WKT1, ESRI WKT (.prj files) or WKT2.
// The EPSG code of the root AUTHORITY/ID decides when present; otherwise the
// datum (by name, checked against the ellipsoid), the projection method and
// its parameters are matched, and the ESRI/GDAL names ("WGS_1984_UTM_Zone_32N",
// "Minna_UTM_Zone_32N", "Minna_Nigeria_West_Belt", "GCS_WGS_1984", …) serve
// when parameters are missing. A Minna datum with a TOWGS84 clause (or a WKT2
// BOUNDCRS to WGS 84) uses that transformation everywhere, as GDAL does.
// Errors name the system by its EPSG code or WKT name and wrap ErrUnsupported
// when the WKT is read but the system is not supported. Safe for concurrent
// use.
func FromWKT(wkt string) (*System, error) {
	root, err := parseWKT(strings.TrimSpace(strings.TrimPrefix(wkt, "\ufeff")))
	if err != nil {
		return nil, err
	}
	return identify(root, nil)
}

func unsupported(n *wktNode, why string) error {
	desc := fmt.Sprintf("%q", n.name())
	if auth, code := n.authority(); auth != "" {
		desc += fmt.Sprintf(" (%s:%s)", auth, code)
	}
	if why != "" {
		why = " (" + why + ")"
	}
	return fmt.Errorf("%s%s: %w; supported: EPSG:4326/CRS84, 4263, 32631-32633, 26331-26333, 26391-26393",
		desc, why, ErrUnsupported)
}

// identify finds the system of a CRS node; bound carries the abridged
// transformation of an enclosing WKT2 BOUNDCRS.
func identify(n *wktNode, bound *helmert) (*System, error) {
	switch {
	case n.key == "BOUNDCRS":
		src := n.child("SOURCECRS")
		if src == nil || len(src.args) == 0 || src.args[0].node == nil {
			return nil, errors.New("WKT BOUNDCRS without SOURCECRS")
		}
		h, err := abridged(n)
		if err != nil {
			return nil, err
		}
		return identify(src.args[0].node, h)
	case n.key == "COMPD_CS" || n.key == "COMPOUNDCRS":
		for _, a := range n.args {
			if a.node != nil && (isOneOf(a.node.key, projectedKeys) || isOneOf(a.node.key, geographicKeys)) {
				return identify(a.node, bound)
			}
		}
		return nil, unsupported(n, "no horizontal part")
	case isOneOf(n.key, projectedKeys):
		return identifyProjected(n, bound)
	case isOneOf(n.key, geographicKeys):
		return identifyGeographic(n, bound)
	case isOneOf(n.key, otherCRSKeys):
		return nil, unsupported(n, "not a geographic or projected system")
	}
	return nil, fmt.Errorf("WKT starts with %s: not a coordinate system", n.key)
}

// fromAuthority returns the system of the node's EPSG (or OGC CRS84)
// identifier; ok is false when the node carries none.
func fromAuthority(n *wktNode, towgs84 *helmert) (s *System, ok bool, err error) {
	auth, code := n.authority()
	switch auth {
	case "OGC":
		if strings.EqualFold(code, "CRS84") {
			return crs84(), true, nil
		}
		return nil, true, unsupported(n, "")
	case "EPSG":
		c, err := strconv.Atoi(code)
		if err != nil {
			return nil, true, unsupported(n, "")
		}
		d, found := defByCode(c)
		if !found {
			return nil, true, unsupported(n, "")
		}
		if towgs84 != nil && d.minna {
			return d.system(towgs84), true, nil
		}
		s, err := FromEPSG(c)
		return s, true, err
	}
	return nil, false, nil
}

// datumOf tells WGS 84 from Minna by the datum (or WKT2 ensemble) name and
// checks the ellipsoid and prime meridian. towgs84 is the datum's TOWGS84
// when it is not all zeros. A datum of another name is accepted when a
// TOWGS84 clause defines its transformation fully: all zeros on the WGS 84
// ellipsoid (WGS 84), or any values on the Clarke 1880 (RGS) ellipsoid
// (treated as Minna with that transformation, as GDAL would apply it).
//
// outer is the system named in errors; bound is the abridged transformation
// of an enclosing WKT2 BOUNDCRS, which counts as a TOWGS84 clause.
func datumOf(outer, geog *wktNode, bound *helmert) (minna bool, towgs84 *helmert, err error) {
	d := geog.child("DATUM", "GEODETICDATUM", "TRF", "ENSEMBLE")
	if d == nil {
		return false, nil, unsupported(outer, "no datum")
	}
	if pm := geog.child("PRIMEM", "PRIMEMERIDIAN"); pm != nil {
		if v, ok := pm.num(0); ok && v != 0 {
			return false, nil, unsupported(outer, fmt.Sprintf("prime meridian %q", pm.name()))
		}
	}
	var a, rf float64
	hasEllipsoid := false
	if el := d.child("SPHEROID", "ELLIPSOID"); el != nil {
		var ok1, ok2 bool
		a, ok1 = el.num(0)
		rf, ok2 = el.num(1)
		if f := el.child("LENGTHUNIT"); f != nil {
			if k, ok := f.num(0); ok {
				a *= k
			}
		}
		hasEllipsoid = ok1 && ok2
	}
	is := func(e ellipsoid) bool {
		return hasEllipsoid && math.Abs(a-e.a) < 0.001 && math.Abs(rf-e.rf) < 1e-6
	}
	hasTowgs84, zero := false, true
	if t := d.child("TOWGS84"); t != nil {
		v := t.nums()
		if len(v) != 3 && len(v) != 7 {
			return false, nil, fmt.Errorf("WKT TOWGS84 of datum %q has %d values, want 3 or 7", d.name(), len(v))
		}
		v = append(v, 0, 0, 0, 0)[:7]
		for _, x := range v {
			zero = zero && x == 0
		}
		h := newHelmert(v[0], v[1], v[2], v[3], v[4], v[5], v[6])
		towgs84, hasTowgs84 = &h, true
	}
	if bound != nil {
		towgs84, hasTowgs84 = bound, true
		zero = *bound == newHelmert(0, 0, 0, 0, 0, 0, 0)
	}
	name := d.name()
	if len(name) > 2 && strings.EqualFold(name[:2], "D_") {
		name = name[2:]
	}
	switch normName(name) {
	case "wgs1984", "wgs84", "worldgeodeticsystem1984", "worldgeodeticsystem1984ensemble":
		if hasEllipsoid && !is(wgs84Ellipsoid) {
			return false, nil, unsupported(outer, fmt.Sprintf("datum %q on an ellipsoid of %g m, 1/%g", d.name(), a, rf))
		}
		if !zero {
			return false, nil, unsupported(outer, "WGS 84 datum with a non-zero TOWGS84")
		}
		return false, nil, nil
	case "minna":
		if hasEllipsoid && !is(clarke1880RGS) {
			return false, nil, unsupported(outer, fmt.Sprintf("datum %q on an ellipsoid of %g m, 1/%g", d.name(), a, rf))
		}
		return true, towgs84, nil
	}
	switch {
	case hasTowgs84 && zero && is(wgs84Ellipsoid):
		return false, nil, nil
	case hasTowgs84 && is(clarke1880RGS):
		return true, towgs84, nil
	}
	return false, nil, unsupported(outer, fmt.Sprintf("datum %q", d.name()))
}

// angleUnit returns the radians per unit of a geographic CRS's angular unit
// (WKT1 UNIT child, WKT2 ANGLEUNIT on the CS axes), or π/180 when absent.
func angleUnit(geog *wktNode) float64 {
	if u := geog.child("UNIT", "ANGLEUNIT"); u != nil {
		if k, ok := u.num(0); ok && k > 0 {
			return k
		}
	}
	if cs := geog.child("CS"); cs != nil {
		for _, a := range geog.args {
			if a.node != nil && a.node.key == "AXIS" {
				if u := a.node.child("ANGLEUNIT", "UNIT"); u != nil {
					if k, ok := u.num(0); ok && k > 0 {
						return k
					}
				}
			}
		}
	}
	return math.Pi / 180
}

func identifyGeographic(n *wktNode, bound *helmert) (*System, error) {
	if cs := n.child("CS"); cs != nil && len(cs.args) > 0 && !strings.EqualFold(cs.args[0].str, "ellipsoidal") {
		return nil, unsupported(n, "coordinate system type "+cs.args[0].str)
	}
	minna, towgs84, err := datumOf(n, n, bound)
	if s, ok, aerr := fromAuthority(n, towgs84); ok {
		return s, aerr
	}
	if err != nil {
		return nil, err
	}
	if k := angleUnit(n); math.Abs(k-math.Pi/180) > 1e-12 {
		return nil, unsupported(n, fmt.Sprintf("angular unit %g rad", k))
	}
	code := 4326
	if minna {
		code = 4263
	}
	d, _ := defByCode(code)
	if towgs84 != nil {
		return d.system(towgs84), nil
	}
	return FromEPSG(code)
}

// param names, normalised, of the transverse Mercator parameters in WKT1,
// ESRI and WKT2 spelling, and their EPSG parameter codes.
var tmParams = map[string]string{
	"latitudeoforigin": "lat0", "latitudeofnaturalorigin": "lat0", "8801": "lat0",
	"centralmeridian": "lon0", "longitudeofnaturalorigin": "lon0", "8802": "lon0",
	"scalefactor": "k0", "scalefactoratnaturalorigin": "k0", "8805": "k0",
	"falseeasting": "fe", "8806": "fe",
	"falsenorthing": "fn", "8807": "fn",
}

func identifyProjected(n *wktNode, bound *helmert) (*System, error) {
	geog := n.child(geographicKeys...)
	if geog == nil {
		if s, ok, err := fromAuthority(n, nil); ok {
			return s, err
		}
		return nil, unsupported(n, "no geographic system")
	}
	minna, towgs84, err := datumOf(n, geog, bound)
	if s, ok, aerr := fromAuthority(n, towgs84); ok {
		return s, aerr
	}
	if err != nil {
		return nil, err
	}

	// Method: WKT1 PROJECTION["Transverse_Mercator"], WKT2
	// CONVERSION[…, METHOD["Transverse Mercator", ID["EPSG",9807]]].
	holder := n
	method := ""
	if p := n.child("PROJECTION"); p != nil {
		method = p.name()
	} else if c := n.child("CONVERSION"); c != nil {
		holder = c
		if m := c.child("METHOD", "PROJECTION"); m != nil {
			method = m.name()
			if auth, code := m.authority(); auth == "EPSG" && code == "9807" {
				method = "Transverse Mercator"
			}
		}
	}
	if normName(method) != "transversemercator" {
		return nil, unsupported(n, fmt.Sprintf("projection %q", method))
	}

	// Units. WKT1: angles in the GEOGCS unit, lengths in the PROJCS UNIT.
	// WKT2: each parameter carries its unit.
	angle := angleUnit(geog) / (math.Pi / 180) // degrees per unit
	length := 1.0
	if u := n.child("UNIT", "LENGTHUNIT"); u != nil {
		if k, ok := u.num(0); ok {
			length = k
		}
	} else if n.child("CS") != nil {
		for _, a := range n.args {
			if a.node != nil && a.node.key == "AXIS" {
				if u := a.node.child("LENGTHUNIT", "UNIT"); u != nil {
					if k, ok := u.num(0); ok {
						length = k
					}
				}
				break
			}
		}
	}
	if math.Abs(length-1) > 1e-9 {
		return nil, unsupported(n, fmt.Sprintf("linear unit of %g m", length))
	}
	vals := map[string]float64{}
	for _, a := range holder.args {
		if a.node == nil || a.node.key != "PARAMETER" {
			continue
		}
		p := a.node
		key := tmParams[normName(p.name())]
		if auth, code := p.authority(); key == "" && auth == "EPSG" {
			key = tmParams[code]
		}
		v, ok := p.num(0)
		if key == "" || !ok {
			continue
		}
		switch key {
		case "lat0", "lon0":
			if u := p.child("ANGLEUNIT", "UNIT"); u != nil {
				if k, ok := u.num(0); ok {
					v *= k / (math.Pi / 180)
				}
			} else {
				v *= angle
			}
		case "fe", "fn":
			if u := p.child("LENGTHUNIT", "UNIT"); u != nil {
				if k, ok := u.num(0); ok {
					v *= k
				}
			} else {
				v *= length
			}
		}
		vals[key] = v
	}
	for _, d := range defs {
		if !d.tm || d.minna != minna {
			continue
		}
		if len(vals) == 5 {
			if math.Abs(vals["lat0"]-d.lat0) < 1e-9 && math.Abs(vals["lon0"]-d.lon0) < 1e-9 &&
				math.Abs(vals["k0"]-d.k0) < 1e-12 && math.Abs(vals["fe"]-d.fe) < 1e-3 && math.Abs(vals["fn"]-d.fn) < 1e-3 {
				return d.system(towgs84), nil
			}
			continue
		}
		// Parameters missing: fall back on the name.
		for _, e := range d.esri {
			if normName(n.name()) == e || normName(n.name()) == normName(d.name) {
				return d.system(towgs84), nil
			}
		}
	}
	if len(vals) == 5 {
		return nil, unsupported(n, fmt.Sprintf("transverse Mercator on %s with latitude of origin %g, central meridian %g, scale %g, false easting %g, false northing %g",
			map[bool]string{true: "Minna", false: "WGS 84"}[minna], vals["lat0"], vals["lon0"], vals["k0"], vals["fe"], vals["fn"]))
	}
	return nil, unsupported(n, "transverse Mercator parameters missing")
}

// abridged reads the ABRIDGEDTRANSFORMATION of a WKT2 BOUNDCRS to WGS 84.
func abridged(n *wktNode) (*helmert, error) {
	tgt := n.child("TARGETCRS")
	tr := n.child("ABRIDGEDTRANSFORMATION")
	if tgt == nil || tr == nil || len(tgt.args) == 0 || tgt.args[0].node == nil {
		return nil, errors.New("WKT BOUNDCRS without TARGETCRS or ABRIDGEDTRANSFORMATION")
	}
	if minna, _, err := datumOf(tgt.args[0].node, tgt.args[0].node, nil); err != nil || minna {
		return nil, unsupported(tgt.args[0].node, "BOUNDCRS target is not WGS 84")
	}
	methodName := tr.child("METHOD").name()
	method := normName(methodName)
	sign := 1.0
	switch {
	case strings.HasPrefix(method, "positionvector"), strings.HasPrefix(method, "geocentrictranslation"):
	case strings.HasPrefix(method, "coordinateframe"):
		sign = -1
	default:
		return nil, unsupported(n, fmt.Sprintf("BOUNDCRS transformation method %q", methodName))
	}
	var v [7]float64
	names := map[string]int{
		"xaxistranslation": 0, "yaxistranslation": 1, "zaxistranslation": 2,
		"xaxisrotation": 3, "yaxisrotation": 4, "zaxisrotation": 5, "scaledifference": 6,
	}
	for _, a := range tr.args {
		if a.node == nil || a.node.key != "PARAMETER" {
			continue
		}
		i, ok := names[normName(a.node.name())]
		x, ok2 := a.node.num(0)
		if !ok || !ok2 {
			continue
		}
		u := a.node.child("LENGTHUNIT", "ANGLEUNIT", "SCALEUNIT", "UNIT")
		k, hasUnit := 0.0, false
		if u != nil {
			k, hasUnit = u.num(0)
		}
		switch {
		case i < 3 && hasUnit:
			x *= k
		case i < 6 && hasUnit: // to arc-seconds
			x *= k / (math.Pi / (180 * 3600))
		case i == 6 && hasUnit: // to parts per million
			x *= k * 1e6
		case i == 6 && math.Abs(x-1) < 0.01:
			// PROJ writes the abridged scale as the factor 1 + s·10⁻⁶.
			x = (x - 1) * 1e6
		}
		if i >= 3 && i < 6 {
			x *= sign
		}
		v[i] = x
	}
	h := newHelmert(v[0], v[1], v[2], v[3], v[4], v[5], v[6])
	return &h, nil
}
