package insight

import (
	"math"
	"slices"
	"strings"

	"frameindex/plan"
)

// SearchLimitKm is how far a nearest-feature search looks from a frame's
// centre: a frame with no feature within it is beyond any distance up to
// it.
const SearchLimitKm = 100

// stat is one aggregation over a set of frames.
type stat struct {
	value   float64 // the primary figure; NaN when undefined
	second  float64 // compare: the second measure's figure
	records int     // frames recording the measure, among those matched
	matched int     // frames meeting the filters
	base    int     // frames before the filters
	at      int32   // min, max, nearest, farthest: the frame; -1 when none
	// coverage: the measure (or frames, weighted) within and beyond, and
	// frames within and beyond.
	within, beyond   float64
	fWithin, fBeyond int
}

// isSum reports a measure whose frames add up: a declared sum, or a
// feature count.
func isSum(col *Column) bool { return col.Attr.Name == "" || col.Attr.Aggregation == "sum" }

// num is column col's value on frame i: NaN when nothing is recorded.
func colNum(col *Column, i int32) float64 {
	if col.Num == nil {
		return math.NaN()
	}
	return col.Num[i]
}

// filterValue is a number a filter compares: a frame without a record of
// a numeric measure holds none of it (0), as "no health facility" reads.
func filterValue(col *Column, i int32) float64 {
	if v := colNum(col, i); !math.IsNaN(v) {
		return v
	}
	return 0
}

// derivedValue is the value a density or ratio filter compares on frame
// i (see plan.Filter): the measure per km² (or hectare) of the frame's
// area, or per the value of of (+Inf for some over none, NaN for none
// over none).
func derivedValue(f *plan.Filter, col, of *Column, fs *FrameSet, i int32) float64 {
	v := filterValue(col, i)
	if f.Per != "" {
		a := fs.AreaKm2[i]
		if f.Per == "ha" {
			a *= 100
		}
		if !(a > 0) {
			return math.NaN()
		}
		return v / a
	}
	y := filterValue(of, i)
	switch {
	case y != 0:
		return v / y
	case v > 0:
		return math.Inf(1)
	}
	return math.NaN()
}

// compareValue reports whether v meets a numeric filter's comparison (NaN
// meets none).
func compareValue(f *plan.Filter, v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	switch f.Op {
	case plan.OpGT:
		return v > f.Value
	case plan.OpGE:
		return v >= f.Value
	case plan.OpLT:
		return v < f.Value
	case plan.OpLE:
		return v <= f.Value
	case plan.OpEq:
		return v == f.Value
	case plan.OpNe:
		return v != f.Value
	case plan.OpBetween:
		return v >= f.Value && v <= f.Value2
	}
	return false
}

// matches reports whether frame i meets filter f (col is its column). A
// frame without a record of a category has no value: it is not "urban",
// and it is "not urban". Not negates the comparison (the parser writes
// its negations into Op and Value and leaves Not unset; a plan written
// otherwise may set it).
func matches(f *plan.Filter, col *Column, i int32) bool {
	ok := false
	if col.IsCategory() && col.Codes != nil {
		code := col.Codes[i]
		eq := code >= 0 && strings.EqualFold(col.Dict[code], f.Text)
		switch f.Op {
		case plan.OpNe:
			ok = !eq
		default:
			ok = eq
		}
	} else {
		ok = compareValue(f, filterValue(col, i))
	}
	return ok != f.Not
}

