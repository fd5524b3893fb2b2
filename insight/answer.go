package insight

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Aggregation kinds of a measure.
const (
	kindSum = iota
	kindMean
	kindMode
)

// noRecord is a table cell for a frame a dataset records nothing on.
const noRecord = "no record"

// cell is one frame's value of a measure.
type cell struct {
	ok  bool
	num float64
	str string
}

// nameCount is one distinct value of a category measure and its frames.
type nameCount struct {
	name  string
	count int
}

// calc is one measure computed over the known frames.
type calc struct {
	ref     attrRef
	d       *Dataset
	a       *Attribute
	kind    int
	cells   []cell // per known frame
	records int    // frames with a value
	total   float64
	mean    float64
	hi, lo  int         // frames (indexes) of the first highest and lowest value
	counts  []nameCount // kindMode: most frames first, then first seen
}

// figure is the measure's figure over the selection: total or mean.
func (c *calc) figure() float64 {
	if c.kind == kindMean {
		return c.mean
	}
	return c.total
}

// answerer holds one Answer call's state.
type answerer struct {
	m       *matcher
	p       parsed
	req     Request
	known   []*Frame
	missing []string // ids not found
	ins     Insight
	used    map[int]bool // dataset indexes whose values went into a figure
	details []string
}

// answer is Answer.
func answer(req Request) Insight {
	m := newMatcher(req.Datasets)
	a := &answerer{m: m, p: m.parse(req.Question), req: req, used: map[int]bool{}}
	seen := map[string]bool{}
	for i := range req.Frames {
		f := &req.Frames[i]
		if seen[f.ID] {
			continue
		}
		seen[f.ID] = true
		if f.Known {
			a.known = append(a.known, f)
		} else {
			a.missing = append(a.missing, f.ID)
		}
	}
	plan := a.p.plan
	a.ins = Insight{Intent: plan.Intent, Confidence: plan.Confidence, Register: plan.Register, Retrieval: RetrievalNone}
	if req.Register == RegisterPlain || req.Register == RegisterGIS {
		a.ins.Register = req.Register
	}
	if req.Format == "report" {
		a.ins.Format = "report"
	}
	for _, f := range a.known {
		a.ins.FrameIDs = append(a.ins.FrameIDs, f.ID)
	}
	a.dropValueWords()
	switch {
	case plan.Intent == IntentUnsupported:
		a.unsupported()
	case len(a.known) == 0:
		a.nothingFound()
	default:
		if plan.Confidence == ConfidencePartial {
			a.ins.Retrieval = RetrievalLexical
		}
		a.explainMatches()
		switch plan.Intent {
		case IntentFrames:
			a.profile()
		case IntentAttribute:
			a.attribute(a.compute(a.p.used[0].ref))
		case IntentRank:
			a.rank(a.compute(a.p.used[0].ref))
		case IntentCompare:
			a.compare(a.compute(a.p.used[0].ref), a.compute(a.p.used[1].ref))
		}
		a.ins.FollowUps = a.followUps()
	}
	if len(a.missing) > 0 {
		a.details = append(a.details, a.notFound())
	}
	a.ins.Detail = strings.Join(a.details, " ")
	for i := range a.used {
		a.ins.Used = append(a.ins.Used, req.Datasets[i].ID)
	}
	sort.Strings(a.ins.Used)
	return a.ins
}

// dropValueWords keeps out of the detail's "no readable dataset records"
// the words of values the frames hold ("tell me about Kano").
func (a *answerer) dropValueWords() {
	if len(a.p.unknown) == 0 {
		return
	}
	held := map[string]bool{}
	for _, f := range a.known {
		for _, df := range f.Data {
			for _, v := range df.Attrs {
				if !v.IsNum && len(v.Str) <= 200 {
					for _, t := range tokenize(v.Str) {
						held[t.raw] = true
					}
				}
			}
		}
	}
	kept := a.p.unknown[:0:0]
	for _, w := range a.p.unknown {
		if !held[w] {
			kept = append(kept, w)
		}
	}
	a.p.unknown = kept
}

