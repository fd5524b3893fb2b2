package plan

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// corpusLine is one line of plan/testdata/corpus/*.jsonl (the schema is
// h/corpus's: see the files).
type corpusLine struct {
	ID       string `json:"id"`
	Q        string `json:"q"`
	Register string `json:"register"`
	Expect   struct {
		Agg         string   `json:"agg"`
		Measure     string   `json:"measure"`
		Measure2    string   `json:"measure2"`
		Filters     []cf     `json:"filters"`
		Join        string   `json:"join"`
		GroupBy     string   `json:"groupBy"`
		Order       string   `json:"order"`
		K           int      `json:"k"`
		DistanceKm  float64  `json:"distanceKm"`
		DistanceOp  string   `json:"distanceOp"`
		DistanceKm2 float64  `json:"distanceKm2"`
		Feature     string   `json:"feature"`
		Per         string   `json:"per"`
		Scale       float64  `json:"scale"`
		Place       string   `json:"place"`
		Confidence  string   `json:"confidence"`
		Unread      []string `json:"unread"`
	} `json:"expect"`
}

type cf struct {
	Measure string  `json:"measure"`
	Op      string  `json:"op"`
	Value   float64 `json:"value"`
	Value2  float64 `json:"value2"`
	Text    string  `json:"text"`
	Per     string  `json:"per"`
	Of      string  `json:"of"`
}

// Floors of TestCorpus: the share of the tuning lines whose plan must
// match in full. The held-out part is reported, never a floor (the
// parser was not tuned on it).
const tuningFloor = 0.90

// TestCorpus parses every corpus question against the demo's catalogue
// and compares the plan with the line's expect: agg, measures, filters
// (in any order), join, group, order and k (when expected), distance,
// per and scale (when expected), place, confidence and the unread words
// expected (each must be unread). A place outside the selection makes
// the answer partial in the engine, not here: for a line naming a
// place, the parser's exact matches an expected partial.
//
// It runs twice when /work/shared/data/nga is present: with a place
// lookup over the national names, and as the server reads (no lookup,
// the national states, LGAs and wards as the category values).
func TestCorpus(t *testing.T) {
	cats := map[string]*Catalogue{}
	if look := nationalPlaces(t); look != nil {
		cat := demoCatalogue()
		cat.Place = look
		cats["lookup"] = cat
		cats["values"] = nationalValues(t)
	} else {
		cats["demo"] = demoCatalogue()
	}
	for how, cat := range cats {
		for _, name := range []string{"tuning", "heldout"} {
			path := filepath.Join("testdata", "corpus", name+".jsonl")
			lines := readCorpus(t, path)
			if lines == nil {
				t.Logf("%s: no %s in this tree", name, path)
				continue
			}
			ok, reg := 0, 0
			for _, l := range lines {
				p := Parse(l.Q, cat)
				if p.Register == l.Register {
					reg++
				}
				if diff := compareCorpus(l, p); diff != "" {
					t.Logf("%s (%s) %s %q: %s\n\tgot %s", name, how, l.ID, l.Q, diff, summary(p))
					continue
				}
				ok++
			}
			score := float64(ok) / float64(len(lines))
			t.Logf("corpus %s (%s): %d of %d plans match (%.1f%%); register agrees on %d", name, how, ok, len(lines), 100*score, reg)
			if name == "tuning" && score < tuningFloor {
				t.Errorf("corpus tuning (%s): %.1f%% of plans match, below the floor of %.0f%%", how, 100*score, 100*tuningFloor)
			}
		}
	}
}

// nationalValues is the demo's catalogue with the national states, LGAs
// and wards as category values and no place lookup, as the server
// builds it.
func nationalValues(t *testing.T) *Catalogue {
	cat := demoCatalogue()
	cat.Place = nil
	for i, f := range []struct{ file, col string }{
		{"nga_lga_index.csv", "state_name"}, {"nga_lga_index.csv", "lga_name"}, {"nga_ward_points.csv", "ward_name"},
	} {
		fh, err := os.Open(filepath.Join("/work/shared/data/nga", f.file))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s: %v", f.file, err)
		}
		col := slices.Index(rows[0], f.col)
		var vs []string
		for _, row := range rows[1:] {
			vs = append(vs, row[col])
		}
		cat.Measures[i].Values = vs
	}
	return cat
}

