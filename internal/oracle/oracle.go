// Package oracle computes the figure a question of the corpus
// (plan/testdata/corpus) expects, from the frames' stored values and the
// features' points alone. It is written apart from the parser (package
// plan) and the engine (package insight) and imports neither, so that a
// test comparing the engine with it compares two readings of the same
// rules, not one reading with itself. Only tests use it.
//
// The rules it follows (the integrator's, in the corpus schema):
//   - Frames are whole: every frame counts with weight 1.
//   - A number attribute a frame does not record reads as 0 in a filter
//     and adds nothing to a total ("a frame without a record has none"),
//     but mean, median, min, max and rank are over the frames that record
//     it.
//   - Distances are great circles (HaversineKm) from a frame's centre to
//     the nearest feature point of the dataset, features anywhere, the
//     search bounded at SearchKm: a frame with no feature that near is
//     beyond any distance asked, and its nearest distance is unknown.
//   - A place named in the question keeps the frames that have a category
//     value equal to it (state, LGA, ward: any string attribute), case
//     aside; when no frame has, nothing is computed (Defined false).
package oracle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// EarthRadiusKm is the mean Earth radius of the distance rule.
const EarthRadiusKm = 6371.0088

// SearchKm bounds the search for a frame's nearest feature.
const SearchKm = 100.0

// Frame is one frame of a selection as the data call gives it.
type Frame struct {
	ID       string
	Lon, Lat float64        // centre
	AreaKm2  float64        // area of the frame
	Attrs    map[string]any // attribute name -> stored value (float64 or string)
	Features map[string]int // features dataset id -> features on the frame
}

// Point is a feature's point.
type Point struct{ Lon, Lat float64 }

// Filter is one condition of Expect.
type Filter struct {
	Measure string  `json:"measure"`
	Op      string  `json:"op"` // > >= < <= = != between in
	Value   float64 `json:"value,omitempty"`
	Value2  float64 `json:"value2,omitempty"`
	// Text is a category value; for op "in", values separated by commas.
	Text string `json:"text,omitempty"`
	// Per compares the measure per km² ("km2") or hectare ("ha") of the
	// frame's area; Of compares its ratio to another measure on the frame
	// (none recorded reads as 0: some over none is more than any number,
	// none over none meets nothing).
	Per string `json:"per,omitempty"`
	Of  string `json:"of,omitempty"`
}

// Expect is what a corpus line expects the plan to be (the corpus
// schema's "expect" object).
type Expect struct {
	Agg      string   `json:"agg"`
	Measure  string   `json:"measure,omitempty"`
	Measure2 string   `json:"measure2,omitempty"`
	Filters  []Filter `json:"filters,omitempty"`
	Join     string   `json:"join,omitempty"` // and (default) | or
	GroupBy  string   `json:"groupBy,omitempty"`
	Order    string   `json:"order,omitempty"` // desc | asc
	K        int      `json:"k,omitempty"`
	// Per is a density's area unit: km2 (default) or ha. Scale multiplies
	// a ratio ("per 100,000 people"); 0 means 1.
	Per        string  `json:"per,omitempty"`
	Scale      float64 `json:"scale,omitempty"`
	DistanceKm float64 `json:"distanceKm,omitempty"`
	DistanceOp string  `json:"distanceOp,omitempty"` // within | beyond | between
	// DistanceKm2 is the outer bound of a band (distanceOp between): more
	// than DistanceKm and at most DistanceKm2.
	DistanceKm2 float64  `json:"distanceKm2,omitempty"`
	Feature     string   `json:"feature,omitempty"`
	Place       string   `json:"place,omitempty"`
	Confidence  string   `json:"confidence,omitempty"` // exact | partial | unknown
	Unread      []string `json:"unread,omitempty"`
}

// Line is one line of a corpus file.
type Line struct {
	ID       string `json:"id"`
	Q        string `json:"q"`
	Select   string `json:"select"`
	Register string `json:"register,omitempty"`
	Expect   Expect `json:"expect"`
}

// Selection is an entry of selections.json: the first Limit frames of
// GET /v1/frames?bbox=.
type Selection struct {
	BBox    [4]float64 `json:"bbox"`
	Limit   int        `json:"limit"`
	Fixture string     `json:"fixture,omitempty"`
	Note    string     `json:"note,omitempty"`
}

