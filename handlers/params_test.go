package handlers

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"frameindex/grid"
)

func TestIsDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"0", true}, {"-0", true}, {"+1", true}, {"9.0765", true}, {".5", true}, {"5.", true},
		{"1e3", true}, {"1E-3", true}, {"-1.5e+2", true}, {"007", true},
		{"", false}, {".", false}, {"-", false}, {"+.", false}, {"e3", false}, {"1e", false}, {"1e+", false},
		{"1.2.3", false}, {"1,5", false}, {" 1", false}, {"1 ", false}, {"0x1p3", false}, {"1_000", false},
		{"NaN", false}, {"Inf", false}, {"-Infinity", false}, {"--1", false}, {"1e3.5", false}, {"١", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := isDecimal(tt.in); got != tt.want {
				t.Errorf("isDecimal(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"9.0765", 9.0765, true},
		{"1e-400", 0, true}, // underflows to zero: a number, and in range
		{"1e400", 0, false}, // overflows: refused
		{"-1e309", 0, false},
		{strings.Repeat("1", 400), 0, false},
		{"0." + strings.Repeat("0", 400) + "1", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 12)], func(t *testing.T) {
			got, ok := parseDecimal(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseDecimal(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw  string
		want query
	}{
		{"", nil},
		{"a=1&b=2", query{{key: "a", value: "1"}, {key: "b", value: "2"}}},
		{"a=1&&b", query{{key: "a", value: "1"}, {key: "b", value: ""}}},
		{"a=x+y%2Cz", query{{key: "a", value: "x y,z"}}},
		{"a=1=2", query{{key: "a", value: "1=2"}}},
		{"a=1;b=2", query{{key: "a", value: "1;b=2"}}},
		{"a=%zz&b=1", query{{key: "a", value: "%zz", bad: true}, {key: "b", value: "1"}}},
		{"%zz=1&b=2", query{{key: "b", value: "2"}}},
		{"l%61t=1", query{{key: "lat", value: "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			if got := parseQuery(tt.raw); !slices.Equal(got, tt.want) {
				t.Errorf("parseQuery(%q) = %+v, want %+v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestQuoteInput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", `"abc"`},
		{"", `""`},
		{"a\x00b\n", `"a\x00b\n"`},
		{"x" + keyPrefix + "secret", `"xsvc_sk_[redacted]"`},
		{strings.Repeat("a", 50), `"` + strings.Repeat("a", 40) + `..."`},
		{strings.Repeat("a", 38) + "é", `"` + strings.Repeat("a", 38) + `é"`},   // 40 bytes: kept
		{strings.Repeat("a", 39) + "é", `"` + strings.Repeat("a", 39) + `..."`}, // cut before the é, not inside it
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := quoteInput(tt.in); got != tt.want {
				t.Errorf("quoteInput(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"\n\r\t\x01\x1f", `"\n\r\t\u0001\u001f"`},
		{"é€😀", `"é€😀"`},
		{"a\xffb", `"a\ufffdb"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := string(grid.AppendJSONString(nil, tt.in)); got != tt.want {
				t.Errorf("grid.AppendJSONString(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseBBox(t *testing.T) {
	tests := []struct {
		in   string
		want grid.Box
	}{
		{"1,2,3,4", grid.Box{MinLon: 1, MinLat: 2, MaxLon: 3, MaxLat: 4}},
		{"-180,-90,180,90", grid.Box{MinLon: -180, MinLat: -90, MaxLon: 180, MaxLat: 90}},
		{" 1 ,2,  3,4 ", grid.Box{MinLon: 1, MinLat: 2, MaxLon: 3, MaxLat: 4}},
		{"3,6,3,6", grid.Box{MinLon: 3, MinLat: 6, MaxLon: 3, MaxLat: 6}}, // a point
		{"-0,0,0,0", grid.Box{}},
		{"1e0,2E0,.3e1,4.", grid.Box{MinLon: 1, MinLat: 2, MaxLon: 3, MaxLat: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseBBox(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("parseBBox(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseLimit(t *testing.T) {
	tests := []struct {
		in   string
		want int // 0: refused
	}{
		{"1", 1}, {"5000", 5000}, {"5001", 5000}, {"9999", 5000}, {"10000", 5000},
		{"000000000000000000000000007", 7}, {strings.Repeat("9", 100), 5000},
		{"0", 0}, {"00", 0}, {"", 0}, {"-1", 0}, {"+1", 0}, {"1.0", 0}, {"1e3", 0}, {" 1", 0}, {"٣", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseLimit(tt.in)
			if tt.want == 0 {
				var ae *apiError
				if !errors.As(err, &ae) || ae.code != codeInvalid || !strings.Contains(ae.message, "limit") {
					t.Errorf("parseLimit(%q) = %d, %v, want an invalid error naming limit", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parseLimit(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseIDs(t *testing.T) {
	tests := []struct {
		in   []string
		want []uint64 // nil: refused
	}{
		{[]string{"1"}, []uint64{1}},
		{[]string{"3,1,2,1"}, []uint64{3, 1, 2, 1}},
		{[]string{"3", "1,2"}, []uint64{3, 1, 2}},
		{[]string{"0"}, []uint64{0}},
		{[]string{"18446744073709551615"}, []uint64{math.MaxUint64}},
		{[]string{"00000000000000000001"}, []uint64{1}},
		{[]string{strings.Repeat("5,", 99) + "5"}, slices.Repeat([]uint64{5}, 100)},
		{[]string{""}, nil},
		{[]string{","}, nil},
		{[]string{"1", ""}, nil},
		{[]string{"1,"}, nil},
		{[]string{",1"}, nil},
		{[]string{"1 "}, nil},
		{[]string{"x"}, nil},
		{[]string{"+1"}, nil},
		{[]string{"18446744073709551616"}, nil},
		{[]string{"000000000000000000001"}, nil},
		{[]string{strings.Repeat("5,", 100) + "5"}, nil},
		{slices.Repeat([]string{"5"}, 101), nil},
	}
	for _, tt := range tests {
		name := strings.Join(tt.in, "&")
		t.Run(name[:min(len(name), 30)], func(t *testing.T) {
			got, err := parseIDs(tt.in)
			if tt.want == nil {
				var ae *apiError
				if !errors.As(err, &ae) || ae.code != codeInvalid || !strings.Contains(ae.message, "ids") {
					t.Errorf("parseIDs(%q) = %v, %v, want an invalid error naming ids", tt.in, got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("parseIDs(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzParseBBox checks that parseBBox never panics, that an accepted box
// obeys the rules, and that it round-trips through its decimal text.
func FuzzParseBBox(f *testing.F) {
	for _, seed := range []string{
		"3.38,6.45,3.42,6.49",   // an ordinary box in Lagos
		"-180,-90,180,90",       // the world
		"7.4,9.075,7.4,9.075",   // a degenerate box: a point on a grid corner
		" 1 , 2 , 3 , 4 ",       // spaces around numbers
		"1e0,-2E-1,+3.,.4",      // exponents, signs, bare points
		"5,0,4,1",               // west and east swapped
		"1,2,3",                 // three numbers
		"1,,3,4",                // an empty number
		"NaN,0,Inf,0",           // not numbers
		"0x1p3,0,1_0,0",         // hex float, underscore
		"1e400,0,0,0",           // overflow
		"181,0,182,1",           // out of range
		",,,",                   // all empty
		"\xff,\x00,\u2028,\t",   // bytes that are not numbers
		"1,2,3,4,5,6,7,8,9,0,1", // too many
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := parseBBox(s)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != codeInvalidBBox || ae.message == "" {
				t.Fatalf("parseBBox(%q): error %v is not an invalid_bbox", s, err)
			}
			return
		}
		for _, v := range []float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("parseBBox(%q) = %v: not finite", s, b)
			}
		}
		if b.MinLon < -180 || b.MaxLon > 180 || b.MinLat < -90 || b.MaxLat > 90 || b.MinLon > b.MaxLon || b.MinLat > b.MaxLat {
			t.Fatalf("parseBBox(%q) = %v breaks a rule", s, b)
		}
		text := fmtNum(b.MinLon) + "," + fmtNum(b.MinLat) + "," + fmtNum(b.MaxLon) + "," + fmtNum(b.MaxLat)
		if again, err := parseBBox(text); err != nil || again != b {
			t.Fatalf("round trip %q -> %v -> %q -> %v, %v", s, b, text, again, err)
		}
	})
}

// FuzzParseIDs checks parseIDs on a query's ids values (split on '&'): it
// never panics, an accepted list is at most 100 ids, and it round-trips.
func FuzzParseIDs(f *testing.F) {
	for _, seed := range []string{
		"1",                     // one id
		"419494487,419494488",   // two lattice ids
		"3,1,2,1",               // order and a duplicate
		"1&2,3",                 // a repeated parameter
		"18446744073709551615",  // the largest id
		"18446744073709551616",  // one more
		"000000000000000000001", // 21 digits
		"",                      // empty
		"1,,2",                  // empty entry
		"1,",                    // trailing comma
		"&",                     // two empty values
		"-1,+2, 3",              // signs and a space
		"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101", // 101 ids
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vals := strings.Split(s, "&")
		ids, err := parseIDs(vals)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != codeInvalid || !strings.Contains(ae.message, "ids") {
				t.Fatalf("parseIDs(%q): error %v is not an invalid naming ids", s, err)
			}
			return
		}
		if len(ids) == 0 || len(ids) > maxIDs {
			t.Fatalf("parseIDs(%q) accepted %d ids", s, len(ids))
		}
		text := make([]string, len(ids))
		for i, id := range ids {
			text[i] = strconv.FormatUint(id, 10)
		}
		if again, err := parseIDs([]string{strings.Join(text, ",")}); err != nil || !slices.Equal(again, ids) {
			t.Fatalf("round trip %q -> %v -> %v, %v", s, ids, again, err)
		}
	})
}

// FuzzParseLimit checks that parseLimit never panics, that an accepted limit
// is 1..5000, and that it round-trips.
func FuzzParseLimit(f *testing.F) {
	for _, seed := range []string{
		"1", "5000", // the bounds
		"5001", "99999999999999999999999", // clamped
		"0", "-1", "", "1.5", "1e3", "+7", " 7", // refused
		"0007", // leading zeros
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseLimit(s)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != codeInvalid || !strings.Contains(ae.message, "limit") {
				t.Fatalf("parseLimit(%q): error %v is not an invalid naming limit", s, err)
			}
			return
		}
		if n < 1 || n > maxLimit {
			t.Fatalf("parseLimit(%q) = %d", s, n)
		}
		if again, err := parseLimit(strconv.Itoa(n)); err != nil || again != n {
			t.Fatalf("round trip %q -> %d -> %d, %v", s, n, again, err)
		}
	})
}

// FuzzPointQuery checks lat and lon parsing from a raw query string: it never
// panics, accepted values are finite and in range, and they round-trip.
func FuzzPointQuery(f *testing.F) {
	for _, seed := range []string{
		"lat=9.0765&lon=7.3986",    // Abuja
		"lat=-90&lon=180",          // the corners of the range
		"lat=90.0001&lon=0",        // just out of range
		"lat=1e-400&lon=-0",        // underflow and negative zero
		"lat=NaN&lon=Inf",          // not numbers
		"lat=0x1p3&lon=1_0",        // hex float, underscore
		"lat=1&lat=2&lon=3",        // repeated
		"lat=%zz&lon=1",            // bad escape
		"lat=+9&lon=%2B9",          // a space and a plus sign
		"lon=7",                    // lat missing
		"lat=9;lon=7",              // a semicolon is no separator
		"lat=" + keyPrefix + "abc", // a key in the wrong place is not echoed
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		lat, lon, err := pointQuery(parseQuery(raw))
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != codeInvalidPoint || ae.message == "" {
				t.Fatalf("pointQuery(%q): error %v is not an invalid_point", raw, err)
			}
			if i := strings.Index(ae.message, keyPrefix); i >= 0 && !strings.HasPrefix(ae.message[i:], keyPrefix+"[redacted]") {
				t.Fatalf("the message echoes a key: %s", ae.message)
			}
			return
		}
		if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			t.Fatalf("pointQuery(%q) = %v, %v", raw, lat, lon)
		}
		text := "lat=" + strconv.FormatFloat(lat, 'g', -1, 64) + "&lon=" + strconv.FormatFloat(lon, 'g', -1, 64)
		text = strings.ReplaceAll(text, "+", "%2B") // 'g' writes exponents as e+XX
		if lat2, lon2, err := pointQuery(parseQuery(text)); err != nil || lat2 != lat || lon2 != lon {
			t.Fatalf("round trip %q -> %v,%v -> %q -> %v,%v, %v", raw, lat, lon, text, lat2, lon2, err)
		}
	})
}

// FuzzParseQuery checks that parseQuery never panics and that well-encoded
// pairs round-trip through url.QueryEscape.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{
		"lat=9&lon=7",       // plain
		"a=%20b+c&&d",       // escapes, an empty pair, no '='
		"%zz=1&a=%",         // bad escapes in a name and a value
		"ids=1&ids=2,3",     // a repeated parameter
		"=&==&a==b",         // empty names
		"k=\xff\x00&\u2028", // raw bytes
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q := parseQuery(raw)
		var parts []string
		var good query
		for _, p := range q {
			if p.bad {
				continue
			}
			good = append(good, p)
			parts = append(parts, url.QueryEscape(p.key)+"="+url.QueryEscape(p.value))
		}
		again := parseQuery(strings.Join(parts, "&"))
		// A pair with an empty name and value encodes as "=", which parses back;
		// nothing else may change.
		if !slices.Equal(again, good) {
			t.Fatalf("round trip %q -> %+v -> %+v", raw, good, again)
		}
	})
}

// FuzzAppendJSONString checks that any string is written as valid JSON that
// decodes as encoding/json would encode it.
func FuzzAppendJSONString(f *testing.F) {
	for _, seed := range []string{
		"plain",        // nothing to escape
		"q\"b\\",       // quote and backslash
		"\x00\x1f\n",   // control characters
		"a\xffb\xc3",   // invalid UTF-8, a cut sequence at the end
		"\u2028\u2029", // JavaScript line separators
		"é€😀",          // multi-byte characters
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := grid.AppendJSONString(nil, s)
		var got, want string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("grid.AppendJSONString(%q) = %s: %v", s, out, err)
		}
		ref, _ := json.Marshal(s)
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("grid.AppendJSONString(%q) decodes to %q, encoding/json to %q", s, got, want)
		}
	})
}
