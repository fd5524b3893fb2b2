package jsonscan

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		in   string
		want Kind
		text string // Kind.String
	}{
		{``, Missing, "missing"},
		{" \t\r\n", Missing, "missing"},
		{`null`, Null, "null"},
		{`true`, Bool, "a boolean"},
		{` false`, Bool, "a boolean"},
		{`-1.5e3`, Number, "a number"},
		{`0`, Number, "a number"},
		{`"x"`, String, "a string"},
		{`[1]`, Array, "an array"},
		{"\n{}", Object, "an object"},
		{`}`, Invalid, "not a JSON value"},
		{`x`, Invalid, "not a JSON value"},
	}
	for _, tt := range tests {
		if got := KindOf([]byte(tt.in)); got != tt.want || got.String() != tt.text {
			t.Errorf("KindOf(%q) = %d %q, want %d %q", tt.in, got, got, tt.want, tt.text)
		}
		if got := KindOf(tt.in); got != tt.want {
			t.Errorf("KindOf(string %q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if s := Kind(99).String(); s != "Kind(99)" {
		t.Errorf("Kind(99) = %q", s)
	}
}

// TestTokenKind: the first token of a value has the kind of the value.
func TestTokenKind(t *testing.T) {
	for _, in := range []string{`null`, `true`, `false`, `1`, `-0.5`, `"s"`, `[1]`, `{"a":1}`} {
		for _, useNumber := range []bool{false, true} {
			dec := json.NewDecoder(strings.NewReader(in))
			if useNumber {
				dec.UseNumber()
			}
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := TokenKind(tok), KindOf(in); got != want {
				t.Errorf("TokenKind of %q's first token %#v = %v, want %v", in, tok, got, want)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(`[]`))
	dec.Token()
	tok, _ := dec.Token()
	if got := TokenKind(tok); got != Invalid {
		t.Errorf("TokenKind(']') = %v, want Invalid", got)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatal(err)
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "nothing"},
		{`{"a":1}`, "an object"},
		{`[1,2]`, "an array"},
		{`tru,"x":1}`, "tru"},
		{`"a,b"}`, `"a,b"`},
		{`"not closed`, `"not closed`},
		{`1234567890123456789012345678`, "123456789012345678901234…"},
		{"\"a\x01\"", `"\"a\x01\""`},
		{"\xff}", `"\xff"`},
	}
	for _, tt := range tests {
		if got := Text([]byte(tt.in)); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzKindOf: on any JSON value encoding/json reads, KindOf agrees with
// the Go type it decodes to.
func FuzzKindOf(f *testing.F) {
	for _, s := range []string{`null`, ` true`, `1e3`, `"a"`, `[]`, `{}`, ``, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		k := KindOf(b)
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		var want Kind
		switch v.(type) {
		case nil:
			want = Null
		case bool:
			want = Bool
		case float64:
			want = Number
		case string:
			want = String
		case []any:
			want = Array
		case map[string]any:
			want = Object
		}
		if k != want {
			t.Fatalf("KindOf(%q) = %v, encoding/json decodes %T", b, k, v)
		}
	})
}
