package access

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"

	"frameindex/insight"
)

// equalJSON compares two values by their JSON text.
func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// BenchmarkValues parses a typical stored record of six attributes: it runs
// on every record of every question. The hand-written walk it replaced took
// 1,330-1,440 ns and 12 allocations on the same record (2-core EPYC).
func BenchmarkValues(b *testing.B) {
	rec := []byte(`{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"City Centre","population_2020":12345.67,"building_count":2244,"settlement_class":"urban"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Values(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// valuesReference is Values the slow way: json.Unmarshal into
// a map, numbers kept as text.
func valuesReference(b []byte) (map[string]insight.Value, error) {
	if len(b) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil || dec.More() {
		return nil, errors.New("not one object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	out := make(map[string]insight.Value, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = insight.Value{Str: v}
		case json.Number:
			if n, err := strconv.ParseFloat(string(v), 64); err == nil {
				out[k] = insight.Value{Num: n, IsNum: true}
			}
		}
	}
	return out, nil
}

func TestValues(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]insight.Value // nil with ok false: an error
		ok   bool
	}{
		{``, nil, true},
		{`{}`, map[string]insight.Value{}, true},
		{` { "a" : 1 , "b" : "x" } `, map[string]insight.Value{"a": {Num: 1, IsNum: true}, "b": {Str: "x"}}, true},
		{`{"n":-1.5e3,"z":0,"e":1E-2}`, map[string]insight.Value{"n": {Num: -1500, IsNum: true}, "z": {IsNum: true}, "e": {Num: 0.01, IsNum: true}}, true},
		{`{"s":"caf\u00e9 \"B\" \\ \/","k\u00e9y":"v"}`, map[string]insight.Value{"s": {Str: `café "B" \ /`}, "kéy": {Str: "v"}}, true},
		{`{"t":true,"f":false,"n":null,"a":[1,"]",{"x":"}"}],"o":{"p":[{}]},"s":"ok"}`, map[string]insight.Value{"s": {Str: "ok"}}, true},
		{`{"big":1e999,"tiny":1e-999}`, map[string]insight.Value{"tiny": {IsNum: true}}, true},
		{`{"d":1,"d":"two"}`, map[string]insight.Value{"d": {Str: "two"}}, true},
		{`{"d":1,"d":null}`, map[string]insight.Value{}, true},
		{"{\"bad\":\"\xff\"}", map[string]insight.Value{"bad": {Str: "\ufffd"}}, true},
		{`{"a":}`, nil, false},
		{`[1]`, nil, false},
		{`null`, nil, false},
		{`{"a":1}{}`, nil, false},
	}
	for _, tt := range tests {
		got, err := Values([]byte(tt.in))
		if (err == nil) != tt.ok || !equalJSON(got, tt.want) {
			t.Errorf("Values(%s) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzValues checks the gjson walk against json.Unmarshal on
// any input: the same values, and an error exactly when it errs.
func FuzzValues(f *testing.F) {
	for _, seed := range []string{
		`{"population_2020":1234.5,"state":"Kano"}`, // a typical record
		`{"a":[{"b":"]}"}],"c":"\"}"}`,              // brackets and quotes inside strings
		`{"x":1,"x":true}`,                          // a duplicate replaced by a skipped value
		`{"n":-0.0e+00,"m":1e400}`,                  // signs, exponents, overflow
		"{\"\xc3\":\"\xff\"}",                       // invalid UTF-8 in a key and a value
		`{"k\ud800":"\udc00"}`,                      // lone surrogates
		`{"a":1,}`,                                  // invalid
		` {"a" :{ }} `,                              // white space
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Values(b)
		want, werr := valuesReference(b)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, reference error %v", b, err, werr)
		}
		if err == nil && !equalJSON(got, want) {
			t.Fatalf("%q: %v, reference %v", b, got, want)
		}
	})
}
