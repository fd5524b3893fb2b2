package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"frameindex/state"

	"github.com/tidwall/gjson"
)

// checkFeature checks that f is a JSON object whose first "type" member
// (the name matched byte for byte, as RFC 7946 spells it) is the string
// "Feature".
func checkFeature(f []byte) error {
	if len(f) > maxFeatureBytes {
		return fmt.Errorf("%d bytes, at most %d", len(f), maxFeatureBytes)
	}
	// encoding/json validates, not gjson.ValidBytes: it refuses nesting
	// deeper than 10,000 levels, where gjson recurses without a limit (a
	// feature of millions of '[' would overflow the stack, which cannot be
	// recovered), and its error says where the JSON breaks.
	if !json.Valid(f) {
		var v any
		if err := json.Unmarshal(f, &v); err != nil {
			return fmt.Errorf("not valid JSON: %v", err)
		}
		return errors.New("not valid JSON")
	}
	if !utf8.Valid(f) {
		return errors.New("not valid UTF-8")
	}
	obj := gjson.ParseBytes(f)
	if !obj.IsObject() {
		return errors.New(`not a JSON object (a GeoJSON feature is {"type":"Feature", ...})`)
	}
	typ, err := "", error(nil)
	obj.ForEach(func(name, value gjson.Result) bool {
		if name.Raw != `"type"` {
			return true
		}
		switch value.Type {
		case gjson.String:
			typ = value.Str
			if strings.IndexByte(value.Raw, '\\') >= 0 {
				// encoding/json's reading: gjson's differs on a broken
				// \u surrogate pair (never "Feature" in either). A
				// variable of its own keeps typ off the heap.
				var s string
				_ = json.Unmarshal([]byte(value.Raw), &s)
				typ = s
			}
		case gjson.Null: // as encoding/json reads null into a string: no type
		default:
			err = errors.New(`"type" is not a string`)
		}
		return false
	})
	if err != nil {
		return err
	}
	if typ != "Feature" {
		if typ == "" {
			return errors.New(`no "type":"Feature" member`)
		}
		return fmt.Errorf(`"type" is %q, want "Feature"`, typ)
	}
	return nil
}

// attrScanner checks a frame's attributes object against the declared
// attributes without decoding it: a JSON object of members that are
// declared attributes, each at most once, with a finite number for a
// number and a string for a category or text. It accepts exactly what
// encoding/json accepts of that shape, except that strings must be valid
// UTF-8 and numbers must fit a float64.
//
// This file holds the binary's hand-written JSON scanning, in one place:
// this checker (with skipSpace, scanString, scanNumber and valueText) and
// EachMember, the reading walk of stored records. Everything else uses
// gjson or encoding/json. The checker is kept rather than gjson for two
// reasons. Speed: it runs on every record of an import, 1.1 million for
// the national grid, and BenchmarkCheckRecords/attrs/frames=1100000 took
// a median 89 ms with it against 162 ms with gjson.ValidBytes, then
// gjson.ParseBytes and ForEach (two passes and a copy of each object).
// Errors: it says where an object breaks ("object not closed", "expected
// ',' or '}'" ...), which gjson.ValidBytes does not report.
type attrScanner struct {
	attrs []state.Attribute
	names map[string]int
	seen  []uint32 // stamp of the object that last used each attribute
	stamp uint32
}

