package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzChecker checks the attributes checker against encoding/json:
// whatever it accepts is a JSON object whose members are declared
// attributes, each once, with values of their declared types.
func FuzzChecker(f *testing.F) {
	for _, s := range []string{
		`{"n":1,"c":"a","t":"b"}`, // every type
		`{}`, ` { } `,             // empty, with white space
		`{"n":-0.5e+3}`, `{"n":1e400}`, `{"n":01}`, `{"n":1.}`, `{"n":-}`, // numbers, good and bad
		`{"c":"\u00e9\n"}`, `{"c":"\ud800"}`, "{\"c\":\"\xff\"}", `{"c":"\q"}`, // strings and escapes
		`{"\u006e":2}`,                 // an escaped name
		`{"n":1,"n":2}`,                // a member twice
		`{"x":1}`,                      // undeclared
		`{"c":null}`, `{"c":{}}`, `[]`, // wrong kinds
		`{"c":"a"}x`, `{"c":"a",}`, `{"c" "a"}`, `{"c":"a"`, // broken objects
	} {
		f.Add([]byte(s))
	}
	attrs := []Member{
		{Name: "n", Number: true, Type: "number"},
		{Name: "c", Type: "category"},
		{Name: "t", Type: "text"},
	}
	names := map[string]int{"n": 0, "c": 1, "t": 2}
	sc := NewChecker(attrs)
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := sc.Check(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("scan accepted %q, which is not JSON", b)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("scan accepted %q, which is not a JSON object: %v", b, err)
		}
		if len(m) != n {
			t.Fatalf("scan of %q counted %d members, encoding/json %d", b, n, len(m))
		}
		for k, v := range m {
			i, ok := names[k]
			if !ok {
				t.Fatalf("scan accepted undeclared %q in %q", k, b)
			}
			switch v.(type) {
			case float64:
				if !attrs[i].Number {
					t.Fatalf("scan accepted a number for %s in %q", k, b)
				}
			case string:
				if attrs[i].Number {
					t.Fatalf("scan accepted a string for %s in %q", k, b)
				}
			default:
				t.Fatalf("scan accepted %T for %s in %q", v, k, b)
			}
		}
	})
}

// FuzzCheckFeature checks that whatever CheckFeature accepts decodes as a
// JSON object with "type":"Feature".
func FuzzCheckFeature(f *testing.F) {
	for _, s := range []string{
		`{"type":"Feature","geometry":null,"properties":{}}`,                            // minimal
		`{"properties":{"type":"x"},"geometry":{"a":[1,{}]},"type":"Feature"}`,          // type last, nested values
		` {"id":"a,b:c","type" : "Feature"} `,                                           // separators inside strings
		`{"type":"Point"}`, `{"type":1}`, `[]`, `"Feature"`, `{`, `{"type":"Feature"}x`, // refused
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := CheckFeature(b, maxFeature); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("CheckFeature accepted %q: %v", b, err)
		}
		var typ string
		if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "Feature" {
			// encoding/json keeps the last of repeated members and
			// matches names without regard to case; CheckFeature takes
			// the first "type" exactly.
			if bytes.Count(bytes.ToLower(b), []byte(`"type"`)) < 2 {
				t.Fatalf("CheckFeature accepted %q: type %q", b, m["type"])
			}
		}
	})
}

// maxFeature is the largest feature the tests pass CheckFeature.
const maxFeature = 64 << 20

func TestCheckFeature(t *testing.T) {
	deep := strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)
	tests := []struct {
		name string
		f    string
		want string // error text; "" when accepted
	}{
		{name: "minimal", f: `{"type":"Feature","geometry":null,"properties":{}}`},
		{name: "type after nested values", f: `{"properties":{"type":"x"},"geometry":{"a":[1,{"type":2}]},"type":"Feature"}`},
		{name: "separators in strings", f: ` {"id":"a,b:}]\"c","type" : "Feature"} `},
		{name: "escaped value", f: `{"type":"Fe\u0061ture"}`},
		{name: "first type counts", f: `{"type":"Feature","type":1}`},
		{name: "first type counts, refused", f: `{"type":1,"type":"Feature"}`, want: `"type" is not a string`},
		{name: "escaped name is not matched", f: `{"typ\u0065":"Feature"}`, want: `no "type":"Feature" member`},
		{name: "null type", f: `{"type":null}`, want: `no "type":"Feature" member`},
		{name: "empty type", f: `{"type":""}`, want: `no "type":"Feature" member`},
		{name: "other type", f: `{"type":"Point"}`, want: `"type" is "Point", want "Feature"`},
		{name: "broken surrogate pair", f: `{"type":"\ud800\u0041"}`, want: "\"type\" is \"\ufffdA\", want \"Feature\""},
		{name: "array", f: `[]`, want: "not a JSON object"},
		{name: "string", f: `"Feature"`, want: "not a JSON object"},
		{name: "trailing data", f: `{"type":"Feature"}x`, want: "not valid JSON: invalid character 'x' after top-level value"},
		{name: "not closed", f: `{"type":`, want: "not valid JSON: unexpected end of JSON input"},
		{name: "invalid UTF-8", f: "{\"type\":\"Feature\",\"x\":\"\xff\"}", want: "not valid UTF-8"},
		{name: "nested past 10,000", f: `{"type":"Feature","g":` + deep + `}`, want: "exceeded max depth"},
	}
	if err := CheckFeature([]byte(`{"type":"Feature"}`), 10); err == nil || err.Error() != "18 bytes, at most 10" {
		t.Errorf("CheckFeature of 18 bytes, at most 10 = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFeature([]byte(tt.f), maxFeature)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckFeature(%.80q) = %v, want nil", tt.f, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckFeature(%.80q) = %v, want %q", tt.f, err, tt.want)
			}
		})
	}
}

// attrsRecords are 10,000 attribute objects of a dataset of a number, a
// category and a text: what an import checks per frame.
func attrsRecords() ([]Member, [][]byte) {
	ms := []Member{{Name: "population_2020", Number: true, Type: "number"}, {Name: "class", Type: "category"}, {Name: "note", Type: "text"}}
	recs := make([][]byte, 10_000)
	for i := range recs {
		recs[i] = []byte(`{"population_2020":` + strconv.Itoa(i*37%100_000) + `.25,"class":"urban","note":"a \"quoted\" caf\u00e9"}`)
	}
	return ms, recs
}

// BenchmarkChecker checks 10,000 attribute objects with Checker.
func BenchmarkChecker(b *testing.B) {
	ms, recs := attrsRecords()
	sc := NewChecker(ms)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range recs {
			if _, err := sc.Check(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckerGJSON makes BenchmarkChecker's checks with gjson:
// ValidBytes, then ParseBytes and ForEach over the members (the names
// declared, once each, numbers and strings as declared).
func BenchmarkCheckerGJSON(b *testing.B) {
	ms, recs := attrsRecords()
	names := map[string]int{}
	for i, m := range ms {
		names[m.Name] = i
	}
	seen := make([]int, len(ms))
	b.ReportAllocs()
	for b.Loop() {
		for k, r := range recs {
			if !gjson.ValidBytes(r) {
				b.Fatal("not valid")
			}
			ok := true
			gjson.ParseBytes(r).ForEach(func(name, value gjson.Result) bool {
				i, found := names[name.Str]
				if !found || seen[i] == k+1 || (value.Type == gjson.Number) != ms[i].Number || value.Type != gjson.Number && value.Type != gjson.String {
					ok = false
					return false
				}
				seen[i] = k + 1
				return true
			})
			if !ok {
				b.Fatal("refused")
			}
		}
	}
}
