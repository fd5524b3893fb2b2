package ogc

import (
	"encoding/json"
	"frameindex/bolt"
	"strconv"
)

// A reader of the top level of a stored JSON object (a frame's attributes,
// a GeoJSON feature): the importer has validated the JSON, so this only
// finds member boundaries, without decoding or allocating. It never
// panics on other input and reports what it cannot read.

// eachMember is bolt.EachMember: the one walk of stored JSON objects.
func eachMember(b []byte, fn func(name, value []byte) bool) bool { return bolt.EachMember(b, fn) }

// isIntegerText reports whether a JSON number is written without a
// fraction or exponent ("1200"), which clients read as an integer.
func isIntegerText(v []byte) bool {
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}

// nameIs reports whether a member name as written (escapes kept) is s. A
// name with escapes is decoded first.
func nameIs(raw []byte, s string) bool {
	for _, c := range raw {
		if c == '\\' {
			var dec string
			if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &dec) != nil {
				return false
			}
			return dec == s
		}
	}
	return string(raw) == s
}

// scalar decodes a JSON scalar as written (a number, a string, true,
// false) into a Go value for a vector tile: float64, string or bool. ok is
// false for null, objects, arrays and what does not decode.
func scalar(v []byte) (any, bool) {
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		for _, c := range v {
			if c == '\\' {
				var s string
				if json.Unmarshal(v, &s) != nil {
					return nil, false
				}
				return s, true
			}
		}
		if len(v) < 2 {
			return nil, false
		}
		return string(v[1 : len(v)-1]), true
	case 't':
		return true, string(v) == "true"
	case 'f':
		return false, string(v) == "false"
	case 'n', '{', '[':
		return nil, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, false
	}
	return f, true
}
