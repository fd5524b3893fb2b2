package e2e

// The question corpus (issue 22): every line of plan/testdata/corpus is
// asked of the real binary on the national demo, and the answer's typed
// reading (the `plan` member) is compared with the line's expectation and
// its figure (the `result` member) with the oracle's, computed here from
// what the data call and the OGC features collection return. Held-out and
// tuning questions are scored apart; the test fails only when a score is
// below its floor.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"frameindex/grid"
	"frameindex/internal/oracle"
)

// Floors of the corpus scores, in percent: a few points under the scores
// measured on 2026-11-27 after the nearest features were measured from
// frame centres and the issue 22 gaps were closed (held-out: plans 93.8%,
// figures 100%; tuning: plans 98.8%, figures 99.2%), so that a later
// change that reads worse fails.
const (
	floorHeldoutPlan   = 90.0
	floorHeldoutFigure = 96.0
	floorTuningPlan    = 95.0
	floorTuningFigure  = 96.0
)

// corpusDir holds the corpus files, relative to this package.
var corpusDir = filepath.Join("..", "plan", "testdata", "corpus")

// wireMeasure is a plan.Measure as the answer carries it.
type wireMeasure struct {
	Dataset   string `json:"dataset"`
	Attribute string `json:"attribute"`
	Match     string `json:"match"`
}

// wirePlan is the answer's `plan` member: plan.Plan as JSON plus the
// unread words and the plain reading.
type wirePlan struct {
	Agg      string        `json:"agg"`
	Measures []wireMeasure `json:"measures"`
	Filters  []struct {
		Measure wireMeasure  `json:"measure"`
		Op      string       `json:"op"`
		Value   float64      `json:"value"`
		Value2  float64      `json:"value2"`
		Text    string       `json:"text"`
		Not     bool         `json:"not"`
		Per     string       `json:"per"`
		Of      *wireMeasure `json:"of"`
	} `json:"filters"`
	Join  string `json:"join"`
	Group *struct {
		Measure wireMeasure `json:"measure"`
	} `json:"group"`
	Order *struct {
		Desc bool `json:"desc"`
		K    int  `json:"k"`
	} `json:"order"`
	Distance *struct {
		Feature string  `json:"feature"`
		Km      float64 `json:"km"`
		Km2     float64 `json:"km2"`
		Op      string  `json:"op"`
	} `json:"distance"`
	Per    string   `json:"per"`
	Scale  float64  `json:"scale"`
	Places []string `json:"places"`
	Unread []string `json:"unread"`
	Notes  []string `json:"notes"`
	ReadAs string   `json:"readAs"`
}

// wireResult is the answer's `result` member.
type wireResult struct {
	Value  *float64 `json:"value"`
	Unit   string   `json:"unit"`
	Frames []string `json:"frames"`
	Groups []struct {
		Key   string  `json:"key"`
		Value float64 `json:"value"`
	} `json:"groups"`
}

// corpusAnswer is what the harness reads of an answer.
type corpusAnswer struct {
	Confidence string      `json:"confidence"`
	Plan       *wirePlan   `json:"plan"`
	Result     *wireResult `json:"result"`
}

// integral measures hold whole numbers: "more than 1,000" and "at least
// 1,001" select the same frames of them, and so do "with a clinic" (> 0,
// != 0) and "at least one".
var integral = map[string]bool{"population_2020": true, "building_count": true, "facility_count": true}

// canonFilter writes a condition in one form: negation folded into the
// operator, strict bounds on whole numbers made inclusive, text lower case.
func canonFilter(measure, op string, value, value2 float64, text string, not bool) string {
	if not {
		op = map[string]string{"=": "!=", "!=": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "between": "!between"}[op]
	}
	if text != "" {
		return fmt.Sprintf("%s %s %q", measure, op, strings.ToLower(strings.TrimSpace(text)))
	}
	if integral[measure] && value == math.Trunc(value) {
		switch {
		case op == ">":
			op, value = ">=", value+1
		case op == "<":
			op, value = "<=", value-1
		case op == "!=" && value == 0:
			op, value = ">=", 1
		}
	}
	if op == "between" || op == "!between" {
		return fmt.Sprintf("%s %s %g %g", measure, op, value, value2)
	}
	return fmt.Sprintf("%s %s %g", measure, op, value)
}

// canonAgg folds the aggregations that ask the same: the top frame is the
// maximum, the bottom one the minimum, and groups ranked by their totals
// are totals by group with an order.
func canonAgg(agg, groupBy, order string, k int) string {
	switch {
	case agg == "rank" && groupBy != "":
		return "total"
	case agg == "rank" && k == 1 && order == "desc":
		return "max"
	case agg == "rank" && k == 1 && order == "asc":
		return "min"
	}
	return agg
}