// scan checks b and returns the number of members.
func (sc *attrScanner) scan(b []byte) (int, error) {
	sc.stamp++
	if sc.stamp == 0 { // wrapped: forget old stamps
		clear(sc.seen)
		sc.stamp = 1
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, errors.New("not a JSON object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		if i = skipSpace(b, i+1); i != len(b) {
			return 0, errors.New("data after the object")
		}
		return 0, nil
	}
	members := 0
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errors.New("expected a member name")
		}
		end, escaped, err := scanString(b, i)
		if err != nil {
			return 0, fmt.Errorf("member name: %w", err)
		}
		name := b[i+1 : end-1]
		if escaped {
			var str string
			if err := json.Unmarshal(b[i:end], &str); err != nil {
				return 0, fmt.Errorf("member name: %w", err)
			}
			name = []byte(str)
		}
		idx, ok := sc.names[string(name)]
		if !ok {
			return 0, fmt.Errorf("%q is not a declared attribute", name)
		}
		if sc.seen[idx] == sc.stamp {
			return 0, fmt.Errorf("attribute %q appears twice", name)
		}
		sc.seen[idx] = sc.stamp
		a := &sc.attrs[idx]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, fmt.Errorf("attribute %q: expected ':'", a.Name)
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, fmt.Errorf("attribute %q: no value", a.Name)
		}
		if a.Type == state.TypeNumber {
			end, err = scanNumber(b, i)
			if err != nil {
				return 0, fmt.Errorf("attribute %q is a number: %w", a.Name, err)
			}
		} else {
			if b[i] != '"' {
				return 0, fmt.Errorf("attribute %q is a %s: got %s, want a JSON string", a.Name, a.Type, valueText(b[i:]))
			}
			if end, _, err = scanString(b, i); err != nil {
				return 0, fmt.Errorf("attribute %q: %w", a.Name, err)
			}
		}
		members++
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errors.New("object not closed")
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return 0, fmt.Errorf("after attribute %q: expected ',' or '}'", a.Name)
		}
		i = skipSpace(b, i+1)
	}
	if i = skipSpace(b, i+1); i != len(b) {
		return 0, errors.New("data after the object")
	}
	return members, nil
}

// valueText shows the JSON value (or the bytes) starting b in an error
// message: "an object", "an array", or the token itself, at most 24 bytes
// of it, quoted when it is not printable text.
func valueText(b []byte) string {
	const n = 24
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	end := len(b)
	if b[0] == '"' {
		if e, _, err := scanString(b, 0); err == nil {
			end = e
		}
	} else if i := bytes.IndexAny(b, ",}] \t\r\n"); i > 0 {
		end = i
	}
	t := b[:end]
	more := ""
	if len(t) > n {
		t, more = t[:n], "…"
	}
	if !utf8.Valid(t) || bytes.ContainsFunc(t, unicode.IsControl) {
		return strconv.Quote(string(t)) + more
	}
	return string(t) + more
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString checks the JSON string starting at b[i] (a '"') and returns
// the index just past its closing quote and whether it holds escapes. Its
// text must be valid UTF-8 without raw control characters.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	start := i + 1
	for i = start; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(b[start:i]) {
				return 0, false, errors.New("string is not valid UTF-8")
			}
			return i + 1, escaped, nil
		case c < 0x20:
			return 0, false, errors.New("control character in a string")
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, errors.New("string not closed")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, errors.New(`bad \u escape`)
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, errors.New(`bad \u escape`)
					}
				}
				i += 6
			default:
				return 0, false, fmt.Errorf("bad escape \\%c", b[i+1])
			}
		default:
			i++
		}
	}
	return 0, false, errors.New("string not closed")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber checks the JSON number starting at b[i] and returns the index
// just past it. The number must be finite as a float64.
func scanNumber(b []byte, i int) (int, error) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if _, err := strconv.ParseFloat(string(b[start:i]), 64); err != nil {
		return 0, fmt.Errorf("%s is out of range", valueText(b[start:i]))
	}
	return i, nil
}

// EachMember calls fn for each member of the JSON object b, in order, with
// its name as written (between the quotes, escapes kept) and its value as
// written. fn returning false stops. It returns false when b is not an
// object it can read to the end (fn may have been called for members
// before the fault). It finds member boundaries only, without decoding or
// allocating: the OGC items and tiles walk every stored record with it.
// gjson (ParseBytes + ForEach) does the same 2.7 times slower on a typical
// six-member record (median 1,084 against 397 ns, BenchmarkEachMember in
// this package's tests keeps the hand walk honest). Safe for concurrent use.
func EachMember(b []byte, fn func(name, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		name := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return false
		}
		if !fn(name, b[i:vend]) {
			return true
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// skipString returns the index after the string starting at b[i] (a '"'),
// or -1 when it does not end.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or -1
// when none can be read. Objects and arrays are skipped by counting
// brackets outside strings.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && !(b[j] == ',' || b[j] == '}' || b[j] == ']' || b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}