// filtered keeps the frames of idx that meet the plan's filters (and,
// outside a coverage plan, its distance condition), joined by the plan's
// join. It reports false, with a headline, when a filter cannot be
// applied.
func (c *computer) filtered(idx []int32) ([]int32, bool) {
	cols := make([]*Column, len(c.p.Filters))
	ofs := make([]*Column, len(c.p.Filters)) // a ratio filter's denominator
	for k := range c.p.Filters {
		cols[k] = c.in.column(c.p.Filters[k].Measure)
		if cols[k] == nil {
			return nil, false
		}
		if of := c.p.Filters[k].Of; of != nil {
			if ofs[k] = c.in.column(*of); ofs[k] == nil || ofs[k].Num == nil {
				return nil, false
			}
		}
		if f := &c.p.Filters[k]; (f.Per != "" || f.Of != nil) && cols[k].Num == nil {
			c.ans.Confidence = ConfidenceUnknown
			c.ans.Headline = labelOf(&cols[k].Attr) + " is not a number, so no density or ratio of it can be compared."
			return nil, false
		}
		if cols[k].IsCategory() && cols[k].Codes == nil {
			c.ans.Confidence = ConfidenceUnknown
			c.ans.Headline = "The values of " + labelOf(&cols[k].Attr) + " could not be read, so the frames could not be filtered."
			return nil, false
		}
	}
	dist := c.p.Distance
	useDist := dist != nil && dist.Op != "" && c.p.Agg != plan.AggCoverage && c.in.Near[dist.Feature] != nil
	if len(cols) == 0 && !useDist && c.inPlace == nil {
		return idx, true
	}
	or := c.p.Join == "or"
	out := make([]int32, 0, len(idx))
	for _, i := range idx {
		keep := !or || len(cols) == 0
		for k := range cols {
			f := &c.p.Filters[k]
			var m bool
			if f.Per != "" || f.Of != nil {
				m = compareValue(f, derivedValue(f, cols[k], ofs[k], &c.in.Frames, i)) != f.Not
			} else {
				m = matches(f, cols[k], i)
			}
			if or {
				if m {
					keep = true
					break
				}
			} else if !m {
				keep = false
				break
			}
		}
		if keep && c.inPlace != nil {
			keep = c.inPlace[i]
		}
		if keep && useDist {
			keep = dist.Holds(c.distance(i))
		}
		if keep {
			out = append(out, i)
		}
	}
	for k := range cols {
		c.used[cols[k].Dataset] = true
		if ofs[k] == nil {
			continue
		}
		c.used[ofs[k].Dataset] = true
		note := "A frame with some " + colLabel(cols[k]) + " and no " + colLabel(ofs[k]) + " has more " + colUnit(cols[k]) +
			" per " + singularPhrase(colUnit(ofs[k])) + " than any number; one with neither has no ratio."
		if !slices.Contains(c.details, note) {
			c.details = append(c.details, note)
		}
	}
	return out, true
}

// distances caches each frame's nearest-feature distance for one Compute
// call (NaN: not yet searched).
func (c *computer) distance(i int32) float64 {
	d := c.p.Distance
	near := c.in.Near[d.Feature]
	if near == nil {
		return math.Inf(1)
	}
	if c.dist == nil {
		c.dist = make([]float64, c.in.Frames.Len())
		for k := range c.dist {
			c.dist[k] = math.NaN()
		}
	}
	if v := c.dist[i]; !math.IsNaN(v) {
		return v
	}
	// A condition on the distance needs only to know whether a feature
	// lies within its km: the search stops there (far frames are the
	// costly ones). Nearest and farthest search the whole limit.
	limit := float64(SearchLimitKm)
	if d.Op != "" && d.Limit() > 0 && d.Limit() < limit && c.p.Agg != plan.AggNearest && c.p.Agg != plan.AggFarthest {
		limit = d.Limit()
	}
	v := near.NearestKm(c.in.Frames.Lon[i], c.in.Frames.Lat[i], limit)
	if v > limit {
		v = math.Inf(1)
	} else {
		c.used[d.Feature] = true
	}
	c.dist[i] = v
	return v
}

// measureCol is the column of the plan's k-th measure, or nil.
func (c *computer) measureCol(k int) *Column {
	if k >= len(c.p.Measures) {
		return nil
	}
	return c.in.column(c.p.Measures[k])
}

// featureCol is the feature-count column a featurecount plan counts.
func (c *computer) featureCol() *Column {
	id := ""
	if len(c.p.Measures) > 0 {
		id = c.p.Measures[0].Dataset
	}
	if id == "" && c.p.Distance != nil {
		id = c.p.Distance.Feature
	}
	for i := range c.in.Columns {
		if col := &c.in.Columns[i]; col.Dataset == id && col.Attr.Name == "" {
			return col
		}
	}
	return nil
}