func samePlace(a, b string) bool {
	trim := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		for _, suf := range []string{" lga", " local government area", " state", " ward"} {
			s = strings.TrimSuffix(s, suf)
		}
		return s
	}
	return trim(a) == trim(b)
}

// planMismatch lists how the answer's reading differs from the
// expectation; none means the plan matches.
func planMismatch(e oracle.Expect, p *wirePlan, confidence string) []string {
	if p == nil {
		return []string{"the answer has no plan"}
	}
	var why []string
	diff := func(what string, want, got any) {
		why = append(why, fmt.Sprintf("%s: want %v, got %v", what, want, got))
	}
	group := ""
	if p.Group != nil {
		group = p.Group.Measure.Attribute
	}
	order, k := "", 0
	if p.Order != nil {
		order, k = "asc", p.Order.K
		if p.Order.Desc {
			order = "desc"
		}
	}
	if w, g := canonAgg(e.Agg, e.GroupBy, e.Order, e.K), canonAgg(p.Agg, group, order, k); w != g {
		diff("agg", w, g)
	}
	if e.Confidence != confidence {
		diff("confidence", e.Confidence, confidence)
	}
	if e.Agg == "unsupported" || e.Agg == "profile" {
		return why // nothing else to read
	}
	var measures []string
	for _, m := range p.Measures {
		measures = append(measures, m.Attribute)
	}
	switch {
	case e.Measure != "":
		if len(measures) == 0 || measures[0] != e.Measure {
			diff("measure", e.Measure, measures)
		}
	case e.Agg == "share" || e.Agg == "coverage":
		// A share or coverage of frames, not of a measure.
		if len(measures) > 0 {
			diff("measure", "none (frames)", measures)
		}
	}
	if e.Measure2 != "" && (len(measures) < 2 || measures[1] != e.Measure2) {
		diff("measure2", e.Measure2, measures)
	}
	var wantF, gotF []string
	// A density or ratio filter compares a derived measure, never a
	// whole number: its name carries what it is per.
	derived := func(measure, per, of string) string {
		switch {
		case per != "":
			return measure + " per " + per
		case of != "":
			return measure + " per " + of
		}
		return measure
	}
	for _, f := range e.Filters {
		wantF = append(wantF, canonFilter(derived(f.Measure, f.Per, f.Of), f.Op, f.Value, f.Value2, f.Text, false))
	}
	for _, f := range p.Filters {
		of := ""
		if f.Of != nil {
			of = f.Of.Attribute
		}
		gotF = append(gotF, canonFilter(derived(f.Measure.Attribute, f.Per, of), f.Op, f.Value, f.Value2, f.Text, f.Not))
	}
	sort.Strings(wantF)
	sort.Strings(gotF)
	if !slices.Equal(wantF, gotF) {
		diff("filters", wantF, gotF)
	}
	if len(e.Filters) > 1 {
		join := p.Join
		if join == "" {
			join = "and"
		}
		if e.Join != join {
			diff("join", e.Join, join)
		}
	}
	if e.GroupBy != group {
		diff("groupBy", e.GroupBy, group)
	}
	if e.Order != "" && (e.Order != order || e.K != k) && canonAgg(e.Agg, e.GroupBy, e.Order, e.K) == e.Agg {
		diff("order", fmt.Sprintf("%s %d", e.Order, e.K), fmt.Sprintf("%s %d", order, k))
	}
	feature, km, km2, op := "", 0.0, 0.0, ""
	if p.Distance != nil {
		feature, km, km2, op = p.Distance.Feature, p.Distance.Km, p.Distance.Km2, p.Distance.Op
	}
	if e.Feature != "" && feature != e.Feature {
		// A features count may name its dataset as a measure's dataset.
		named := false
		for _, m := range p.Measures {
			named = named || (e.Agg == "featurecount" && m.Dataset == e.Feature)
		}
		if !named {
			diff("feature", e.Feature, feature)
		}
	}
	if e.DistanceOp != op || e.DistanceKm != km || e.DistanceKm2 != km2 {
		diff("distance", fmt.Sprintf("%s %g %g km", e.DistanceOp, e.DistanceKm, e.DistanceKm2), fmt.Sprintf("%s %g %g km", op, km, km2))
	}
	if per := strings.TrimSuffix(p.Per, "km2"); e.Per != per {
		diff("per", e.Per, p.Per)
	}
	if ws, gs := math.Max(e.Scale, 1), math.Max(p.Scale, 1); ws != gs {
		diff("scale", ws, gs)
	}
	switch {
	case e.Place == "" && len(p.Places) > 0:
		diff("places", "none", p.Places)
	case e.Place != "" && !slices.ContainsFunc(p.Places, func(s string) bool { return samePlace(s, e.Place) }):
		diff("places", e.Place, p.Places)
	}
	var unread []string
	for _, w := range p.Unread {
		unread = append(unread, strings.ToLower(strings.Trim(w, ".,;:!?\"'()")))
	}
	// A word read loosely may be named in a note rather than listed
	// ("The year 2015 was not read"): either way the answer says so.
	for _, n := range p.Notes {
		for _, w := range strings.Fields(n) {
			unread = append(unread, strings.ToLower(strings.Trim(w, ".,;:!?\"'()")))
		}
	}
	for _, w := range e.Unread {
		if !slices.Contains(unread, strings.ToLower(w)) {
			diff("unread", e.Unread, append(p.Unread, p.Notes...))
			break
		}
	}
	return why
}

