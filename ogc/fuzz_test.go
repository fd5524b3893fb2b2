package ogc

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"unicode/utf8"

	"frameindex/bolt"
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
		ok := eachMember(b, func(name, value []byte) bool {
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
			t.Fatalf("%q is a JSON object but eachMember gave up", b)
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
			if !nameIs([]byte(raw), name) {
				t.Fatalf("nameIs(%q, %q) is false", raw, name)
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

// FuzzItemsQuery: parsing items parameters never panics, accepts only
// boxes in order inside the world and limits from 1 to 10,000, and
// refuses with a client error.
func FuzzItemsQuery(f *testing.F) {
	for _, seed := range []string{
		"", "bbox=7.1,9,7.2,9.1&limit=10", "bbox=7.1,9,0,7.2,9.1,5", "limit=0", "limit=99999999999",
		"cursor=433102007", "cursor=433102007-4", "bbox=-200,-91,200,91", "bbox=1e308,0,1e309,1", "bbox=%zz",
		"bbox=nan,0,1,1", "limit=1&limit=2", "cursor=18446744073709551615",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, raw string, features bool) {
		q, err := parseQuery(raw)
		if err == nil {
			var iq itemsQuery
			iq, err = parseItemsQuery(q, features)
			if err == nil {
				b := iq.box
				if iq.hasBox && !(b.MinLon <= b.MaxLon && b.MinLat <= b.MaxLat && b.MinLon >= -180 && b.MaxLon <= 180 && b.MinLat >= -90 && b.MaxLat <= 90) {
					t.Fatalf("%q: box %+v accepted", raw, b)
				}
				if math.IsNaN(b.MinLon + b.MinLat + b.MaxLon + b.MaxLat) {
					t.Fatalf("%q: NaN in box %+v", raw, b)
				}
				if iq.limit < 1 || iq.limit > maxLimit {
					t.Fatalf("%q: limit %d accepted", raw, iq.limit)
				}
				if features && iq.hasCursor {
					if s := string(appendFeatureID(nil, iq.from)); s != q.Get("cursor") && !leadingZeros(q.Get("cursor")) {
						t.Fatalf("%q: cursor %q reads as %s", raw, q.Get("cursor"), s)
					}
				}
				return
			}
		}
		e, ok := err.(*Error)
		if !ok || e.Status != http.StatusBadRequest || e.Description == "" {
			t.Fatalf("%q: error %v is not a 400 with a description", raw, err)
		}
	})
}

func leadingZeros(s string) bool {
	return len(s) > 1 && (s[0] == '0' || bytes.Contains([]byte(s), []byte("-0")))
}

// FuzzFeatureID: a feature id reads back as it was written.
func FuzzFeatureID(f *testing.F) {
	f.Add(uint64(433102007), uint32(0), "433102007-0")
	f.Add(uint64(math.MaxUint64), uint32(math.MaxUint32), "1-")
	f.Fuzz(func(t *testing.T, frame uint64, seq uint32, s string) {
		k := bolt.FeatureKey{Frame: frame, Seq: seq}
		if got, ok := parseFeatureID(string(appendFeatureID(nil, k))); !ok || got != k {
			t.Fatalf("%+v reads back as %+v, %v", k, got, ok)
		}
		parseFeatureID(s) // never panics
	})
}