// ReadLines reads a corpus file: one JSON object a line, blank lines
// skipped, unknown fields refused so that a misspelt key is not silently
// an empty expectation.
func ReadLines(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		var l Line
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.ID == "" || l.Select == "" || l.Expect.Agg == "" {
			return nil, fmt.Errorf("line %d: id, select and expect.agg are required", n)
		}
		if seen[l.ID] {
			return nil, fmt.Errorf("line %d: id %s repeated", n, l.ID)
		}
		seen[l.ID] = true
		out = append(out, l)
	}
	return out, sc.Err()
}

// Result is the figure a plan should compute.
type Result struct {
	// Value is the scalar answer: total, mean, count, share (0..1),
	// ratio, density, or a distance in km (nearest, farthest); for min,
	// max and rank the first frame's value.
	Value float64
	// Frames are the frames a rank lists, in order; for min, max,
	// nearest and farthest every frame that attains the figure (ties),
	// ascending id, or with K the K frames nearest (farthest) first.
	Frames []string
	// Groups is the figure of each value of GroupBy (frames without a
	// value are left out).
	Groups map[string]float64
	// Defined is false when nothing can be computed: unsupported or a
	// profile, a place not in the selection, a mean of no values, a
	// farthest frame beyond the search.
	Defined bool
}

// HaversineKm is the great-circle distance in km on the mean Earth radius.
func HaversineKm(lon1, lat1, lon2, lat2 float64) float64 {
	const rad = math.Pi / 180
	s1 := math.Sin((lat2 - lat1) * rad / 2)
	s2 := math.Sin((lon2 - lon1) * rad / 2)
	h := s1*s1 + math.Cos(lat1*rad)*math.Cos(lat2*rad)*s2*s2
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(h)))
}

// NearestKm is the distance from (lon, lat) to the nearest of pts, or
// +Inf when none lies within SearchKm.
func NearestKm(lon, lat float64, pts []Point) float64 {
	best := math.Inf(1)
	for _, p := range pts {
		if d := HaversineKm(lon, lat, p.Lon, p.Lat); d < best {
			best = d
		}
	}
	if best > SearchKm {
		return math.Inf(1)
	}
	return best
}

// num reads a number attribute; ok is false when the frame records none.
func num(f *Frame, attr string) (float64, bool) {
	switch v := f.Attrs[attr].(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		x, err := v.Float64()
		return x, err == nil
	}
	return 0, false
}

// text reads a category attribute ("" when absent).
func text(f *Frame, attr string) string {
	s, _ := f.Attrs[attr].(string)
	return s
}

func (fl Filter) match(f *Frame) bool {
	if fl.Text != "" {
		v := strings.ToLower(text(f, fl.Measure))
		switch fl.Op {
		case "=":
			return v == strings.ToLower(fl.Text)
		case "!=":
			return v != strings.ToLower(fl.Text)
		case "in":
			for _, t := range strings.Split(fl.Text, ",") {
				if v == strings.ToLower(strings.TrimSpace(t)) {
					return true
				}
			}
			return false
		}
		return false
	}
	x, _ := num(f, fl.Measure) // none recorded reads as 0
	switch {
	case fl.Per != "":
		a := f.AreaKm2
		if fl.Per == "ha" {
			a *= 100
		}
		if a <= 0 {
			return false
		}
		x /= a
	case fl.Of != "":
		y, _ := num(f, fl.Of)
		switch {
		case y != 0:
			x /= y
		case x > 0:
			x = math.Inf(1)
		default:
			return false
		}
	}
	switch fl.Op {
	case ">":
		return x > fl.Value
	case ">=":
		return x >= fl.Value
	case "<":
		return x < fl.Value
	case "<=":
		return x <= fl.Value
	case "=":
		return x == fl.Value
	case "!=":
		return x != fl.Value
	case "between":
		return x >= fl.Value && x <= fl.Value2
	}
	return false
}

// idLess orders frame ids as numbers when both are, else as text.
func idLess(a, b string) bool {
	x, e1 := strconv.ParseUint(a, 10, 64)
	y, e2 := strconv.ParseUint(b, 10, 64)
	if e1 == nil && e2 == nil {
		return x < y
	}
	return a < b
}