// closeTo compares figures at a relative 1e-6 (absolute near zero).
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-3)
}

// figureMismatch says how the answer's figure differs from the oracle's;
// "" means it matches. value gives the expected measure of a frame (for
// a rank, whose ties may be listed in any order).
func figureMismatch(e oracle.Expect, want oracle.Result, got *wireResult, value, distance func(id string) (float64, bool)) string {
	if !want.Defined {
		// A place outside the selection: no figure about the selection.
		if got != nil && got.Value != nil {
			return fmt.Sprintf("a figure (%g) where none can be computed", *got.Value)
		}
		return ""
	}
	if got == nil {
		return fmt.Sprintf("the answer has no result; want %s", describeResult(want))
	}
	if want.Groups != nil {
		if len(got.Groups) == 0 {
			return fmt.Sprintf("no groups, want %v", want.Groups)
		}
		keys := map[string]bool{}
		for _, g := range got.Groups {
			w, ok := want.Groups[g.Key]
			if !ok || !closeTo(g.Value, w) {
				return fmt.Sprintf("group %q = %g, want %g (%v)", g.Key, g.Value, w, ok)
			}
			keys[g.Key] = true
		}
		n := len(want.Groups)
		if e.K > 0 {
			top := oracle.TopGroups(want.Groups, e.Order == "asc", e.K)
			for _, k := range top {
				if !keys[k] {
					return fmt.Sprintf("groups %v, want the top %v", got.Groups, top)
				}
			}
			n = len(top)
		}
		if len(keys) != n {
			return fmt.Sprintf("%d groups, want %d", len(keys), n)
		}
		return ""
	}
	if e.Agg == "rank" {
		if len(got.Frames) != len(want.Frames) {
			return fmt.Sprintf("%d frames ranked, want %d", len(got.Frames), len(want.Frames))
		}
		for i, id := range got.Frames {
			v, ok := value(id)
			w, _ := value(want.Frames[i])
			if !ok || v != w {
				return fmt.Sprintf("rank %d: frame %s (%g), want a frame of %g such as %s", i+1, id, v, w, want.Frames[i])
			}
		}
		return ""
	}
	if (e.Agg == "nearest" || e.Agg == "farthest") && e.K > 0 {
		// The K frames by distance: each listed frame's distance is the
		// oracle's at its rank (ties may be listed in any order).
		if len(got.Frames) != len(want.Frames) {
			return fmt.Sprintf("%d frames listed, want %d", len(got.Frames), len(want.Frames))
		}
		for i, id := range got.Frames {
			d, ok := distance(id)
			w, _ := distance(want.Frames[i])
			if !ok || !(d == w || closeTo(d, w)) {
				return fmt.Sprintf("rank %d: frame %s at %g km, want a frame at %g km such as %s", i+1, id, d, w, want.Frames[i])
			}
		}
	}
	if got.Value == nil {
		return fmt.Sprintf("no value, want %g", want.Value)
	}
	if !closeTo(*got.Value, want.Value) {
		return fmt.Sprintf("value %g, want %g", *got.Value, want.Value)
	}
	if want.Frames != nil && (len(got.Frames) == 0 || !slices.Contains(want.Frames, got.Frames[0])) {
		return fmt.Sprintf("frame %v, want one of %v", got.Frames, want.Frames)
	}
	return ""
}

// describeResult writes the oracle's figure for a log line.
func describeResult(r oracle.Result) string {
	switch {
	case r.Groups != nil:
		keys := oracle.TopGroups(r.Groups, false, 0)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %g", k, r.Groups[k])
		}
		return "groups " + strings.Join(parts, ", ")
	case r.Frames != nil:
		return fmt.Sprintf("%g, frames %v", r.Value, r.Frames)
	}
	return fmt.Sprintf("%g", r.Value)
}

