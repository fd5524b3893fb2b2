package ogc

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"frameindex/bolt"
	"frameindex/grid"
)

// Paging of items (OGC API - Features, /req/core/fc-limit-*).
const (
	defaultLimit = 1000
	maxLimit     = 10000
)

// itemsQuery is a parsed items request: an optional box, the page size and
// where the page starts.
type itemsQuery struct {
	hasBox bool
	box    grid.Box
	limit  int

	// The cursor: the page holds what comes after it in ascending order.
	hasCursor bool
	after     uint64          // frames and dataset collections: the last frame id shown
	from      bolt.FeatureKey // features collections: the first feature to show
}

// parseQuery parses a raw query string. Bad URL encoding is invalid.
func parseQuery(raw string) (url.Values, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, invalid("the query string is not valid URL encoding: %s", quote(raw))
	}
	return q, nil
}

// once returns the single value of name, if sent; sending it twice is
// invalid (with code).
func once(q url.Values, name, code string) (string, bool, error) {
	vs := q[name]
	switch len(vs) {
	case 0:
		return "", false, nil
	case 1:
		return vs[0], true, nil
	}
	return "", true, newError(http.StatusBadRequest, code, "%s must be given once; got %d values", name, len(vs))
}

// parseItemsQuery reads bbox, limit and cursor of an items request.
// features says which cursor form the collection pages by ("FRAME" or
// "FRAME-SEQ"). Other parameters (f among them) are ignored. Errors are
// invalid_bbox for bbox and invalid otherwise, naming the parameter.
func parseItemsQuery(q url.Values, features bool) (itemsQuery, error) {
	iq := itemsQuery{limit: defaultLimit}
	if raw, ok, err := once(q, "bbox", codeInvalidBBox); err != nil {
		return iq, err
	} else if ok {
		if iq.box, err = parseBBox(raw); err != nil {
			return iq, err
		}
		iq.hasBox = true
	}
	if raw, ok, err := once(q, "limit", codeInvalid); err != nil {
		return iq, err
	} else if ok {
		if iq.limit, err = parseLimit(raw); err != nil {
			return iq, err
		}
	}
	if raw, ok, err := once(q, "cursor", codeInvalid); err != nil {
		return iq, err
	} else if ok {
		var good bool
		if features {
			iq.from, good = parseFeatureCursor(raw)
		} else {
			iq.after, good = parseID(raw)
		}
		if !good {
			return iq, invalid("cursor %s is not one this server wrote: follow the next link of the previous page rather than building a cursor", quote(raw))
		}
		iq.hasCursor = true
	}
	return iq, nil
}

// bboxNames names the numbers of a 2D bbox, in order.
var bboxNames = [4]string{"minLon", "minLat", "maxLon", "maxLat"}

// parseBBox parses an OGC bbox in CRS84: four numbers
// minLon,minLat,maxLon,maxLat, or six with heights (minLon,minLat,minH,
// maxLon,maxLat,maxH; heights are ignored). Each is a finite decimal
// number; values beyond the world (a client's view zoomed out past it) are
// clipped to it. minLon must not exceed maxLon (no antimeridian crossing)
// nor minLat maxLat. Errors are invalid_bbox and say which rule failed.
func parseBBox(raw string) (grid.Box, error) {
	bad := func(format string, args ...any) error {
		return newError(http.StatusBadRequest, codeInvalidBBox, format, args...)
	}
	parts := strings.Split(raw, ",")
	if len(parts) != 4 && len(parts) != 6 {
		return grid.Box{}, bad("bbox must be four comma-separated numbers minLon,minLat,maxLon,maxLat in CRS84 degrees (or six with heights); got %d values", len(parts))
	}
	var v [6]float64
	for i, p := range parts {
		f, ok := parseDecimal(strings.TrimSpace(p))
		if !ok {
			return grid.Box{}, bad("bbox value %d must be a decimal number of degrees; got %s", i+1, quote(p))
		}
		v[i] = f
	}
	if len(parts) == 6 {
		v[2], v[3] = v[3], v[4]
	}
	b := grid.Box{MinLon: v[0], MinLat: v[1], MaxLon: v[2], MaxLat: v[3]}
	if b.MinLon > b.MaxLon {
		return grid.Box{}, bad("bbox minLon (%s) is east of maxLon (%s): the order is minLon,minLat,maxLon,maxLat, and a box across the antimeridian is not supported", fmtNum(b.MinLon), fmtNum(b.MaxLon))
	}
	if b.MinLat > b.MaxLat {
		return grid.Box{}, bad("bbox minLat (%s) is north of maxLat (%s): the order is minLon,minLat,maxLon,maxLat", fmtNum(b.MinLat), fmtNum(b.MaxLat))
	}
	b.MinLon, b.MaxLon = clamp(b.MinLon, 180), clamp(b.MaxLon, 180)
	b.MinLat, b.MaxLat = clamp(b.MinLat, 90), clamp(b.MaxLat, 90)
	return b, nil
}

