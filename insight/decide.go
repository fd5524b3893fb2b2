package insight

import (
	"slices"
	"strconv"
)

// ratioPair is "X per (scale) Y" found in a question: measures[x] per y.
type ratioPair struct {
	x      int
	metric metricSpec
}

// ratioPairs finds ratios: two measures joined by "per", "each" or
// "every" ("residents per house", "hospitals per 100,000 inhabitants",
// "people for each clinic"), or by "to"/"and" beside the word "ratio"
// ("the ratio of people to buildings"), and a measure followed by "per
// capita", "per person" or "for each person" (a population named without
// its name). Scale numbers are marked used.
func (m *matcher) ratioPairs(toks []token, sc *scan, measures []match) []ratioPair {
	var out []ratioPair
	for k := 0; k+1 < len(measures); k++ {
		a, b := measures[k], measures[k+1]
		per, blocked := false, false
		scale, numAt, numEnd := 1.0, -1, -1
		for i := a.end; i < b.start; i++ {
			w := toks[i].raw
			switch {
			case perWords[w]:
				per = true
			case sc.ratio && (w == "to" || w == "and" || w == "versus" || w == "vs"):
				per = true
			case w == "and" || w == "or" || w == "with" || w == "than" || compareWords[w]:
				blocked = true
			}
			if per && numAt < 0 && !sc.used[i] && !perWords[w] {
				if v, e, ok := numberAt(toks, i); ok && v > 0 {
					scale, numAt, numEnd = v, i, e
					i = e - 1
				}
			}
		}
		if !per || blocked || a.ref == b.ref {
			continue
		}
		if numAt >= 0 {
			for i := numAt; i < numEnd; i++ {
				sc.used[i] = true
				sc.unread = dropIndex(sc.unread, i)
			}
		}
		out = append(out, ratioPair{x: k, metric: metricSpec{kind: metricRatio, y: b, scale: scale}})
	}
	pop, hasPop := m.byConcept[cPopulation]
	for n, start := range sc.perPerson {
		x := -1
		for k, c := range measures {
			if c.end <= start {
				x = k
			}
		}
		if x < 0 || !hasPop || measures[x].ref == pop {
			continue
		}
		scale := 1.0
		for i := start; i < sc.perPersonTo[n]; i++ {
			if v, _, ok := numberAt(toks, i); ok && v > 0 && !perWords[toks[i].raw] {
				scale = v
				break
			}
		}
		y := match{start: start, end: sc.perPersonTo[n], ref: pop, via: viaSynonym, prio: prioDatasetName + 1,
			words: wordsOf(toks, start, sc.perPersonTo[n])}
		out = append(out, ratioPair{x: x, metric: metricSpec{kind: metricRatio, y: y, scale: scale, inferred: true}})
	}
	slices.SortStableFunc(out, func(a, b ratioPair) int { return a.x - b.x })
	return out
}

// measureNear is the measure a threshold over words [start, end) is
// about: the first that starts within three words after it ("at least
// 5,000 residents"), else the nearest before it ("population over
// 5,000"), else the first after it; -1 when there is none.
func measureNear(measures []match, start, end int) int {
	for k, c := range measures {
		if c.start >= end && c.start <= end+3 {
			return k
		}
	}
	best := -1
	for k, c := range measures {
		if c.end <= start {
			best = k
		}
	}
	if best >= 0 {
		return best
	}
	for k, c := range measures {
		if c.start >= end {
			return k
		}
	}
	return -1
}

// builtinValues are category values read as such even when the frames
// hold none of them (the share of frames that are urban is then 0%).
var builtinValues = set("urban", "rural", "peri urban", "periurban", "uninhabited", "suburban")