func readCorpus(t *testing.T, path string) []corpusLine {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l corpusLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareCorpus says how p differs from l's expect; "" when it matches.
func compareCorpus(l corpusLine, p *Plan) string {
	e := l.Expect
	var d []string
	check := func(what string, want, got any) {
		if fmt.Sprint(want) != fmt.Sprint(got) {
			d = append(d, fmt.Sprintf("%s: want %v, got %v", what, want, got))
		}
	}
	check("agg", e.Agg, p.Agg)
	m1, m2 := "", ""
	if e.Agg != "unsupported" {
		if len(p.Measures) > 0 {
			m1 = p.Measures[0].Attribute
		}
		if len(p.Measures) > 1 {
			m2 = p.Measures[1].Attribute
		}
		check("measure", e.Measure, m1)
		check("measure2", e.Measure2, m2)
		var want, got []string
		for _, f := range e.Filters {
			want = append(want, filterKey(derivedKey(f.Measure, f.Per, f.Of), f.Op, f.Value, f.Value2, f.Text))
		}
		for _, f := range p.Filters {
			of := ""
			if f.Of != nil {
				of = f.Of.Attribute
			}
			got = append(got, filterKey(derivedKey(f.Measure.Attribute, f.Per, of), string(f.Op), f.Value, f.Value2, f.Text))
		}
		slices.Sort(want)
		slices.Sort(got)
		check("filters", want, got)
		if len(e.Filters) > 1 {
			check("join", e.Join, p.Join)
		}
		g := ""
		if p.Group != nil {
			g = p.Group.Measure.Attribute
		}
		check("groupBy", e.GroupBy, g)
		if e.Order != "" {
			o, k := "", 0
			if p.Order != nil {
				o, k = "asc", p.Order.K
				if p.Order.Desc {
					o = "desc"
				}
			}
			check("order", e.Order+fmt.Sprint(e.K), o+fmt.Sprint(k))
		}
		var km, km2 float64
		op, feat := "", ""
		if p.Distance != nil {
			km, km2, op, feat = p.Distance.Km, p.Distance.Km2, p.Distance.Op, p.Distance.Feature
		}
		check("distance", fmt.Sprint(e.DistanceKm, e.DistanceKm2, e.DistanceOp, e.Feature), fmt.Sprint(km, km2, op, feat))
		if e.Per != "" {
			check("per", e.Per, p.Per)
		}
		if e.Scale != 0 {
			check("scale", e.Scale, p.Scale)
		}
		place := strings.Join(p.Places, ", ")
		check("place", e.Place, place)
	}
	conf := p.Confidence()
	if !(e.Place != "" && e.Confidence == Partial && conf == Exact) {
		check("confidence", e.Confidence, conf)
	}
	unread := p.Unread()
	for _, u := range e.Unread {
		if !slices.ContainsFunc(unread, func(w string) bool { return strings.EqualFold(w, u) }) {
			d = append(d, fmt.Sprintf("unread: want %q among %q", u, unread))
		}
	}
	return strings.Join(d, "; ")
}

// derivedKey names a density or ratio filter's measure with what it is
// per.
func derivedKey(m, per, of string) string {
	switch {
	case per != "":
		return m + "/" + per
	case of != "":
		return m + "/" + of
	}
	return m
}

func filterKey(m, op string, v, v2 float64, text string) string {
	if text != "" {
		return m + op + strings.ToLower(text)
	}
	r := func(x float64) float64 { return math.Round(x*1e6) / 1e6 }
	if op == "between" {
		return fmt.Sprint(m, op, r(v), "..", r(v2))
	}
	return fmt.Sprint(m, op, r(v))
}

var (
	placesOnce sync.Once
	placeNames map[string]bool
)

// nationalPlaces is a place lookup over the names of the states, LGAs
// and towns in /work/shared/data/nga (nil when the folder is absent:
// the corpus lines naming a place then fail, and are counted so).
func nationalPlaces(t *testing.T) func([]string) (int, bool) {
	placesOnce.Do(func() {
		dir := "/work/shared/data/nga"
		names := map[string]bool{}
		for _, f := range []struct{ file, col string }{
			{"nga_lga_index.csv", "lga_name"}, {"nga_lga_index.csv", "state_name"},
			{"nga_cities_geonames.csv", "name"},
		} {
			fh, err := os.Open(filepath.Join(dir, f.file))
			if err != nil {
				return
			}
			rows, err := csv.NewReader(fh).ReadAll()
			fh.Close()
			if err != nil || len(rows) == 0 {
				return
			}
			col := slices.Index(rows[0], f.col)
			for _, row := range rows[1:] {
				if col >= 0 && col < len(row) {
					names[strings.ToLower(row[col])] = true
				}
			}
		}
		placeNames = names
	})
	if placeNames == nil {
		t.Logf("no place names: /work/shared/data/nga is absent")
		return nil
	}
	return func(ws []string) (int, bool) {
		for n := min(len(ws), 4); n > 0; n-- {
			if placeNames[strings.ToLower(strings.Join(ws[:n], " "))] {
				return n, true
			}
		}
		return 0, false
	}
}
