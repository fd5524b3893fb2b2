package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// CheckFeature checks that f is a JSON object whose first "type" member
// (the name matched byte for byte, as RFC 7946 spells it) is the string
// "Feature", and that f is at most max bytes of valid UTF-8 JSON.
func CheckFeature(f []byte, max int) error {
	if len(f) > max {
		return fmt.Errorf("%d bytes, at most %d", len(f), max)
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

// A Member is one member the objects a Checker reads may hold.
type Member struct {
	Name   string
	Number bool   // its value is a JSON number; otherwise a JSON string
	Type   string // its type as messages name it ("category", "text")
}

// Checker checks JSON objects against a fixed set of members without
// decoding them: an object of members of the set, each at most once, with
// a finite number for a Number member and a string for the others. It
// accepts exactly what encoding/json accepts of that shape, except that
// strings must be valid UTF-8 and numbers must fit a float64. Its messages
// call members attributes: they are a dataset's. Not safe for concurrent
// use (it keeps a stamp per member of the object it read last).
type Checker struct {
	members []Member
	names   map[string]int
	seen    []uint32 // stamp of the object that last used each member
	stamp   uint32
}

// NewChecker returns a Checker of members, whose names are distinct.
func NewChecker(members []Member) *Checker {
	names := make(map[string]int, len(members))
	for i, m := range members {
		names[m.Name] = i
	}
	return &Checker{members: members, names: names, seen: make([]uint32, len(members))}
}

// Check checks b and returns the number of its members. Errors say where
// the object breaks ("object not closed", "expected ',' or '}'" ...).
func (sc *Checker) Check(b []byte) (int, error) {
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
		a := &sc.members[idx]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, fmt.Errorf("attribute %q: expected ':'", a.Name)
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, fmt.Errorf("attribute %q: no value", a.Name)
		}
		if a.Number {
			end, err = scanNumber(b, i)
			if err != nil {
				return 0, fmt.Errorf("attribute %q is a number: %w", a.Name, err)
			}
		} else {
			if b[i] != '"' {
				return 0, fmt.Errorf("attribute %q is a %s: got %s, want a JSON string", a.Name, a.Type, Text(b[i:]))
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
		return 0, fmt.Errorf("got %s, want a JSON number", Text(b[start:]))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, fmt.Errorf("got %s, want a JSON number", Text(b[start:]))
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
			return 0, fmt.Errorf("got %s, want a JSON number", Text(b[start:]))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if _, err := strconv.ParseFloat(string(b[start:i]), 64); err != nil {
		return 0, fmt.Errorf("%s is out of range", Text(b[start:i]))
	}
	return i, nil
}