// corpusFrames reads the frames of ids through the data call (100 a
// call) as the oracle takes them: centre and area of the lattice square
// worked out here, attributes and the count of features of each dataset.
func corpusFrames(t *testing.T, s *server, key string, ids []string) []oracle.Frame {
	t.Helper()
	var out []oracle.Frame
	for start := 0; start < len(ids); start += 100 {
		d, r := s.data(t, key, strings.Join(ids[start:min(start+100, len(ids))], ","))
		if r.Status != 200 {
			t.Fatalf("data: %d %+v", r.Status, r.Error)
		}
		if len(d.LeftOut) > 0 {
			t.Fatalf("data left datasets out: %+v (the harness tops credits up first)", d.LeftOut)
		}
		for _, f := range d.Frames {
			id, err := strconv.ParseUint(f.ID, 10, 64)
			if err != nil || f.BBox == nil {
				t.Fatalf("data: frame %q unknown", f.ID)
			}
			row, col, _ := grid.RowCol(id)
			box := grid.CellBox(row, col)
			fr := oracle.Frame{ID: f.ID, Lon: (box.MinLon + box.MaxLon) / 2, Lat: (box.MinLat + box.MaxLat) / 2,
				AreaKm2: cellAreaKm2(box), Attrs: map[string]any{}, Features: map[string]int{}}
			for _, ds := range f.Datasets {
				for k, v := range ds.Attributes {
					fr.Attrs[k] = v
				}
				if ds.FeatureCount > 0 {
					fr.Features[ds.ID] = ds.FeatureCount
				} else if ds.Features != nil {
					fr.Features[ds.ID] = len(ds.Features.Features)
				}
			}
			out = append(out, fr)
		}
	}
	return out
}

