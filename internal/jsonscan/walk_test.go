package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzEachMember: the reader of stored objects never panics, and on an
// object encoding/json reads it finds the same members with the same
// values.
func FuzzEachMember(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"a":1}`, `{"population_2020":1200,"state":"Kano"}`,
		`{"type":"Feature","geometry":{"type":"Point","coordinates":[3.39,6.45]},"properties":{"name":"x"}}`,
		`{"a\"b":"\\","c":[1,{"d":"]}"}],"e":null}`,
		` { "a" : true , "b" : false } `,
		`{"a":1`, `{"a":"x}`, `[1]`, `{"a":[1,2}`, `{"a":1,}`, `"x"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []string
		var vals [][]byte
		ok := EachMember(b, func(name, value []byte) bool {
			got = append(got, string(name))
			vals = append(vals, value)
			if len(value) == 0 {
				t.Fatalf("an empty value for member %q of %q", name, b)
			}
			return true
		})
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil || !utf8.Valid(b) {
			return // not an object encoding/json reads as it is (the store keeps valid UTF-8): no promise but no panic
		}
		if !ok {
			t.Fatalf("%q is a JSON object but EachMember gave up", b)
		}
		if len(got) < len(m) {
			t.Fatalf("%q: %d members found, encoding/json has %d", b, len(got), len(m))
		}
		for i, raw := range got {
			var name string
			if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &name); err != nil {
				t.Fatalf("member name %q does not decode: %v", raw, err)
			}
			if _, ok := m[name]; !ok {
				t.Fatalf("member %q is not in %q", name, b)
			}
			if !json.Valid(vals[i]) {
				t.Fatalf("value %q of member %q is not JSON", vals[i], name)
			}
			if !NameIs([]byte(raw), name) {
				t.Fatalf("NameIs(%q, %q) is false", raw, name)
			}
		}
		// The last of a repeated member is the one encoding/json keeps.
		for i := len(got) - 1; i >= 0; i-- {
			var name string
			json.Unmarshal(append(append([]byte{'"'}, got[i]...), '"'), &name)
			if want, seen := m[name]; seen {
				if !bytes.Equal(bytes.TrimSpace(want), vals[i]) {
					t.Fatalf("member %q: value %q, encoding/json %q", name, vals[i], want)
				}
				delete(m, name)
			}
		}
	})
}

func TestEachMember(t *testing.T) {
	tests := []struct {
		in   string
		want []string // name=value
		ok   bool
	}{
		{`{}`, nil, true},
		{` { "a" : 1 , "b":"x,y}" } `, []string{"a=1", `b="x,y}"`}, true},
		{`{"a":{"b":[1,{"c":"]"}]},"d":null,"e":true,"f":-1.5e3}`, []string{`a={"b":[1,{"c":"]"}]}`, "d=null", "e=true", "f=-1.5e3"}, true},
		{`{"a\"b":"\\"}`, []string{`a\"b="\\"`}, true},
		{`[1]`, nil, false},
		{`{"a":1`, []string{"a=1"}, false},
		{`{"a" 1}`, nil, false},
		{`{"a":}`, nil, false},
		{`{"a":"x}`, nil, false},
		{`{"a":[1,2}`, []string{"a=[1,2}"}, false}, // brackets are counted, not matched
		{``, nil, false},
	}
	for _, tc := range tests {
		var got []string
		ok := EachMember([]byte(tc.in), func(name, value []byte) bool {
			got = append(got, string(name)+"="+string(value))
			return true
		})
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// BenchmarkEachMember walks a typical six-member record: the number that
// justifies keeping EachMember by hand, against BenchmarkEachMemberGJSON.
func BenchmarkEachMember(b *testing.B) {
	rec := []byte(`{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"City Centre","population_2020":12345.67,"building_count":2244,"settlement_class":"urban"}`)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		EachMember(rec, func(name, value []byte) bool { n += len(value); return true })
	}
}

// BenchmarkEachMemberGJSON is BenchmarkEachMember's walk with gjson
// (ParseBytes + ForEach): what EachMember is measured against.
func BenchmarkEachMemberGJSON(b *testing.B) {
	rec := []byte(`{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"City Centre","population_2020":12345.67,"building_count":2244,"settlement_class":"urban"}`)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		gjson.ParseBytes(rec).ForEach(func(name, value gjson.Result) bool { n += len(value.Raw); return true })
	}
}
