package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a JSON value: what messages call it when it is not
// what was wanted ("frameIds must be an array …; it is a string").
type Kind uint8

const (
	Missing Kind = iota // no value: empty input, or the end of it
	Null
	Bool
	Number
	String
	Array
	Object
	Invalid // a byte no JSON value starts with
)

// KindOf returns the kind of the JSON value b starts with, from its first
// byte after white space; the rest of b is not checked. A string type
// argument reads a gjson.Result's Raw without a copy.
func KindOf[T ~[]byte | ~string](b T) Kind {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i == len(b) {
		return Missing
	}
	switch c := b[i]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || c >= '0' && c <= '9':
		return Number
	}
	return Invalid
}

// TokenKind is KindOf for a token of encoding/json's Decoder.Token: the
// kind of the value it starts. A closing delimiter is Invalid.
func TokenKind(tok json.Token) Kind {
	switch t := tok.(type) {
	case nil:
		return Null
	case bool:
		return Bool
	case float64, json.Number:
		return Number
	case string:
		return String
	case json.Delim:
		return KindOf([]byte{byte(t)})
	}
	return Invalid
}

var kindNames = [...]string{
	Missing: "missing",
	Null:    "null",
	Bool:    "a boolean",
	Number:  "a number",
	String:  "a string",
	Array:   "an array",
	Object:  "an object",
	Invalid: "not a JSON value",
}

// String names the kind with its article, as messages use it: "an
// object", "a number", "null", "missing".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Text shows the JSON value (or the bytes) b starts with in an error
// message: "an object", "an array", "nothing", or a scalar's own text, at
// most 24 bytes of it, quoted when it is not printable text.
func Text(b []byte) string {
	const n = 24
	if len(b) == 0 {
		return "nothing"
	}
	if k := KindOf(b[:1]); k == Object || k == Array {
		return k.String()
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