// valueWords reports whether a category measure was named by one of its
// values ("urban" for settlement class) rather than by its name.
func (m *matcher) valueWords(c match) bool {
	at := m.attr(c.ref)
	if kindOf(at) != kindMode {
		return false
	}
	ws := words(c.words)
	if slicesEqual(ws, words(at.Name)) || slicesEqual(ws, words(at.Label)) {
		return false
	}
	if builtinValues[joinWords(ws)] {
		return true
	}
	for _, v := range m.values {
		if v.ref == c.ref && slicesEqual(v.words, ws) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool { return slices.Equal(a, b) }

func joinWords(ws []string) string {
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}

// condMetric is how a threshold's measure is read: its ratio when the
// question joins it to another ("more than 6 people per house"), its
// density when a density's wording follows it ("over 1,000 people per
// km²"), else itself.
func (m *matcher) condMetric(sc *scan, measures []match, k int, ratios []ratioPair, all []match) metricSpec {
	for _, r := range ratios {
		if r.x == k {
			return r.metric
		}
	}
	if m.densityBeside(sc, measures[k].ref, all) {
		return metricSpec{kind: metricDensity}
	}
	return metricSpec{}
}

// densityBeside reports density wording right after a match of ref
// ("population density", "people per km²") or right before it ("density
// of buildings").
func (m *matcher) densityBeside(sc *scan, ref attrRef, all []match) bool {
	for _, c := range all {
		if c.ref != ref {
			continue
		}
		for _, d := range sc.densityAll {
			if (d >= c.end && d <= c.end+1) || (d < c.start && d >= c.start-3) {
				return true
			}
		}
	}
	return false
}

// bindCondition reads the condition on frames a question sets: a
// threshold ("at least 5,000 residents"), a gap ("without a hospital"),
// a category value ("urban", "in Kano") when frames are counted or shared,
// or "how many frames have clinics". Only the first is applied; the
// others are noted.
func (m *matcher) bindCondition(toks []token, sc *scan, measures []match, values []valueMatch, ratios []ratioPair, p *parsed) *condSpec {
	var conds []*condSpec
	for _, c := range sc.comps {
		k := measureNear(measures, c.start, c.end)
		if k < 0 {
			continue
		}
		if kindOf(m.attr(measures[k].ref)) == kindMode {
			p.notes = append(p.notes, strconv.Quote(wordsOf(toks, c.start, c.end))+" was not applied: "+
				labelOf(m.attr(measures[k].ref))+" is not a number.")
			continue
		}
		cs := &condSpec{m: measures[k], op: c.op, v1: c.v1, v2: c.v2, words: wordsOf(toks, c.start, c.end)}
		cs.metric = m.condMetric(sc, measures, k, ratios, p.all)
		conds = append(conds, cs)
	}
	for _, g := range sc.gaps {
		for _, c := range measures {
			if c.start >= g.at && c.start <= g.at+2 {
				conds = append(conds, &condSpec{m: c, op: OpNone, words: wordsOf(toks, g.start, c.end)})
				break
			}
		}
	}
	if sc.share || sc.howMany || sc.whichFrames {
		neg := func(start int) bool {
			return slices.Contains(sc.negations, start-1)
		}
		for _, v := range values {
			op := OpIs
			if neg(v.start) {
				op = OpIsNot
			}
			mt := match{start: v.start, end: v.end, ref: v.ref, exact: true, via: viaName, words: wordsOf(toks, v.start, v.end)}
			conds = append(conds, &condSpec{m: mt, op: op, category: mt.words, value: v.value, words: mt.words})
		}
		seen := map[attrRef]bool{}
		for _, c := range p.all {
			if m.valueWords(c) && !seen[c.ref] {
				seen[c.ref] = true
				op := OpIs
				if neg(c.start) {
					op = OpIsNot
				}
				conds = append(conds, &condSpec{m: c, op: op, category: c.words, words: c.words})
			}
		}
	}
	if len(conds) == 0 && sc.some {
		for _, c := range measures {
			if isNumeric(*m.attr(c.ref)) {
				conds = append(conds, &condSpec{m: c, op: OpSome, words: c.words})
				break
			}
		}
	}
	if len(conds) == 0 {
		return nil
	}
	slices.SortStableFunc(conds, func(a, b *condSpec) int { return a.m.start - b.m.start })
	for _, c := range conds[1:] {
		if c.m.ref == conds[0].m.ref && c.op == conds[0].op && c.op == OpIs {
			continue // "urban" twice
		}
		p.notes = append(p.notes, "Only one condition is applied; "+strconv.Quote(c.words)+" was not.")
	}
	return conds[0]
}

// condition is the plan's Condition of c.
func (m *matcher) condition(c *condSpec) *Condition {
	out := &Condition{Measure: m.measureID(c.m.ref), Op: c.op, Value: c.v1, Value2: c.v2, Category: c.category}
	switch c.metric.kind {
	case metricDensity:
		out.Per = PerKm2 // the plan's unit is decided with the register
	case metricRatio:
		out.Per, out.Scale = m.measureID(c.metric.y.ref), c.metric.scale
	}
	return out
}

// decideThreshold plans frames_threshold: the condition's measure (and a
// ratio's denominator), and another numeric measure whose figure over the
// frames selected is asked for ("buildings in frames with over 5,000
// people").
func (m *matcher) decideThreshold(sc *scan, measures []match, cond *condSpec, p *parsed) {
	p.cond = cond
	p.plan.Intent = IntentThreshold
	p.used = []match{cond.m}
	if cond.metric.kind == metricRatio {
		p.used = append(p.used, cond.metric.y)
	}
	for _, c := range measures {
		if c.ref == cond.m.ref || (cond.metric.kind == metricRatio && c.ref == cond.metric.y.ref) {
			continue
		}
		if len(p.used) < 2+btoi(cond.metric.kind == metricRatio) && isNumeric(*m.attr(c.ref)) && !m.valueWords(c) {
			p.used = append(p.used, c)
			continue
		}
		p.ignored = append(p.ignored, c)
	}
	if len(p.ignored) > 0 {
		p.notes = append(p.notes, "Also named, not used: "+m.labelsOf(p.ignored)+".")
	}
	p.plan.Condition = m.condition(cond)
	if cond.metric.kind == metricDensity {
		p.plan.Condition.Per = m.areaUnit(p)
	}
	if sc.density && cond.metric.kind != metricDensity {
		p.notes = append(p.notes, "The density asked for was not computed: only the condition's measure is.")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// areaUnit is the density unit of a plan: the one the question named,
// else hectares in the GIS register and km² in the plain one.
func (m *matcher) areaUnit(p *parsed) string {
	if p.unit != "" {
		return p.unit
	}
	if p.plan.Register == RegisterGIS {
		return PerHectare
	}
	return PerKm2
}

// decideShare plans frames_share: what is divided (the frames, or a summed
// measure named right after the share word or right before it), by a
// condition, or, without one, by a category's values or by frame. It
// reports false when there is nothing to share.
func (m *matcher) decideShare(toks []token, sc *scan, measures []match, values []valueMatch, cond *condSpec, p *parsed) bool {
	base, baseFrames := -1, false
	j := sc.shareAt + 1
	for j < len(toks) && (articles[toks[j].raw] || toks[j].raw == "of" || toks[j].raw == "all" || toks[j].raw == "total" ||
		toks[j].raw == "these" || toks[j].raw == "our" || toks[j].raw == "selected") {
		j++
	}
	if j < len(toks) && frameNouns[toks[j].sing] {
		baseFrames = true
	}
	for k, c := range measures {
		if c.start == j && m.isSum(c.ref) && !baseFrames {
			base = k
		}
	}
	if base < 0 && !baseFrames {
		for k, c := range measures {
			if c.end == sc.shareAt && m.isSum(c.ref) && (cond == nil || c.ref != cond.m.ref) {
				base = k
			}
		}
	}
	if base < 0 && !baseFrames && cond != nil {
		// "the share of people living in frames ...": a summed measure
		// other than the condition's, before it.
		for k, c := range measures {
			if c.ref != cond.m.ref && m.isSum(c.ref) && c.start < cond.m.start {
				base = k
				break
			}
		}
	}
	p.plan.Intent = IntentShare
	p.plan.Base = BaseFrames
	if base >= 0 {
		b := measures[base]
		p.base = &b
		p.used = append(p.used, b)
		p.plan.Base = m.measureID(b.ref)
	}
	if cond != nil {
		p.cond = cond
		if base < 0 || measures[base].ref != cond.m.ref {
			p.used = append(p.used, cond.m)
		}
		if cond.metric.kind == metricRatio {
			p.used = append(p.used, cond.metric.y)
		}
		p.plan.Condition = m.condition(cond)
		if cond.metric.kind == metricDensity {
			p.plan.Condition.Per = m.areaUnit(p)
		}
	} else {
		for k, c := range measures {
			if k != base && kindOf(m.attr(c.ref)) == kindMode {
				g := c
				p.group = &g
				p.used = append(p.used, c)
				break
			}
		}
		if p.group != nil && p.base == nil {
			// "the population by state as a percentage": a summed measure
			// named anywhere is what is shared.
			for _, c := range measures {
				if c.ref != p.group.ref && m.isSum(c.ref) {
					b := c
					p.base = &b
					p.used = append([]match{b}, p.used...)
					p.plan.Base = m.measureID(b.ref)
					break
				}
			}
		}
		if p.group == nil && p.base == nil {
			p.used = nil
			p.plan.Intent, p.plan.Base = "", ""
			return false
		}
	}
	for _, c := range measures {
		if !slices.ContainsFunc(p.used, func(u match) bool { return u.ref == c.ref }) {
			p.ignored = append(p.ignored, c)
		}
	}
	if len(p.ignored) > 0 {
		p.notes = append(p.notes, "Also named, not used in the share: "+m.labelsOf(p.ignored)+".")
	}
	return true
}

// labelsOf joins the labels of matches for a detail.
func (m *matcher) labelsOf(ms []match) string {
	var ls []string
	for _, c := range ms {
		ls = append(ls, lowerLabel(labelOf(m.attr(c.ref))))
	}
	return joinAnd(ls, "and")
}

// decideMetric plans a density or a ratio (or a ranking of one). It
// reports false when neither applies; a density or ratio of measures that
// cannot have one makes the question unsupported.
func (m *matcher) decideMetric(toks []token, sc *scan, measures []match, ratios []ratioPair, p *parsed, order string) bool {
	var x match
	switch {
	case len(ratios) > 0:
		r := ratios[0]
		x = measures[r.x]
		if !m.isSum(x.ref) || !m.isSum(r.metric.y.ref) {
			p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
			p.notes = append(p.notes, "A ratio is computed between two summed measures (totals); "+
				m.kindPhrase(x.ref)+" and "+m.kindPhrase(r.metric.y.ref)+".")
			return false
		}
		p.metric = r.metric
		p.used = []match{x, r.metric.y}
		p.plan.Scale = r.metric.scale
		if order != "" {
			p.plan.Intent, p.plan.Order = IntentRank, order
		} else {
			p.plan.Intent = IntentRatio
		}
		if sc.density {
			p.notes = append(p.notes, "The density asked for was not computed: the ratio was.")
		}
	default:
		k := 0
		for i, c := range measures {
			// "population density", "density of buildings", "people per km²"
			if sc.densityAt >= c.end-1 && sc.densityAt <= c.end+1 || (c.start >= sc.densityAt && c.start <= sc.densityAt+3) {
				k = i
				break
			}
		}
		x = measures[k]
		if !m.isSum(x.ref) {
			p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
			p.notes = append(p.notes, "A density is computed for summed measures (totals); "+m.kindPhrase(x.ref)+".")
			return false
		}
		p.metric = metricSpec{kind: metricDensity}
		p.used = []match{x}
		p.plan.Per = m.areaUnit(p)
		if order != "" {
			p.plan.Intent, p.plan.Order = IntentRank, order
		} else {
			p.plan.Intent = IntentDensity
		}
	}
	for _, c := range measures {
		if !slices.ContainsFunc(p.used, func(u match) bool { return u.ref == c.ref }) {
			p.ignored = append(p.ignored, c)
		}
	}
	if len(p.ignored) > 0 {
		p.notes = append(p.notes, "Also named, not used: "+m.labelsOf(p.ignored)+".")
	}
	return true
}

// kindPhrase says how a measure aggregates, for a detail: "night-time
// light radiance is a mean", "settlement class is a category".
func (m *matcher) kindPhrase(r attrRef) string {
	at := m.attr(r)
	l := lowerLabel(labelOf(at))
	switch kindOf(at) {
	case kindSum:
		return l + " " + verbIs(at) + " a total"
	case kindMean:
		return l + " " + verbIs(at) + " a mean"
	}
	return l + " " + verbIs(at) + " a category"
}

// decideNearest plans frames_nearest: the dataset of features named, by
// its name or through one of its measures ("the nearest clinic" reaches
// the health facilities).
func (m *matcher) decideNearest(sc *scan, measures []match, p *parsed) {
	exact := true
	d := p.near
	if d < 0 {
		for _, c := range measures {
			if m.ds[c.ref.d].Features > 0 {
				d, exact = c.ref.d, c.exact
				break
			}
		}
	}
	if d < 0 {
		p.plan.Intent, p.plan.Confidence = IntentUnsupported, ConfidenceUnknown
		if len(measures) > 0 {
			var ds []string
			for _, c := range measures {
				ds = append(ds, datasetName(&m.ds[c.ref.d]))
			}
			p.notes = append(p.notes, "A distance is measured to features; "+joinAnd(ds, "and")+" "+
				plural(len(ds), "holds", "hold")+" none.")
		}
		return
	}
	p.near = d
	p.nearLoose = !exact
	p.plan.Intent = IntentNearest
	p.plan.Dataset = m.ds[d].ID
	p.plan.Count = 1
	if sc.count > 0 {
		p.plan.Count = sc.count
	}
	for _, c := range measures {
		if c.ref.d != d {
			p.ignored = append(p.ignored, c)
		}
	}
	if len(p.ignored) > 0 {
		p.notes = append(p.notes, "Also named, not searched: "+m.labelsOf(p.ignored)+".")
	}
	for _, i := range sc.unread {
		p.notes = append(p.notes, "The number "+FormatNumberText(sc.raw(i))+" was not read: the search goes up to a fixed distance.")
	}
	p.plan.Confidence = ConfidenceExact
	if !exact || len(p.notes) > 0 {
		p.plan.Confidence = ConfidencePartial
	}
}
