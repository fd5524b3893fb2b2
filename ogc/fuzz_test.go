package ogc

import (
	"bytes"
	"math"
	"net/http"
	"testing"

	"frameindex/bolt"
)

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
