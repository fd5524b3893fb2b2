package handlers

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"frameindex/grid"
)

// Caps and defaults of GET /v1/frames (docs/contract.md §2).
const (
	maxLimit = 5000 // frames a bbox query returns at most; the default limit
	maxIDs   = 100  // ids a query may list, counted before duplicates are removed
)

// param is one name=value pair of a query string, both unescaped. bad is set
// when the value is not valid URL encoding; value then holds it raw.
type param struct {
	key, value string
	bad        bool
}

// query is a parsed query string, pairs in the order sent.
type query []param

// parseQuery splits a raw query string on '&' (';' is not a separator) and
// unescapes names and values ('+' is a space). A pair whose name is not valid
// URL encoding is dropped: it cannot name a parameter of ours. Unlike
// url.ParseQuery it keeps pairs with a badly encoded value, so the caller can
// say which parameter was malformed. It never fails.
func parseQuery(raw string) query {
	if raw == "" {
		return nil
	}
	q := make(query, 0, strings.Count(raw, "&")+1)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := unescape(k)
		if err != nil {
			continue
		}
		if uv, err := unescape(v); err != nil {
			q = append(q, param{key: k, value: v, bad: true})
		} else {
			q = append(q, param{key: k, value: uv})
		}
	}
	return q
}