// featurePoints reads every feature of a dataset in the country through
// the OGC features collection, paging with its next links: the data call
// would need every frame that holds one. Points are taken as they are;
// other geometries by their first vertex (they are only counted).
func featurePoints(t *testing.T, s *server, key, dataset string) []oracle.Point {
	t.Helper()
	var out []oracle.Point
	next := s.base + "/ogc/collections/" + dataset + "-features/items?limit=10000"
	for pages := 0; next != ""; pages++ {
		if pages > 100 {
			t.Fatalf("%s features: more than 100 pages", dataset)
		}
		req, _ := http.NewRequest(http.MethodGet, next, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s features: %d %s", dataset, res.StatusCode, body)
		}
		var page struct {
			Features []struct {
				Geometry struct {
					Type        string          `json:"type"`
					Coordinates json.RawMessage `json:"coordinates"`
				} `json:"geometry"`
			} `json:"features"`
			Links []struct{ Href, Rel string } `json:"links"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%s features: %v", dataset, err)
		}
		for _, f := range page.Features {
			var xy []float64
			switch f.Geometry.Type {
			case "Point":
				json.Unmarshal(f.Geometry.Coordinates, &xy)
			case "Polygon":
				var rings [][][]float64
				if json.Unmarshal(f.Geometry.Coordinates, &rings) == nil && len(rings) > 0 && len(rings[0]) > 0 {
					xy = rings[0][0]
				}
			}
			if len(xy) < 2 {
				t.Fatalf("%s features: geometry %s %s", dataset, f.Geometry.Type, f.Geometry.Coordinates)
			}
			out = append(out, oracle.Point{Lon: xy[0], Lat: xy[1]})
		}
		next = ""
		for _, l := range page.Links {
			if l.Rel == "next" {
				next = l.Href
			}
		}
	}
	return out
}

// corpusSelection resolves a selection: the frames GET /v1/frames returns
// for its box and limit, in ascending id.
func corpusSelection(t *testing.T, s *server, key string, sel oracle.Selection) []string {
	t.Helper()
	b := sel.BBox
	q := url.Values{"bbox": {fmt.Sprintf("%g,%g,%g,%g", b[0], b[1], b[2], b[3])}, "limit": {strconv.Itoa(sel.Limit)}}
	r := s.get(t, key, "/v1/frames?"+q.Encode())
	var fc collection
	if r.Status != 200 || json.Unmarshal(r.Data, &fc) != nil {
		t.Fatalf("frames of %v: %d %+v", b, r.Status, r.Error)
	}
	var ids []string
	for _, f := range fc.Features {
		ids = append(ids, f.ID)
	}
	slices.SortFunc(ids, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		return cmp.Compare(x, y)
	})
	if len(ids) != sel.Limit {
		t.Fatalf("selection %v: %d frames, want %d", b, len(ids), sel.Limit)
	}
	return ids
}

// corpusScore counts one file's matches.
type corpusScore struct {
	lines, plans, figures, figureLines int
	byAgg, byRegister                  map[string][2]int // agg or register -> plans matched, lines
}

func (c corpusScore) planPct() float64 { return 100 * float64(c.plans) / math.Max(1, float64(c.lines)) }
func (c corpusScore) figurePct() float64 {
	return 100 * float64(c.figures) / math.Max(1, float64(c.figureLines))
}

// tally writes counts of matches by key: "gis 3/17, plain 40/112".
func tally(m map[string][2]int) string {
	parts := make([]string, 0, len(m))
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, n[0], n[1]))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// TestE2E_Corpus asks every corpus question of the demo and scores the
// plans and figures of the held-out and the tuning parts.
func TestE2E_Corpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	raw, err := os.ReadFile(filepath.Join(corpusDir, "selections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sels map[string]oracle.Selection
	if err := json.Unmarshal(raw, &sels); err != nil {
		t.Fatal(err)
	}
	files := []struct {
		name                string
		floorPlan, floorFig float64
	}{
		{"heldout.jsonl", floorHeldoutPlan, floorHeldoutFigure},
		{"tuning.jsonl", floorTuningPlan, floorTuningFigure},
	}
	lines := map[string][]oracle.Line{}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(corpusDir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		lines[f.name], err = oracle.ReadLines(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}

	data := filepath.Join(t.TempDir(), "demo.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0",
		"--limit-insight-burst", "0", "--limit-key-burst", "0", "--limit-org-burst", "0")
	key := secretRe.FindString(srv.stdout.String())
	if key == "" {
		t.Fatalf("demo printed no key:\n%s", srv.stdout)
	}
	// Night lights are charged per call: enough credits that no answer
	// leaves them out.
	mustCLI(t, "org", "credits", "demo", "--add", "100000", "--note", "corpus harness", "--data", data)

	features := map[string][]oracle.Point{}
	for _, ds := range []string{"health", "buildings"} {
		features[ds] = featurePoints(t, srv, key, ds)
	}
	if len(features["health"]) < 1000 {
		t.Fatalf("%d health facilities in the country, want thousands", len(features["health"]))
	}
	selFrames := map[string][]oracle.Frame{}
	selIDs := map[string][]string{}
	for name, sel := range sels {
		if sel.Fixture != "" {
			t.Fatalf("selection %s names fixture %q: the harness asks the demo only", name, sel.Fixture)
		}
		selIDs[name] = corpusSelection(t, srv, key, sel)
		selFrames[name] = corpusFrames(t, srv, key, selIDs[name])
	}

	for _, f := range files {
		sc := corpusScore{byAgg: map[string][2]int{}, byRegister: map[string][2]int{}}
		for _, l := range lines[f.name] {
			frames, ok := selFrames[l.Select]
			if !ok {
				t.Fatalf("%s %s: unknown selection %q", f.name, l.ID, l.Select)
			}
			body, _ := json.Marshal(map[string]any{"frameIds": selIDs[l.Select], "question": l.Q})
			_, r := srv.ask(t, key, string(body))
			if r.Status != 200 {
				t.Fatalf("%s %s %q: %d %+v", f.name, l.ID, l.Q, r.Status, r.Error)
			}
			var a corpusAnswer
			if err := json.Unmarshal(r.Data, &a); err != nil {
				t.Fatalf("%s %s: %v", f.name, l.ID, err)
			}
			sc.lines++
			agg, reg := sc.byAgg[l.Expect.Agg], sc.byRegister[l.Register]
			agg[1]++
			reg[1]++
			if why := planMismatch(l.Expect, a.Plan, a.Confidence); len(why) == 0 {
				sc.plans++
				agg[0]++
				reg[0]++
			} else {
				t.Logf("%s %s %q: plan: %s", f.name, l.ID, l.Q, strings.Join(why, "; "))
			}
			sc.byAgg[l.Expect.Agg], sc.byRegister[l.Register] = agg, reg
			if l.Expect.Confidence == "unknown" {
				continue // nothing to compute
			}
			sc.figureLines++
			want := oracle.Eval(l.Expect, frames, features)
			byID := map[string]*oracle.Frame{}
			for i := range frames {
				byID[frames[i].ID] = &frames[i]
			}
			value := func(id string) (float64, bool) {
				if fr := byID[id]; fr != nil {
					v, ok := fr.Attrs[l.Expect.Measure].(float64)
					return v, ok
				}
				return 0, false
			}
			distance := func(id string) (float64, bool) {
				if fr := byID[id]; fr != nil {
					return oracle.NearestKm(fr.Lon, fr.Lat, features[l.Expect.Feature]), true
				}
				return 0, false
			}
			if why := figureMismatch(l.Expect, want, a.Result, value, distance); why == "" {
				sc.figures++
			} else {
				t.Logf("%s %s %q: figure: %s", f.name, l.ID, l.Q, why)
			}
		}
		t.Logf("corpus %s: plans %d/%d (%.1f%%), figures %d/%d (%.1f%%); plans by register: %s; by agg: %s",
			f.name, sc.plans, sc.lines, sc.planPct(), sc.figures, sc.figureLines, sc.figurePct(), tally(sc.byRegister), tally(sc.byAgg))
		if sc.planPct() < f.floorPlan || sc.figurePct() < f.floorFig {
			t.Errorf("corpus %s: plans %.1f%% (floor %.1f%%), figures %.1f%% (floor %.1f%%)",
				f.name, sc.planPct(), f.floorPlan, sc.figurePct(), f.floorFig)
		}
	}
	srv.stop(t, os.Interrupt)
}

// TestCorpusPlanMismatch checks the harness's own reading of plans: the
// forms it folds together and the differences it must catch.
func TestCorpusPlanMismatch(t *testing.T) {
	parse := func(s string) *wirePlan {
		var p wirePlan
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			t.Fatal(err)
		}
		return &p
	}
	pop := `{"dataset":"population","attribute":"population_2020","match":"alias"}`
	fac := `{"dataset":"health","attribute":"facility_count","match":"alias"}`
	cls := `{"dataset":"settlement","attribute":"settlement_class","match":"alias"}`
	count := oracle.Expect{Agg: "count", Filters: []oracle.Filter{
		{Measure: "population_2020", Op: ">", Value: 1000}, {Measure: "facility_count", Op: "=", Value: 0}}, Join: "and", Confidence: "exact"}
	urbanClinic := oracle.Expect{Agg: "count", Filters: []oracle.Filter{
		{Measure: "settlement_class", Op: "!=", Text: "urban"}, {Measure: "facility_count", Op: ">=", Value: 1}}, Join: "or", Confidence: "exact"}
	cases := []struct {
		name  string
		e     oracle.Expect
		plan  string
		conf  string
		match bool
	}{
		{"filters in another order, > as >=", count,
			`{"agg":"count","filters":[{"measure":` + fac + `,"op":"=","value":0},{"measure":` + pop + `,"op":">=","value":1001}]}`, "exact", true},
		{"a bound one off", count,
			`{"agg":"count","filters":[{"measure":` + fac + `,"op":"=","value":0},{"measure":` + pop + `,"op":">=","value":1000}]}`, "exact", false},
		{"a filter missing", count, `{"agg":"count","filters":[{"measure":` + pop + `,"op":">","value":1000}]}`, "exact", false},
		{"negation folded, != 0 as >= 1, or", urbanClinic,
			`{"agg":"count","join":"or","filters":[{"measure":` + cls + `,"op":"=","text":"Urban","not":true},{"measure":` + fac + `,"op":"!=","value":0}]}`, "exact", true},
		{"and for or", urbanClinic,
			`{"agg":"count","filters":[{"measure":` + cls + `,"op":"!=","text":"urban"},{"measure":` + fac + `,"op":">","value":0}]}`, "exact", false},
		{"confidence differs", count,
			`{"agg":"count","filters":[{"measure":` + fac + `,"op":"=","value":0},{"measure":` + pop + `,"op":">","value":1000}]}`, "partial", false},
		{"mean is not total", oracle.Expect{Agg: "mean", Measure: "population_2020", Confidence: "exact"},
			`{"agg":"total","measures":[` + pop + `]}`, "exact", false},
		{"top 1 is the maximum", oracle.Expect{Agg: "max", Measure: "population_2020", Confidence: "exact"},
			`{"agg":"rank","measures":[` + pop + `],"order":{"desc":true,"k":1}}`, "exact", true},
		{"groups ranked", oracle.Expect{Agg: "total", Measure: "population_2020", GroupBy: "lga", Order: "desc", K: 1, Confidence: "exact"},
			`{"agg":"rank","measures":[` + pop + `],"group":{"measure":{"attribute":"lga"}},"order":{"desc":true,"k":1}}`, "exact", true},
		{"groups ranked the wrong way", oracle.Expect{Agg: "total", Measure: "population_2020", GroupBy: "lga", Order: "desc", K: 1, Confidence: "exact"},
			`{"agg":"rank","measures":[` + pop + `],"group":{"measure":{"attribute":"lga"}},"order":{"k":1}}`, "exact", false},
		{"farthest is not nearest", oracle.Expect{Agg: "farthest", Feature: "health", Confidence: "exact"},
			`{"agg":"nearest","distance":{"feature":"health"}}`, "exact", false},
		{"coverage beyond", oracle.Expect{Agg: "coverage", Measure: "population_2020", DistanceKm: 5, DistanceOp: "beyond", Feature: "health", Confidence: "exact"},
			`{"agg":"coverage","measures":[` + pop + `],"distance":{"feature":"health","km":5,"op":"beyond"}}`, "exact", true},
		{"coverage within for beyond", oracle.Expect{Agg: "coverage", Measure: "population_2020", DistanceKm: 5, DistanceOp: "beyond", Feature: "health", Confidence: "exact"},
			`{"agg":"coverage","measures":[` + pop + `],"distance":{"feature":"health","km":5,"op":"within"}}`, "exact", false},
		{"coverage of frames is not of people", oracle.Expect{Agg: "coverage", DistanceKm: 10, DistanceOp: "beyond", Feature: "health", Confidence: "exact"},
			`{"agg":"coverage","measures":[` + pop + `],"distance":{"feature":"health","km":10,"op":"beyond"}}`, "exact", false},
		{"a place outside, named", oracle.Expect{Agg: "total", Measure: "population_2020", Place: "Dala", Confidence: "partial"},
			`{"agg":"total","measures":[` + pop + `],"places":["Dala LGA"]}`, "partial", true},
		{"a place not read", oracle.Expect{Agg: "total", Measure: "population_2020", Place: "Dala", Confidence: "partial"},
			`{"agg":"total","measures":[` + pop + `]}`, "partial", false},
		{"unread listed", oracle.Expect{Agg: "total", Measure: "population_2020", Confidence: "partial", Unread: []string{"muslim"}},
			`{"agg":"total","measures":[` + pop + `],"unread":["Muslim,","many"]}`, "partial", true},
		{"unread named in a note", oracle.Expect{Agg: "total", Measure: "population_2020", Confidence: "partial", Unread: []string{"2015"}},
			`{"agg":"total","measures":[` + pop + `],"notes":["The year 2015 was not read: population_2020 is of 2020."]}`, "partial", true},
		{"unread not listed", oracle.Expect{Agg: "total", Measure: "population_2020", Confidence: "partial", Unread: []string{"muslim"}},
			`{"agg":"total","measures":[` + pop + `]}`, "partial", false},
		{"ratio scale", oracle.Expect{Agg: "ratio", Measure: "facility_count", Measure2: "population_2020", Scale: 1e5, Confidence: "exact"},
			`{"agg":"ratio","measures":[` + fac + `,` + pop + `],"scale":100000}`, "exact", true},
		{"ratio upside down", oracle.Expect{Agg: "ratio", Measure: "facility_count", Measure2: "population_2020", Scale: 1e5, Confidence: "exact"},
			`{"agg":"ratio","measures":[` + pop + `,` + fac + `],"scale":100000}`, "exact", false},
		{"density per km² by default", oracle.Expect{Agg: "density", Measure: "population_2020", Confidence: "exact"},
			`{"agg":"density","measures":[` + pop + `],"per":"km2"}`, "exact", true},
		{"density per hectare", oracle.Expect{Agg: "density", Measure: "population_2020", Per: "ha", Confidence: "exact"},
			`{"agg":"density","measures":[` + pop + `],"per":"km2"}`, "exact", false},
		{"unsupported", oracle.Expect{Agg: "unsupported", Confidence: "unknown", Unread: []string{"gdp"}},
			`{"agg":"unsupported","unread":["GDP"]}`, "unknown", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			why := planMismatch(c.e, parse(c.plan), c.conf)
			if (len(why) == 0) != c.match {
				t.Errorf("match %v, want %v: %v", len(why) == 0, c.match, why)
			}
		})
	}
	if why := planMismatch(count, nil, "exact"); len(why) == 0 {
		t.Error("an answer without a plan matched")
	}
}

// TestCorpusFigureMismatch checks the harness's comparison of figures.
func TestCorpusFigureMismatch(t *testing.T) {
	vals := map[string]float64{"1": 100, "2": 50, "3": 50, "4": 10}
	value := func(id string) (float64, bool) { v, ok := vals[id]; return v, ok }
	f := func(v float64) *float64 { return &v }
	rank := oracle.Expect{Agg: "rank", Measure: "population_2020", Order: "desc", K: 3}
	groups := oracle.Expect{Agg: "total", Measure: "population_2020", GroupBy: "lga", Order: "desc", K: 1}
	far2 := oracle.Expect{Agg: "farthest", Feature: "health", Order: "desc", K: 2}
	dists := map[string]float64{"1": 0.5, "4": 7.5, "5": 7.5}
	distance := func(id string) (float64, bool) { d, ok := dists[id]; return d, ok }
	type g = struct {
		Key   string  `json:"key"`
		Value float64 `json:"value"`
	}
	cases := []struct {
		name  string
		e     oracle.Expect
		want  oracle.Result
		got   *wireResult
		match bool
	}{
		{"value within 1e-6", oracle.Expect{Agg: "mean"}, oracle.Result{Value: 0.185, Defined: true}, &wireResult{Value: f(0.1850000001)}, true},
		{"value rounded", oracle.Expect{Agg: "mean"}, oracle.Result{Value: 0.185, Defined: true}, &wireResult{Value: f(0.18)}, false},
		{"zero", oracle.Expect{Agg: "count"}, oracle.Result{Value: 0, Defined: true}, &wireResult{Value: f(0)}, true},
		{"no result", oracle.Expect{Agg: "count"}, oracle.Result{Value: 3, Defined: true}, nil, false},
		{"nothing computable, nothing given", oracle.Expect{Agg: "total", Place: "Dala"}, oracle.Result{}, &wireResult{}, true},
		{"nothing computable, a figure given", oracle.Expect{Agg: "total", Place: "Dala"}, oracle.Result{}, &wireResult{Value: f(504724)}, false},
		{"rank with ties in another order", rank, oracle.Result{Value: 100, Frames: []string{"1", "2", "3"}, Defined: true},
			&wireResult{Value: f(100), Frames: []string{"1", "3", "2"}}, true},
		{"rank wrong", rank, oracle.Result{Value: 100, Frames: []string{"1", "2", "3"}, Defined: true},
			&wireResult{Value: f(100), Frames: []string{"1", "2", "4"}}, false},
		{"rank short", rank, oracle.Result{Value: 100, Frames: []string{"1", "2", "3"}, Defined: true},
			&wireResult{Value: f(100), Frames: []string{"1", "2"}}, false},
		{"max, a tied frame", oracle.Expect{Agg: "max"}, oracle.Result{Value: 50, Frames: []string{"2", "3"}, Defined: true},
			&wireResult{Value: f(50), Frames: []string{"3"}}, true},
		{"max without its frame", oracle.Expect{Agg: "max"}, oracle.Result{Value: 50, Frames: []string{"2", "3"}, Defined: true},
			&wireResult{Value: f(50)}, false},
		{"farthest, another frame", oracle.Expect{Agg: "farthest"}, oracle.Result{Value: 7.5, Frames: []string{"4"}, Defined: true},
			&wireResult{Value: f(7.5), Frames: []string{"1"}}, false},
		{"farthest 2 with a tie in another order", far2, oracle.Result{Value: 7.5, Frames: []string{"4", "5"}, Defined: true},
			&wireResult{Value: f(7.5), Frames: []string{"5", "4"}}, true},
		{"farthest 2, the second wrong", far2, oracle.Result{Value: 7.5, Frames: []string{"4", "5"}, Defined: true},
			&wireResult{Value: f(7.5), Frames: []string{"4", "1"}}, false},
		{"farthest 2, one listed", far2, oracle.Result{Value: 7.5, Frames: []string{"4", "5"}, Defined: true},
			&wireResult{Value: f(7.5), Frames: []string{"4"}}, false},
		{"top group", groups, oracle.Result{Value: 160, Groups: map[string]float64{"A": 100, "B": 60}, Defined: true},
			&wireResult{Groups: []g{{"A", 100}}}, true},
		{"top group wrong", groups, oracle.Result{Value: 160, Groups: map[string]float64{"A": 100, "B": 60}, Defined: true},
			&wireResult{Groups: []g{{"B", 60}}}, false},
		{"all groups", oracle.Expect{Agg: "total", GroupBy: "lga"}, oracle.Result{Value: 160, Groups: map[string]float64{"A": 100, "B": 60}, Defined: true},
			&wireResult{Groups: []g{{"B", 60}, {"A", 100}}}, true},
		{"a group missing", oracle.Expect{Agg: "total", GroupBy: "lga"}, oracle.Result{Value: 160, Groups: map[string]float64{"A": 100, "B": 60}, Defined: true},
			&wireResult{Groups: []g{{"A", 100}}}, false},
		{"a group's figure wrong", oracle.Expect{Agg: "total", GroupBy: "lga"}, oracle.Result{Value: 160, Groups: map[string]float64{"A": 100, "B": 60}, Defined: true},
			&wireResult{Groups: []g{{"A", 100}, {"B", 61}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			why := figureMismatch(c.e, c.want, c.got, value, distance)
			if (why == "") != c.match {
				t.Errorf("match %v, want %v: %s", why == "", c.match, why)
			}
		})
	}
}