// Eval computes what e asks of frames, with the features datasets' points
// (every point of the dataset, anywhere) for distances.
func Eval(e Expect, frames []Frame, features map[string][]Point) Result {
	switch e.Agg {
	case "", "unsupported", "profile":
		return Result{}
	}
	base := make([]*Frame, 0, len(frames))
	for i := range frames {
		base = append(base, &frames[i])
	}
	if e.Place != "" {
		base = inPlace(base, e.Place)
		if len(base) == 0 {
			return Result{}
		}
	}
	ev := evaluator{e: e, pts: features[e.Feature], dist: map[*Frame]float64{}}
	kept := ev.keep(base)
	r := ev.figure(kept, base)
	if e.GroupBy != "" && r.Defined {
		r.Groups = map[string]float64{}
		keys := map[string]bool{}
		for _, f := range base {
			if k := text(f, e.GroupBy); k != "" {
				keys[k] = true
			}
		}
		composition := e.Agg == "share" && len(e.Filters) == 0 && e.DistanceOp == ""
		for k := range keys {
			in := func(fs []*Frame) []*Frame {
				var out []*Frame
				for _, f := range fs {
					if text(f, e.GroupBy) == k {
						out = append(out, f)
					}
				}
				return out
			}
			gb := in(base)
			if composition {
				// "share of people by settlement class": each class's part
				// of the whole selection.
				gb = base
			}
			if g := ev.figure(in(kept), gb); g.Defined {
				r.Groups[k] = g.Value
			}
		}
	}
	return r
}