func unescape(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// count returns how many times the parameter name was sent.
func (q query) count(name string) int {
	n := 0
	for _, p := range q {
		if p.key == name {
			n++
		}
	}
	return n
}

// first returns the first pair named name (the zero param when none).
func (q query) first(name string) param {
	for _, p := range q {
		if p.key == name {
			return p
		}
	}
	return param{}
}

// once returns the single value of a parameter that may be given at most
// once. present is false when it was not sent; err (with the given code) when
// it was sent more than once or is not valid URL encoding.
func (q query) once(name, code string) (value string, present bool, err error) {
	switch n := q.count(name); n {
	case 0:
		return "", false, nil
	case 1:
	default:
		return "", true, newError(code, name+" must be given once; got "+strconv.Itoa(n)+" values")
	}
	p := q.first(name)
	if p.bad {
		return "", true, newError(code, name+" is not valid URL encoding; got "+quoteInput(p.value))
	}
	return p.value, true, nil
}

// quoteInput quotes a client's value for an error message: at most 40 bytes
// (cut on a character boundary, marked with "..."), anything from "svc_sk_" on
// replaced so a key put in the wrong place is not echoed, and non-printing
// characters escaped Go-style so a person can see them.
func quoteInput(s string) string {
	if i := strings.Index(s, keyPrefix); i >= 0 {
		s = s[:i] + keyPrefix + "[redacted]"
	}
	const maxEcho = 40
	if len(s) > maxEcho {
		cut := maxEcho
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

// isDecimal reports whether s is a decimal number in strconv.ParseFloat
// syntax: an optional sign, digits with an optional decimal point (at least
// one digit), and an optional exponent. Hex floats, underscores, "NaN",
// "Inf" and surrounding spaces are not.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseDecimal parses a finite decimal number (see isDecimal). A value too
// small for a float64 reads as zero; one too large is refused.
func parseDecimal(s string) (float64, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	if err != nil && v != 0 { // only underflow to zero is taken as a value
		return 0, false
	}
	return v, true
}

// parseCoord parses the value of lat (limit 90) or lon (limit 180): a finite
// decimal number in [-limit, limit]. Errors are invalid_point and name the
// parameter.
func parseCoord(name, raw string, limit float64) (float64, error) {
	lim := strconv.FormatFloat(limit, 'f', -1, 64)
	v, ok := parseDecimal(raw)
	if !ok {
		return 0, newError(codeInvalidPoint, name+" must be a decimal number of degrees between -"+lim+" and "+lim+"; got "+quoteInput(raw))
	}
	if v < -limit || v > limit {
		return 0, newError(codeInvalidPoint, name+" must be between -"+lim+" and "+lim+" degrees; got "+quoteInput(raw))
	}
	return v, nil
}

// pointQuery reads lat and lon of GET /v1/frames/at: each required, given
// once, in range. Errors are invalid_point.
func pointQuery(q query) (lat, lon float64, err error) {
	for _, c := range [...]struct {
		name  string
		limit float64
		dst   *float64
	}{{"lat", 90, &lat}, {"lon", 180, &lon}} {
		raw, present, err := q.once(c.name, codeInvalidPoint)
		if err != nil {
			return 0, 0, err
		}
		if !present {
			return 0, 0, newError(codeInvalidPoint, c.name+" is required: give lat and lon in decimal degrees, e.g. lat=9.0765&lon=7.3986")
		}
		if *c.dst, err = parseCoord(c.name, raw, c.limit); err != nil {
			return 0, 0, err
		}
	}
	return lat, lon, nil
}

// bboxNames names the four numbers of a bbox, in order.
var bboxNames = [4]string{"minLon", "minLat", "maxLon", "maxLat"}

// parseBBox parses "minLon,minLat,maxLon,maxLat": four finite decimal
// numbers, each optionally surrounded by spaces, longitudes in [-180, 180],
// latitudes in [-90, 90], minLon <= maxLon and minLat <= maxLat (a line or a
// point is a valid box; a box across the antimeridian is not). Errors are
// invalid_bbox and say which rule failed.
func parseBBox(raw string) (grid.Box, error) {
	if strings.Trim(raw, " ") == "" {
		return grid.Box{}, newError(codeInvalidBBox, "bbox is empty: give bbox=minLon,minLat,maxLon,maxLat in decimal degrees")
	}
	if n := strings.Count(raw, ",") + 1; n != 4 {
		return grid.Box{}, newError(codeInvalidBBox, "bbox must be four comma-separated numbers minLon,minLat,maxLon,maxLat; got "+strconv.Itoa(n)+" values")
	}
	var v [4]float64
	rest := raw
	for i := range v {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		part = strings.Trim(part, " ")
		f, ok := parseDecimal(part)
		if !ok {
			return grid.Box{}, newError(codeInvalidBBox, "bbox "+bboxNames[i]+" must be a decimal number of degrees; got "+quoteInput(part))
		}
		limit, lim := 180.0, "180"
		if i%2 == 1 {
			limit, lim = 90, "90"
		}
		if f < -limit || f > limit {
			return grid.Box{}, newError(codeInvalidBBox, "bbox "+bboxNames[i]+" must be between -"+lim+" and "+lim+" degrees; got "+quoteInput(part))
		}
		v[i] = f
	}
	if v[0] > v[2] {
		return grid.Box{}, newError(codeInvalidBBox, "bbox minLon ("+fmtNum(v[0])+") is east of maxLon ("+fmtNum(v[2])+"): the order is minLon,minLat,maxLon,maxLat, and a box across the antimeridian is not supported")
	}
	if v[1] > v[3] {
		return grid.Box{}, newError(codeInvalidBBox, "bbox minLat ("+fmtNum(v[1])+") is north of maxLat ("+fmtNum(v[3])+"): the order is minLon,minLat,maxLon,maxLat")
	}
	return grid.Box{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}, nil
}

// fmtNum formats a parsed coordinate for a message.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// parseLimit parses limit: a whole number of ASCII digits, at least 1; a value
// above maxLimit (however large) is clamped to it. Errors are invalid and name
// limit.
func parseLimit(raw string) (int, error) {
	bad := func() error {
		return newError(codeInvalid, "limit must be a whole number from 1 to "+strconv.Itoa(maxLimit)+"; got "+quoteInput(raw))
	}
	if raw == "" {
		return 0, bad()
	}
	for i := 0; i < len(raw); i++ {
		if !isDigit(raw[i]) {
			return 0, bad()
		}
	}
	digits := strings.TrimLeft(raw, "0")
	if digits == "" {
		return 0, bad()
	}
	if len(digits) > len(strconv.Itoa(maxLimit)) {
		return maxLimit, nil
	}
	n, _ := strconv.Atoi(digits) // at most 4 digits: cannot fail
	return min(n, maxLimit), nil
}

// parseIDs joins the values of a repeated ids parameter and parses each
// comma-separated entry: 1 to 20 ASCII digits that fit a uint64. Empty
// entries ("1,,2", a trailing comma, an empty ids) are refused, and so are
// more than maxIDs entries in all, counted before anything is parsed.
// Duplicates are kept (the caller removes them). Errors are invalid and name
// ids.
func parseIDs(vals []string) ([]uint64, error) {
	total := 0
	for _, v := range vals {
		total += strings.Count(v, ",") + 1
	}
	if total > maxIDs {
		return nil, newError(codeInvalid, "ids lists "+strconv.Itoa(total)+" ids; at most "+strconv.Itoa(maxIDs)+" are allowed (use bbox for more frames)")
	}
	ids := make([]uint64, 0, total)
	for _, v := range vals {
		rest := v
		for more := true; more; {
			var e string
			e, rest, more = strings.Cut(rest, ",")
			if e == "" {
				if total == 1 {
					return nil, newError(codeInvalid, "ids is empty: give 1 to "+strconv.Itoa(maxIDs)+" comma-separated frame ids, e.g. ids=1,2")
				}
				return nil, newError(codeInvalid, "ids has an empty entry in "+quoteInput(v)+": separate ids with single commas")
			}
			id, ok := parseID(e)
			if !ok {
				return nil, newError(codeInvalid, "ids entry "+quoteInput(e)+" is not a frame id: ids are whole numbers of 1 to 20 digits, at most "+strconv.FormatUint(math.MaxUint64, 10))
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseID parses one frame id: 1 to 20 ASCII digits that fit a uint64.
func parseID(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// framesQuery is a parsed GET /v1/frames: a box (with its limit) or ids.
type framesQuery struct {
	byIDs bool
	ids   []uint64 // as requested, duplicates included
	box   grid.Box
	limit int
}

// parseFramesQuery reads bbox, limit and ids of GET /v1/frames (docs/contract.md §2):
// either bbox (once) with an optional limit (once), or ids (repeatable), not
// both; limit with ids is refused. Other parameters are ignored. Errors are
// invalid_bbox for a missing or malformed bbox, invalid otherwise.
func parseFramesQuery(q query) (framesQuery, error) {
	nIDs, nBBox := q.count("ids"), q.count("bbox")
	switch {
	case nIDs > 0 && nBBox > 0:
		return framesQuery{}, newError(codeInvalid, "give either bbox or ids, not both")
	case nIDs > 0:
		if q.count("limit") > 0 {
			return framesQuery{}, newError(codeInvalid, "limit applies to bbox queries only; ids returns every frame it names")
		}
		vals := make([]string, 0, nIDs)
		for _, p := range q {
			if p.key != "ids" {
				continue
			}
			if p.bad {
				return framesQuery{}, newError(codeInvalid, "ids is not valid URL encoding; got "+quoteInput(p.value))
			}
			vals = append(vals, p.value)
		}
		ids, err := parseIDs(vals)
		if err != nil {
			return framesQuery{}, err
		}
		return framesQuery{byIDs: true, ids: ids}, nil
	case nBBox == 0:
		return framesQuery{}, newError(codeInvalidBBox, "bbox is required: give bbox=minLon,minLat,maxLon,maxLat in decimal degrees, or ids=1,2,...")
	}
	raw, _, err := q.once("bbox", codeInvalidBBox)
	if err != nil {
		return framesQuery{}, err
	}
	box, err := parseBBox(raw)
	if err != nil {
		return framesQuery{}, err
	}
	limit := maxLimit
	if rawLimit, present, err := q.once("limit", codeInvalid); err != nil {
		return framesQuery{}, err
	} else if present {
		if limit, err = parseLimit(rawLimit); err != nil {
			return framesQuery{}, err
		}
	}
	return framesQuery{box: box, limit: limit}, nil
}