// perFrame is the per-frame value the plan ranks or takes the extreme
// of: the measure, its density when the plan has an area unit ("the
// densest frame"), or its ratio to the second measure ("the frame with
// the most people per building"); NaN where it is not recorded.
func (c *computer) perFrame(m0 *Column, i int32) float64 {
	v := colNum(m0, i)
	switch {
	case math.IsNaN(v):
		return v
	case c.p.Per != "" && c.p.Agg != plan.AggDensity:
		a := c.in.Frames.AreaKm2[i]
		if c.p.Per == "ha" {
			a *= 100
		}
		if a <= 0 {
			return math.NaN()
		}
		return v / a
	case len(c.p.Measures) > 1 && c.p.Agg != plan.AggRatio && c.p.Agg != plan.AggCompare:
		m1 := c.measureCol(1)
		if m1 == nil {
			return math.NaN()
		}
		y := filterValue(m1, i)
		if math.IsNaN(y) || y == 0 {
			return math.NaN()
		}
		scale := c.p.Scale
		if scale <= 0 {
			scale = 1
		}
		return v / y * scale
	}
	return v
}

// perFrameWords are the label (in a sentence) and unit of perFrame's
// values: "estimated population (2020) per km²", "people per km²".
func (c *computer) perFrameWords(m0 *Column) (string, string) {
	l, unit := colLabel(m0), colUnit(m0)
	switch {
	case c.p.Per != "" && c.p.Agg != plan.AggDensity:
		area := "km²"
		if c.p.Per == "ha" {
			area = "hectare"
		}
		return l + " per " + area, unit + " per " + area
	case len(c.p.Measures) > 1 && c.p.Agg != plan.AggRatio && c.p.Agg != plan.AggCompare:
		if m1 := c.measureCol(1); m1 != nil {
			per := singularPhrase(colUnit(m1))
			if c.p.Scale > 1 {
				per = FormatFigure(c.p.Scale) + " " + colUnit(m1)
			}
			return l + " per " + per, unit + " per " + per
		}
	}
	return l, unit
}