// compute reads one measure off the known frames.
func (a *answerer) compute(r attrRef) *calc {
	d := &a.m.ds[r.d]
	at := &d.Attributes[r.a]
	c := &calc{ref: r, d: d, a: at, kind: kindMode, cells: make([]cell, len(a.known)), hi: -1, lo: -1}
	if isNumeric(*at) {
		switch at.Aggregation {
		case "mean":
			c.kind = kindMean
		case "mode":
		default:
			c.kind = kindSum
		}
	}
	index := map[string]int{}
	for i, f := range a.known {
		v, ok := f.Data[d.ID].Attrs[at.Name]
		if !ok {
			continue
		}
		if c.kind == kindMode {
			s := valueText(v)
			if s == "" {
				continue
			}
			c.cells[i] = cell{ok: true, str: s}
			c.records++
			if k, ok := index[s]; ok {
				c.counts[k].count++
			} else {
				index[s] = len(c.counts)
				c.counts = append(c.counts, nameCount{s, 1})
			}
			continue
		}
		x, ok := valueNumber(v)
		if !ok {
			continue
		}
		c.cells[i] = cell{ok: true, num: x, str: FormatNumber(x)}
		c.records++
		c.total += x
		if c.hi < 0 || x > c.cells[c.hi].num {
			c.hi = i
		}
		if c.lo < 0 || x < c.cells[c.lo].num {
			c.lo = i
		}
	}
	if c.records > 0 {
		c.mean = c.total / float64(c.records)
		a.used[r.d] = true
		a.source(r)
	}
	sort.SliceStable(c.counts, func(i, j int) bool { return c.counts[i].count > c.counts[j].count })
	return c
}

