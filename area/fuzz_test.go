package area

import (
	"errors"
	"testing"
)

// FuzzDecode: any bytes decode to a Spec or to an *Error of an API code,
// never a panic; a decoded Spec names exactly one area.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"place":"Dala","kind":"lga"}`,
		`{"bbox":[8.4,11.9,8.6,12.1]}`,
		`{"around":[8.5,12],"radiusKm":5}`,
		`{"inQuestion":true}`,
		`{"geometry":{"type":"Polygon","coordinates":[[[8,12],[8.1,12],[8.1,12.1],[8,12]]]}}`,
		`{"geometry":{"type":"MultiPolygon","coordinates":[[[[8,12],[8.1,12],[8.1,12.1],[8,12]]]]}}`,
		`{"place":"Dala","place":"Kano"}`,
		`{"bbox":[1e400,0,0,0]}`,
		`[]`, `null`, `"Dala"`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := Decode(raw)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || (ae.Code != CodeInvalid && ae.Code != CodeInvalidBody) || ae.Message == "" {
				t.Fatalf("Decode(%q): %v", raw, err)
			}
			return
		}
		n := 0
		for _, set := range []bool{s.Place != "", s.BBox != nil, s.geom != nil, s.Around != nil, s.InQuestion} {
			if set {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Decode(%q) = %+v: %d ways", raw, s, n)
		}
	})
}

// FuzzKey: keys and kind words never panic, and a key is its own key (so
// a stored name and a typed one meet however often they are keyed).
func FuzzKey(f *testing.F) {
	for _, s := range []string{"Dala LGA", "Akwa-Ibom State", "Qua'an Pan", "Ọ̀yọ́", "State of Kano", "", "lga", "l.g.a."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, kind := Key(s)
		if kind != "" && kind != "lga" && kind != "state" && kind != "ward" {
			t.Fatalf("Key(%q) kind %q", s, kind)
		}
		if k2, kind2 := Key(k); k2 != k || kind2 != "" {
			t.Fatalf("Key(%q) = %q; Key(%q) = %q, %q", s, k, k, k2, kind2)
		}
		closeEnough(k, k+"x")
	})
}