func inPlace(fs []*Frame, place string) []*Frame {
	var out []*Frame
	for _, f := range fs {
		for _, v := range f.Attrs {
			if s, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(place)) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

type evaluator struct {
	e    Expect
	pts  []Point
	dist map[*Frame]float64
}

func (ev *evaluator) nearest(f *Frame) float64 {
	d, ok := ev.dist[f]
	if !ok {
		d = NearestKm(f.Lon, f.Lat, ev.pts)
		ev.dist[f] = d
	}
	return d
}

// keep applies the filters and the distance condition.
func (ev *evaluator) keep(fs []*Frame) []*Frame {
	e := ev.e
	var out []*Frame
	for _, f := range fs {
		ok := true
		if len(e.Filters) > 0 {
			if e.Join == "or" {
				ok = false
				for _, fl := range e.Filters {
					if fl.match(f) {
						ok = true
						break
					}
				}
			} else {
				for _, fl := range e.Filters {
					if !fl.match(f) {
						ok = false
						break
					}
				}
			}
		}
		if ok && e.Agg != "nearest" && e.Agg != "farthest" {
			switch e.DistanceOp {
			case "within":
				ok = ev.nearest(f) <= e.DistanceKm
			case "beyond":
				ok = ev.nearest(f) > e.DistanceKm
			case "between":
				d := ev.nearest(f)
				ok = d > e.DistanceKm && d <= e.DistanceKm2
			}
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

func (ev *evaluator) sum(fs []*Frame, attr string) float64 {
	s := 0.0
	for _, f := range fs {
		if v, ok := num(f, attr); ok {
			s += v
		}
	}
	return s
}

type valued struct {
	id string
	v  float64
}

// recorded lists the frames recording attr with their values, in id order.
func recorded(fs []*Frame, attr string) []valued {
	var out []valued
	for _, f := range fs {
		if v, ok := num(f, attr); ok {
			out = append(out, valued{f.ID, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return idLess(out[i].id, out[j].id) })
	return out
}

// ties lists the ids of vs whose value is v, in order.
func ties(vs []valued, v float64) []string {
	var out []string
	for _, x := range vs {
		if x.v == v {
			out = append(out, x.id)
		}
	}
	return out
}

// figure computes the aggregation over kept (the frames meeting the
// conditions) out of base (the frames asked about).
func (ev *evaluator) figure(kept, base []*Frame) Result {
	e := ev.e
	def := func(v float64) Result { return Result{Value: v, Defined: !math.IsNaN(v) && !math.IsInf(v, 0)} }
	switch e.Agg {
	case "total":
		return def(ev.sum(kept, e.Measure))
	case "count":
		return def(float64(len(kept)))
	case "coverage":
		if e.Measure == "" {
			return def(float64(len(kept)))
		}
		return def(ev.sum(kept, e.Measure))
	case "featurecount":
		n := 0
		for _, f := range kept {
			n += f.Features[e.Feature]
		}
		return def(float64(n))
	case "share":
		if e.Measure == "" {
			if len(base) == 0 {
				return Result{}
			}
			return def(float64(len(kept)) / float64(len(base)))
		}
		all := ev.sum(base, e.Measure)
		if all == 0 {
			return Result{}
		}
		return def(ev.sum(kept, e.Measure) / all)
	case "ratio":
		d := ev.sum(kept, e.Measure2)
		if d == 0 {
			return Result{}
		}
		scale := e.Scale
		if scale == 0 {
			scale = 1
		}
		return def(ev.sum(kept, e.Measure) / d * scale)
	case "density":
		area := 0.0
		for _, f := range kept {
			area += f.AreaKm2
		}
		if e.Per == "ha" {
			area *= 100
		}
		if area == 0 {
			return Result{}
		}
		return def(ev.sum(kept, e.Measure) / area)
	case "mean", "median", "min", "max":
		vs := recorded(kept, e.Measure)
		if len(vs) == 0 {
			return Result{}
		}
		xs := make([]float64, len(vs))
		for i, v := range vs {
			xs[i] = v.v
		}
		sort.Float64s(xs)
		switch e.Agg {
		case "mean":
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return def(s / float64(len(xs)))
		case "median":
			m := len(xs) / 2
			if len(xs)%2 == 1 {
				return def(xs[m])
			}
			return def((xs[m-1] + xs[m]) / 2)
		case "min":
			r := def(xs[0])
			r.Frames = ties(vs, xs[0])
			return r
		default:
			r := def(xs[len(xs)-1])
			r.Frames = ties(vs, xs[len(xs)-1])
			return r
		}
	case "rank":
		if e.GroupBy != "" {
			// Groups ranked by their totals; the caller reads Groups.
			return def(ev.sum(kept, e.Measure))
		}
		vs := recorded(kept, e.Measure)
		if len(vs) == 0 {
			return Result{}
		}
		asc := e.Order == "asc"
		sort.SliceStable(vs, func(i, j int) bool {
			if asc {
				return vs[i].v < vs[j].v
			}
			return vs[i].v > vs[j].v
		})
		if e.K > 0 && e.K < len(vs) {
			vs = vs[:e.K]
		}
		r := def(vs[0].v)
		for _, v := range vs {
			r.Frames = append(r.Frames, v.id)
		}
		return r
	case "nearest", "farthest":
		var vs []valued
		for _, f := range kept {
			vs = append(vs, valued{f.ID, ev.nearest(f)})
		}
		if len(vs) == 0 {
			return Result{}
		}
		sort.Slice(vs, func(i, j int) bool { return idLess(vs[i].id, vs[j].id) })
		if e.K > 0 {
			// The K frames nearest (farthest) first, ties by id; a frame
			// with nothing within the search is the farthest of all.
			sort.SliceStable(vs, func(i, j int) bool {
				if e.Agg == "nearest" {
					return vs[i].v < vs[j].v
				}
				return vs[i].v > vs[j].v
			})
			if e.K < len(vs) {
				vs = vs[:e.K]
			}
			r := Result{Value: vs[0].v, Defined: true}
			for _, v := range vs {
				r.Frames = append(r.Frames, v.id)
			}
			return r
		}
		best := vs[0].v
		for _, v := range vs[1:] {
			if (e.Agg == "nearest") == (v.v < best) && v.v != best {
				best = v.v
			}
		}
		r := def(best) // +Inf: no feature within the search, nothing to say
		if r.Defined {
			r.Frames = ties(vs, best)
		}
		return r
	}
	return Result{}
}

// TopGroups lists the k groups (all when k is 0) with the largest figures
// (smallest when asc), ties by key.
func TopGroups(groups map[string]float64, asc bool, k int) []string {
	keys := make([]string, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := groups[keys[i]], groups[keys[j]]
		if a != b {
			return (a < b) == asc
		}
		return keys[i] < keys[j]
	})
	if k > 0 && k < len(keys) {
		keys = keys[:k]
	}
	return keys
}