// eval filters base and aggregates the frames that remain.
func (c *computer) eval(base []int32) stat {
	st := stat{value: math.NaN(), second: math.NaN(), at: -1, base: len(base)}
	idx, ok := c.filtered(base)
	if !ok {
		return st
	}
	st.matched = len(idx)
	fs := &c.in.Frames
	m0 := c.measureCol(0)
	if c.p.Agg == plan.AggFeatureCount {
		m0 = c.featureCol()
	}
	switch c.p.Agg {
	case plan.AggTotal, plan.AggFeatureCount:
		if m0 == nil {
			return st
		}
		st.value, st.records = weightedSum(fs, m0, idx)
		if m0.Attr.Name == "" && st.value > 0 {
			c.used[m0.Dataset] = true
		}
	case plan.AggMean:
		if m0 == nil {
			return st
		}
		st.value, st.records = weightedMean(fs, m0, idx)
	case plan.AggMedian:
		if m0 == nil {
			return st
		}
		vals := make([]float64, 0, len(idx))
		for _, i := range idx {
			if v := c.perFrame(m0, i); !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		st.records = len(vals)
		st.value = median(vals)
	case plan.AggMin, plan.AggMax:
		if m0 == nil {
			return st
		}
		for _, i := range idx {
			v := c.perFrame(m0, i)
			if math.IsNaN(v) {
				continue
			}
			st.records++
			if st.at < 0 || (c.p.Agg == plan.AggMin && v < st.value) || (c.p.Agg == plan.AggMax && v > st.value) {
				st.value, st.at = v, i
			}
		}
	case plan.AggCount:
		st.value = float64(len(idx))
	case plan.AggShare:
		if m0 != nil {
			part, rec := weightedSum(fs, m0, idx)
			whole, _ := weightedSum(fs, m0, base)
			st.records = rec
			if whole > 0 {
				st.value = part / whole
			}
		} else {
			part, whole := 0.0, 0.0
			for _, i := range idx {
				part += fs.weight(i)
			}
			for _, i := range base {
				whole += fs.weight(i)
			}
			if whole > 0 {
				st.value = part / whole
			}
		}
	case plan.AggRatio:
		m1 := c.measureCol(1)
		if m0 == nil || m1 == nil {
			return st
		}
		x, rx := weightedSum(fs, m0, idx)
		y, _ := weightedSum(fs, m1, idx)
		st.records = rx
		st.second = y
		scale := c.p.Scale
		if scale <= 0 {
			scale = 1
		}
		if y != 0 {
			st.value = x / y * scale
		}
	case plan.AggDensity:
		if m0 == nil {
			return st
		}
		x, rx := weightedSum(fs, m0, idx)
		area := 0.0
		for _, i := range idx {
			area += fs.weight(i) * fs.AreaKm2[i]
		}
		st.records, st.second = rx, area // km²
		if c.p.Per == "ha" {
			area *= 100
		}
		if area > 0 {
			st.value = x / area
		}
	case plan.AggCompare:
		m1 := c.measureCol(1)
		if m0 == nil || m1 == nil {
			return st
		}
		st.value, st.records = summary(fs, m0, idx)
		st.second, _ = summary(fs, m1, idx)
	case plan.AggNearest, plan.AggFarthest:
		for _, i := range idx {
			d := c.distance(i)
			if st.at < 0 || (c.p.Agg == plan.AggNearest && d < st.value) || (c.p.Agg == plan.AggFarthest && d > st.value) {
				st.value, st.at = d, i
			}
		}
	case plan.AggCoverage:
		for _, i := range idx {
			w := fs.weight(i)
			if m0 != nil {
				v := colNum(m0, i)
				if math.IsNaN(v) {
					v = 0
				} else {
					st.records++
				}
				w *= v
			}
			// within and beyond split the frames by the condition: for a
			// band, "within" is the band.
			if c.p.Distance.Holds(c.distance(i)) != (c.p.Distance.Op == "beyond") {
				st.within += w
				st.fWithin++
			} else {
				st.beyond += w
				st.fBeyond++
			}
		}
		st.value = st.within
		if c.p.Distance.Op == "beyond" {
			st.value = st.beyond
		}
	}
	if m0 != nil && st.records > 0 && m0.Attr.Name != "" {
		c.used[m0.Dataset] = true
	}
	if c.p.Agg == plan.AggRatio || c.p.Agg == plan.AggCompare {
		if m1 := c.measureCol(1); m1 != nil && st.matched > 0 {
			for _, i := range idx {
				if !math.IsNaN(colNum(m1, i)) {
					c.used[m1.Dataset] = true
					break
				}
			}
		}
	}
	return st
}

// weightedSum is Σ weight·value over the frames that record the measure,
// and how many do.
func weightedSum(fs *FrameSet, col *Column, idx []int32) (float64, int) {
	s, n := 0.0, 0
	for _, i := range idx {
		v := col.Num[i]
		if v != v { // NaN
			continue
		}
		n++
		if fs.Weight == nil {
			s += v
		} else {
			s += fs.Weight[i] * v
		}
	}
	return s, n
}

// weightedMean is the weighted mean per frame over the frames that record
// the measure.
func weightedMean(fs *FrameSet, col *Column, idx []int32) (float64, int) {
	s, w, n := 0.0, 0.0, 0
	for _, i := range idx {
		v := col.Num[i]
		if v != v {
			continue
		}
		n++
		wi := fs.weight(i)
		s += wi * v
		w += wi
	}
	if w == 0 {
		return math.NaN(), n
	}
	return s / w, n
}

// summary is a measure's figure over frames as its aggregation says: the
// total of a summed measure, else the mean per frame.
func summary(fs *FrameSet, col *Column, idx []int32) (float64, int) {
	if col.Num == nil {
		return math.NaN(), 0
	}
	if isSum(col) {
		return weightedSum(fs, col, idx)
	}
	return weightedMean(fs, col, idx)
}

// median of values (the mean of the two middle ones for an even count);
// NaN for none. It sorts vals.
func median(vals []float64) float64 {
	n := len(vals)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	return (vals[n/2-1] + vals[n/2]) / 2
}