func clamp(v, limit float64) float64 { return max(-limit, min(v, limit)) }

// parseDecimal parses a finite decimal number in strconv.ParseFloat syntax
// without hex floats, underscores, NaN or Inf. Underflow reads as zero.
func parseDecimal(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if math.IsInf(v, 0) || math.IsNaN(v) || (err != nil && v != 0) {
		return 0, false
	}
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return v, true
}

// parseLimit parses limit: a whole number from 1; above maxLimit it is
// lowered to maxLimit. Errors are invalid and name limit.
func parseLimit(raw string) (int, error) {
	digits := strings.TrimLeft(raw, "0")
	ok := raw != "" && digits != ""
	for i := 0; ok && i < len(raw); i++ {
		ok = raw[i] >= '0' && raw[i] <= '9'
	}
	if !ok {
		return 0, invalid("limit must be a whole number from 1 to %d (larger values are lowered to %d); got %s", maxLimit, maxLimit, quote(raw))
	}
	if len(digits) > 5 {
		return maxLimit, nil
	}
	n, _ := strconv.Atoi(digits) // at most 5 digits: cannot fail
	return min(n, maxLimit), nil
}

// parseID parses a frame id: 1 to 20 ASCII digits that fit a uint64.
func parseID(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false // more than 20 digits is no id, even with leading zeros
	}
	n, err := strconv.ParseUint(s, 10, 64) // digits only: no sign, no underscores in base 10
	return n, err == nil
}

// featureID is the id of a stored feature in a features collection:
// "FRAME-SEQ", the frame holding it and its sequence number there.
func appendFeatureID(b []byte, k bolt.FeatureKey) []byte {
	b = strconv.AppendUint(b, k.Frame, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, uint64(k.Seq), 10)
}

// parseFeatureID parses "FRAME-SEQ".
func parseFeatureID(s string) (bolt.FeatureKey, bool) {
	f, q, ok := strings.Cut(s, "-")
	if !ok || len(q) > 10 {
		return bolt.FeatureKey{}, false
	}
	frame, ok1 := parseID(f)
	seq, ok2 := parseID(q)
	if !ok1 || !ok2 || seq > math.MaxUint32 {
		return bolt.FeatureKey{}, false
	}
	return bolt.FeatureKey{Frame: frame, Seq: uint32(seq)}, true
}

// parseFeatureCursor parses the cursor of a features collection: the id of
// the first feature of the page.
func parseFeatureCursor(s string) (bolt.FeatureKey, bool) { return parseFeatureID(s) }

// tileCoords parses {tileMatrix}/{tileRow}/{tileCol} of WebMercatorQuad:
// whole numbers, the row and column inside the matrix of that zoom. Zooms
// outside what the server tiles are reported by the caller. Errors are
// invalid (a malformed number) or not_found (outside the matrix).
func tileCoords(zs, ys, xs string) (z, y, x int, err error) {
	var v [3]int
	for i, s := range [3]string{zs, ys, xs} {
		n, ok := parseID(s)
		if !ok || n > 1<<30 {
			return 0, 0, 0, invalid("%s must be a whole number; got %s", [3]string{"tileMatrix", "tileRow", "tileCol"}[i], quote(s))
		}
		v[i] = int(n)
	}
	z, y, x = v[0], v[1], v[2]
	if z > maxTileMatrix {
		return 0, 0, 0, notFound("tileMatrix %d is not in WebMercatorQuad (0 to %d)", z, maxTileMatrix)
	}
	if n := 1 << z; y >= n || x >= n {
		return 0, 0, 0, notFound("tile %d/%d/%d is outside tile matrix %d, whose rows and columns run from 0 to %d", z, y, x, z, n-1)
	}
	return z, y, x, nil
}

// fmtNum formats a number for a message.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// quote quotes a client's value for a description: at most 40 bytes (cut
// on a character boundary), anything from "svc_sk_" on replaced so a key
// put in the wrong place is not echoed.
func quote(s string) string {
	if i := strings.Index(s, "svc_sk_"); i >= 0 {
		s = s[:i] + "svc_sk_[redacted]"
	}
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}