// valueNumber reads a number, from a number or from text holding one.
func valueNumber(v Value) (float64, bool) {
	x := v.Num
	if !v.IsNum {
		var err error
		if x, err = strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// valueText reads a category: text as stored, trimmed, or a number shown.
func valueText(v Value) string {
	if v.IsNum {
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return ""
		}
		return FormatNumber(v.Num)
	}
	return strings.TrimSpace(v.Str)
}

// source lists the dataset and attribute of a figure, once.
func (a *answerer) source(r attrRef) {
	d := &a.m.ds[r.d]
	at := &d.Attributes[r.a]
	for _, s := range a.ins.Sources {
		if s.LayerID == d.ID && s.Attribute == at.Name {
			return
		}
	}
	a.ins.Sources = append(a.ins.Sources, Source{LayerID: d.ID, LayerName: datasetName(d), Attribute: at.Name, Label: labelOf(at)})
}

// datasetName is a dataset's name, or its id when it has none.
func datasetName(d *Dataset) string {
	if d.Name != "" {
		return d.Name
	}
	return d.ID
}

// labelOf is an attribute's label, or its name when it has none.
func labelOf(at *Attribute) string {
	if at.Label != "" {
		return at.Label
	}
	return strings.ReplaceAll(at.Name, "_", " ")
}

// yearSuffix is " (2020)" for a measure of a year, else "".
func yearSuffix(at *Attribute) string {
	if at.Year > 0 {
		return " (" + strconv.Itoa(at.Year) + ")"
	}
	return ""
}

// withUnit is a figure for a facet: "48,210 people", "1 facility",
// "12.5 nW/cm²/sr".
func withUnit(v float64, at *Attribute) string {
	u := strings.TrimSpace(at.Unit)
	switch {
	case u == "":
		return FormatNumber(v)
	case v == 1:
		u = singularPhrase(u)
	}
	return FormatNumber(v) + " " + u
}

// proseUnit is the unit in a sentence, left out where the label already
// says it ("an estimated population of 48,210", not "... 48,210 people").
func proseUnit(at *Attribute) string {
	u := strings.TrimSpace(at.Unit)
	if u == "" {
		return ""
	}
	switch strings.ToLower(u) {
	case "people", "persons", "person", "count", "number":
		return ""
	}
	lw := words(labelOf(at))
	for _, w := range words(u) {
		if containsPhrase(lw, []string{w}) {
			return ""
		}
	}
	return " " + u
}

// subject is the sentence subject for the known frames.
func (a *answerer) subject() string {
	if len(a.known) == 1 {
		return "Frame " + a.known[0].ID
	}
	return "The " + fmtInt(len(a.known)) + " selected frames"
}

// have is the verb agreeing with subject.
func (a *answerer) have() string { return plural(len(a.known), "has", "have") }

// missingClause ends a headline when ids were not found.
func (a *answerer) missingClause() string {
	k := len(a.missing)
	if k == 0 {
		return ""
	}
	all := k + len(a.known)
	return "; " + fmtInt(k) + " of the " + fmtInt(all) + " ids " + plural(k, "was", "were") + " not found"
}

// notFound names the ids not found, for the detail.
func (a *answerer) notFound() string {
	ids := a.missing
	more := ""
	if len(ids) > 10 {
		more = " and " + fmtInt(len(ids)-10) + " more"
		ids = ids[:10]
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	return plural(len(a.missing), "This id was", "These ids were") + " not found: " + strings.Join(quoted, ", ") + more + "."
}

// explainMatches says, in the detail, how measures were read from the
// wording and which named measures were left out.
func (a *answerer) explainMatches() {
	var read []string
	for _, c := range a.p.used {
		if !c.exact {
			read = append(read, strconv.Quote(c.words)+" as "+labelOf(a.m.attr(c.ref)))
		}
	}
	if len(read) > 0 {
		a.details = append(a.details, "Read "+joinAnd(read, "and")+".")
	}
	var mods []string
	for _, c := range a.p.modified {
		mods = append(mods, strconv.Quote(c.modifier))
	}
	if len(mods) > 0 {
		a.details = append(a.details, "No readable dataset records "+joinAnd(mods, "or")+".")
	}
	var left []string
	for _, c := range a.p.ignored {
		left = append(left, labelOf(a.m.attr(c.ref)))
	}
	if len(left) > 0 {
		what := "Only two measures are compared at a time"
		if a.p.plan.Intent == IntentRank {
			what = "Frames are ranked on one measure at a time"
		} else if a.p.plan.Intent == IntentAttribute {
			what = "Names are summarised one measure at a time"
		}
		a.details = append(a.details, what+"; also named: "+joinAnd(left, "and")+".")
	}
	if a.p.plan.Intent == IntentFrames && len(a.p.unknown) > 0 {
		a.details = append(a.details, "No readable dataset records "+quoteWords(a.p.unknown)+"; this is a profile of the frames.")
	}
}

// quoteWords quotes up to three words for a detail: `"gdp" or "income"`.
func quoteWords(ws []string) string {
	var q []string
	for i, w := range ws {
		if i == 3 {
			break
		}
		q = append(q, strconv.Quote(w))
	}
	return joinAnd(q, "or")
}

// coverage says, for the detail, when a measure is recorded on only some
// of the frames.
func (a *answerer) coverage(c *calc, what string) {
	n := len(a.known)
	if c.records == 0 || c.records == n {
		return
	}
	a.details = append(a.details, labelOf(c.a)+" "+verbIs(c.a)+" recorded on "+fmtInt(c.records)+" of the "+fmtInt(n)+
		" selected frames; "+what+".")
}

// verbIs is "is", or "are" for a label naming countable things.
func verbIs(at *Attribute) string {
	if isCountLabel(labelOf(at)) {
		return "are"
	}
	return "is"
}

// summaryFacet is a measure's figure over the selection, as a facet.
func summaryFacet(c *calc) Facet {
	l := lowerLabel(labelOf(c.a))
	switch {
	case c.records == 0:
		return Facet{capitalize(l) + yearSuffix(c.a), "none recorded"}
	case c.kind == kindSum:
		return Facet{"Total " + l + yearSuffix(c.a), withUnit(c.total, c.a)}
	case c.kind == kindMean:
		return Facet{"Mean " + l + yearSuffix(c.a), withUnit(c.mean, c.a)}
	}
	return Facet{"Most common " + l + yearSuffix(c.a), modeText(c)}
}

// modeText is "urban (67%)": the most common value and its share of the
// frames that record one.
func modeText(c *calc) string {
	if len(c.counts) == 0 {
		return "none recorded"
	}
	return c.counts[0].name + " (" + percent(c.counts[0].count, c.records) + ")"
}

// names are a category's distinct values, most frames first.
func names(c *calc) []string {
	out := make([]string, len(c.counts))
	for i, nc := range c.counts {
		out[i] = nc.name
	}
	return out
}

// pluralNoun is how several of a category's values are counted: "states".
func pluralNoun(c *calc) string { return pluralPhrase(lowerLabel(labelOf(c.a))) }

// phrase is what the frames have of a measure, after "has"/"have":
// "an estimated population of 48,210 (2020)", "4,591 buildings (2020)",
// "a mean night-time light radiance of 12.5 nW/cm²/sr (2022)".
func (a *answerer) phrase(c *calc) string {
	l := lowerLabel(labelOf(c.a))
	n := len(a.known)
	switch {
	case c.records == 0:
		return "no record of " + l
	case c.kind == kindMode:
		top := c.counts[0]
		if top.count == c.records {
			return l + " " + top.name
		}
		return l + " " + top.name + " on " + fmtInt(top.count) + " of " + fmtInt(c.records) + " frames (" + percent(top.count, c.records) + ")"
	}
	v := c.figure()
	mean := c.kind == kindMean && (n > 1 || c.records > 1)
	if isCountLabel(labelOf(c.a)) {
		if mean {
			return "a mean of " + FormatNumber(v) + " " + l + " per frame" + yearSuffix(c.a)
		}
		noun := l
		if v == 1 {
			noun = singularPhrase(l)
		}
		return FormatNumber(v) + " " + noun + yearSuffix(c.a)
	}
	if mean {
		return "a mean " + l + " of " + FormatNumber(v) + proseUnit(c.a) + yearSuffix(c.a)
	}
	return article(l) + " " + l + " of " + FormatNumber(v) + proseUnit(c.a) + yearSuffix(c.a)
}

// frameTable is the per-frame table of measures.
func (a *answerer) frameTable(cs ...*calc) *Table {
	t := &Table{Columns: []string{"Frame"}}
	for _, c := range cs {
		t.Columns = append(t.Columns, labelOf(c.a))
	}
	for i, f := range a.known {
		row := []string{f.ID}
		for _, c := range cs {
			if c.cells[i].ok {
				row = append(row, c.cells[i].str)
			} else {
				row = append(row, noRecord)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// recordsFacet is "Frames with a record": "3 of 3".
func (a *answerer) recordsFacet(c *calc) Facet {
	return Facet{"Frames with a record", fmtInt(c.records) + " of " + fmtInt(len(a.known))}
}

// attribute answers one measure: its figure, extremes and a per-frame table.
func (a *answerer) attribute(c *calc) {
	n := len(a.known)
	l := lowerLabel(labelOf(c.a))
	a.ins.Facets = append(a.ins.Facets, summaryFacet(c))
	switch {
	case c.records == 0:
		if n == 1 {
			a.ins.Headline = a.subject() + " has no record of " + l + a.missingClause() + "."
		} else {
			a.ins.Headline = "None of the " + fmtInt(n) + " selected frames has a record of " + l + a.missingClause() + "."
		}
	case c.kind == kindMode:
		top := c.counts[0]
		switch {
		case n == 1:
			a.ins.Headline = a.subject() + " has " + l + " " + top.name + a.missingClause() + "."
		case top.count == n:
			a.ins.Headline = "All " + fmtInt(n) + " selected frames have " + l + " " + top.name + a.missingClause() + "."
		default:
			a.ins.Headline = "The most common " + l + " of the " + fmtInt(n) + " selected frames is " + top.name + ": " +
				fmtInt(top.count) + " of " + fmtInt(c.records) + " " + plural(c.records, "frame", "frames") +
				" (" + percent(top.count, c.records) + ")" + a.missingClause() + "."
		}
		if len(c.counts) > 1 {
			a.ins.Facets = append(a.ins.Facets, Facet{capitalize(pluralNoun(c)) + " in the selection", summarizeNames(names(c), pluralNoun(c))})
		}
		a.coverage(c, "the share is of those")
	default:
		a.ins.Headline = a.subject() + " " + a.have() + " " + a.phrase(c) + a.missingClause() + "."
		if c.records > 1 {
			a.ins.Facets = append(a.ins.Facets,
				Facet{"Highest", withUnit(c.cells[c.hi].num, c.a) + " (frame " + a.known[c.hi].ID + ")"},
				Facet{"Lowest", withUnit(c.cells[c.lo].num, c.a) + " (frame " + a.known[c.lo].ID + ")"})
		}
		if c.kind == kindSum {
			a.coverage(c, "the total covers those")
		} else {
			a.coverage(c, "the mean covers those")
		}
	}
	a.ins.Facets = append(a.ins.Facets, a.recordsFacet(c))
	a.ins.Table = a.frameTable(c)
	if c.records == 0 {
		a.source(c.ref)
	}
}

// rankPhrase is "the most buildings" or "the highest estimated population".
func rankPhrase(c *calc, high bool) string {
	l := lowerLabel(labelOf(c.a))
	if isCountLabel(labelOf(c.a)) {
		if high {
			return "the most " + l
		}
		return "the fewest " + l
	}
	if high {
		return "the highest " + l
	}
	return "the lowest " + l
}

// rank answers which frames rank highest or lowest on a numeric measure.
func (a *answerer) rank(c *calc) {
	n := len(a.known)
	high := a.p.plan.Order != OrderLowest
	var order []int
	for i := range c.cells {
		if c.cells[i].ok {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(x, y int) bool {
		if high {
			return c.cells[order[x]].num > c.cells[order[y]].num
		}
		return c.cells[order[x]].num < c.cells[order[y]].num
	})
	l := lowerLabel(labelOf(c.a))
	value := func(i int) string { return FormatNumber(c.cells[i].num) + proseUnit(c.a) }
	switch {
	case c.records == 0:
		if n == 1 {
			a.ins.Headline = a.subject() + " has no record of " + l + a.missingClause() + "."
		} else {
			a.ins.Headline = "None of the " + fmtInt(n) + " selected frames has a record of " + l + a.missingClause() + "."
		}
	case n == 1:
		a.ins.Headline = a.subject() + " is the only selected frame: it has " + a.phrase(c) + a.missingClause() + "."
	case c.records == 1:
		a.ins.Headline = "Frame " + a.known[order[0]].ID + " is the only one of the " + fmtInt(n) +
			" selected frames with a record of " + l + ": " + value(order[0]) + yearSuffix(c.a) + a.missingClause() + "."
	default:
		among := "the " + fmtInt(n) + " selected frames"
		if c.records < n {
			among = "the " + fmtInt(c.records) + " selected frames that record it"
		}
		best := c.cells[order[0]].num
		var tied []string
		for _, i := range order {
			if c.cells[i].num == best {
				tied = append(tied, a.known[i].ID)
			}
		}
		switch {
		case len(tied) == 1:
			a.ins.Headline = "Frame " + tied[0] + " has " + rankPhrase(c, high) + " of " + among + ": " + value(order[0]) +
				yearSuffix(c.a) + a.missingClause() + "."
		case len(tied) <= 3:
			a.ins.Headline = "Frames " + joinAnd(tied, "and") + " have " + rankPhrase(c, high) + " of " + among + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		case len(tied) == c.records:
			a.ins.Headline = "All " + among[len("the "):] + " tie for " + rankPhrase(c, high) + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		default:
			a.ins.Headline = fmtInt(len(tied)) + " of " + among + " tie for " + rankPhrase(c, high) + ": " +
				value(order[0]) + yearSuffix(c.a) + " each" + a.missingClause() + "."
		}
	}
	a.coverage(c, "only those are ranked")
	if c.records > 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{"Frames ranked", fmtInt(c.records) + " of " + fmtInt(n)})
		first, last := order[0], order[len(order)-1]
		hi, lo := first, last
		if !high {
			hi, lo = last, first
		}
		a.ins.Facets = append(a.ins.Facets,
			Facet{capitalize(rankPhrase(c, true)[len("the "):]) + yearSuffix(c.a), withUnit(c.cells[hi].num, c.a) + " (frame " + a.known[hi].ID + ")"},
			Facet{capitalize(rankPhrase(c, false)[len("the "):]) + yearSuffix(c.a), withUnit(c.cells[lo].num, c.a) + " (frame " + a.known[lo].ID + ")"})
	}
	a.ins.Facets = append(a.ins.Facets, summaryFacet(c))
	t := &Table{Columns: []string{"Rank", "Frame", labelOf(c.a)}}
	top := a.p.top
	if top > len(order) {
		top = len(order)
	}
	place := 0
	for k := 0; k < top; k++ {
		i := order[k]
		if k == 0 || c.cells[i].num != c.cells[order[k-1]].num {
			place = k + 1
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(place), a.known[i].ID, c.cells[i].str})
	}
	if len(t.Rows) > 0 {
		a.ins.Table = t
	}
	if c.records == 0 {
		a.source(c.ref)
	}
}

// compare answers two measures side by side.
func (a *answerer) compare(x, y *calc) {
	a.ins.Headline = a.subject() + " " + a.have() + " " + a.phrase(x) + " and " + a.phrase(y) + a.missingClause() + "."
	a.ins.Facets = append(a.ins.Facets, summaryFacet(x), summaryFacet(y))
	if x.kind == kindSum && y.kind == kindSum && x.records > 0 && y.records > 0 && y.total != 0 {
		a.ins.Facets = append(a.ins.Facets, Facet{
			capitalize(lowerLabel(labelOf(x.a))) + " per " + singularPhrase(lowerLabel(labelOf(y.a))),
			FormatNumber(x.total / y.total)})
	}
	a.coverage(x, "its figure covers those")
	a.coverage(y, "its figure covers those")
	t := a.frameTable(x, y)
	last := "Selection"
	if x.kind == kindSum && y.kind == kindSum {
		last = "Total"
	}
	t.Rows = append(t.Rows, []string{last, selectionCell(x), selectionCell(y)})
	a.ins.Table = t
	for _, c := range []*calc{x, y} {
		if c.records == 0 {
			a.source(c.ref)
		}
	}
}

// selectionCell is a measure's figure for the last row of a comparison.
func selectionCell(c *calc) string {
	switch {
	case c.records == 0:
		return noRecord
	case c.kind == kindSum:
		return FormatNumber(c.total)
	case c.kind == kindMean:
		return FormatNumber(c.mean) + " (mean)"
	}
	return modeText(c)
}

// profileFacets are the profile's facets after "Areas selected", found by
// concept, in the contract's order.
var profileFacets = []struct{ concept, label string }{
	{cState, "State"},
	{cLGA, "Local government area"},
	{cWard, "Ward"},
	{cBuildings, "Buildings"},
	{cPopulation, "Estimated population"},
	{cSettlement, "Settlement class"},
}

// profile answers with the profile of the frames: where they are, what
// lives there, and what every readable dataset records on them.
func (a *answerer) profile() {
	n := len(a.known)
	a.ins.Facets = append(a.ins.Facets, Facet{"Areas selected", fmtInt(n)})
	calcs := map[string]*calc{}
	for _, pf := range profileFacets {
		r, ok := a.m.byConcept[pf.concept]
		if !ok {
			continue
		}
		c := a.compute(r)
		calcs[pf.concept] = c
		label := pf.label
		if pf.concept == cPopulation {
			label += yearSuffix(c.a)
		}
		value := "none recorded"
		switch {
		case c.records == 0:
		case c.kind == kindMode && (pf.concept == cState || pf.concept == cLGA || pf.concept == cWard):
			value = summarizeNames(names(c), pluralNoun(c))
		case c.kind == kindMode:
			value = modeText(c)
		default:
			value = FormatNumber(c.figure())
		}
		a.ins.Facets = append(a.ins.Facets, Facet{label, value})
		if c.records == 0 {
			a.source(r)
		}
	}

	// Headline: where, then population and buildings.
	var where string
	if st := calcs[cState]; st != nil && st.kind == kindMode && st.records > 0 {
		where = namesInProse(names(st), pluralNoun(st))
		if lga := calcs[cLGA]; n == 1 && lga != nil && lga.kind == kindMode && lga.records > 0 && lga.counts[0].name != st.counts[0].name {
			where = lga.counts[0].name + ", " + where
		}
	}
	var preds []string
	for _, concept := range []string{cPopulation, cBuildings} {
		if c := calcs[concept]; c != nil && c.records > 0 && c.kind != kindMode {
			preds = append(preds, a.phrase(c))
		}
	}

	// Table: every readable dataset.
	t := &Table{Columns: []string{"Dataset", "In selection", "In dataset"}}
	recorded := 0
	var featureRows []string
	for di := range a.m.ds {
		d := &a.m.ds[di]
		inSel, frames := 0, 0
		for _, f := range a.known {
			if df, ok := f.Data[d.ID]; ok {
				frames++
				if df.FeatureCount > 0 {
					inSel += df.FeatureCount
				}
			}
		}
		// Frames for a dataset that records attributes, features only for
		// a dataset of features alone: a dataset with both (building
		// counts everywhere, footprints on a sample) is better described by
		// where it records something than by where it has features.
		national := d.Features
		if d.Features > 0 && len(d.Attributes) == 0 {
			featureRows = append(featureRows, datasetName(d))
		} else {
			inSel, national = frames, d.Frames
		}
		if frames > 0 {
			recorded++
		}
		if inSel > 0 {
			a.used[di] = true
		}
		t.Rows = append(t.Rows, []string{datasetName(d), fmtInt(inSel), fmtInt(national)})
		known := false
		for _, s := range a.ins.Sources {
			known = known || s.LayerID == d.ID
		}
		if !known {
			a.ins.Sources = append(a.ins.Sources, Source{LayerID: d.ID, LayerName: datasetName(d)})
		}
	}
	if len(t.Rows) > 0 {
		a.ins.Table = t
	}
	if len(preds) == 0 {
		if recorded == 0 {
			preds = []string{"no records in any readable dataset"}
		} else {
			preds = []string{"records in " + fmtInt(recorded) + " of the " + fmtInt(len(a.m.ds)) + " readable " + plural(len(a.m.ds), "dataset", "datasets")}
		}
	}
	h := a.subject()
	if where != "" {
		h += ", in " + where + ","
	}
	a.ins.Headline = h + " " + a.have() + " " + joinAnd(preds, "and") + a.missingClause() + "."

	// Detail: what a mixed selection spans, and how the table counts.
	var spans []string
	for _, concept := range []string{cState, cLGA, cWard} {
		if c := calcs[concept]; c != nil && c.kind == kindMode && len(c.counts) > 1 {
			spans = append(spans, fmtInt(len(c.counts))+" "+pluralNoun(c))
		}
	}
	if len(spans) > 0 {
		if st := calcs[cState]; st != nil && st.kind == kindMode && len(st.counts) > 1 {
			spans[0] += " (" + breakdown(st) + ")"
		}
		a.details = append(a.details, "The selection spans "+joinAnd(spans, "and")+".")
	}
	if c := calcs[cSettlement]; c != nil && c.kind == kindMode && len(c.counts) > 1 {
		a.details = append(a.details, capitalize(lowerLabel(labelOf(c.a)))+" by frame: "+breakdown(c)+".")
	}
	if len(featureRows) > 0 {
		a.details = append(a.details, "In the table, "+joinAnd(featureRows, "and")+" "+plural(len(featureRows), "counts", "count")+
			" features; every other dataset counts the frames it records something on.")
	}
}

// breakdown is "Kano 2 frames, Jigawa 1 frame" for a category, at most
// five values.
func breakdown(c *calc) string {
	var parts []string
	for i, nc := range c.counts {
		if i == 5 {
			parts = append(parts, fmtInt(len(c.counts)-5)+" more")
			break
		}
		parts = append(parts, nc.name+" "+fmtInt(nc.count)+" "+plural(nc.count, "frame", "frames"))
	}
	return strings.Join(parts, ", ")
}

// nothingFound answers when none of the ids is a known frame.
func (a *answerer) nothingFound() {
	a.ins.Confidence = ConfidenceUnknown
	switch k := len(a.missing); k {
	case 0:
		a.ins.Headline = "No frames were given, so nothing could be computed."
	case 1:
		a.ins.Headline = "Frame id " + a.missing[0] + " was not found, so nothing could be computed."
	default:
		a.ins.Headline = "None of the " + fmtInt(k) + " frame ids was found, so nothing could be computed."
	}
}

// unsupported answers a question nothing can be computed for: what can be
// asked instead.
func (a *answerer) unsupported() {
	a.ins.Confidence = ConfidenceUnknown
	var labels []string
	for _, r := range a.measures() {
		labels = append(labels, lowerLabel(labelOf(a.m.attr(r))))
	}
	h := "This question cannot be answered from the readable datasets; ask for an overview of the frames"
	switch {
	case len(labels) > 4:
		h += " or about " + strings.Join(labels[:4], ", ") + " and " + fmtInt(len(labels)-4) + " more measures"
	case len(labels) > 0:
		h += " or about " + joinAnd(labels, "or")
	}
	a.ins.Headline = h + "."
	switch {
	case len(a.p.modified) > 0:
		var mods []string
		for _, c := range a.p.modified {
			mods = append(mods, strconv.Quote(c.modifier))
		}
		a.details = append(a.details, "No readable dataset records "+joinAnd(mods, "or")+".")
	case len(a.p.unknown) > 0:
		a.details = append(a.details, "No readable dataset records "+quoteWords(a.p.unknown)+".")
	}
	if len(a.known) > 0 {
		a.ins.FollowUps = a.followUps()
	}
}

// measures are the readable attributes follow-ups and the unsupported
// headline offer: those carrying a known concept in the concept order,
// numeric ones first, then the rest in dataset order.
func (a *answerer) measures() []attrRef {
	var out []attrRef
	seen := map[attrRef]bool{}
	add := func(r attrRef) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, numeric := range []bool{true, false} {
		for _, c := range conceptOrder {
			if r, ok := a.m.byConcept[c]; ok && isNumeric(*a.m.attr(r)) == numeric {
				add(r)
			}
		}
		for di, d := range a.m.ds {
			for ai, at := range d.Attributes {
				if at.Name != "" && isNumeric(at) == numeric {
					add(attrRef{di, ai})
				}
			}
		}
	}
	return out
}
