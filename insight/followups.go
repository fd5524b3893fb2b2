package insight

import (
	"math"
	"strings"
)

// maxFollowUps is how many follow-up questions an answer suggests (the
// issue asks for two to four).
const maxFollowUps = 3

// ask is a follow-up question and the plan it must parse to.
type ask struct {
	q       string
	intent  string
	refs    []attrRef
	order   string
	per     string  // a density's unit
	scale   float64 // a ratio's scale
	op      string  // a condition's operator
	base    string  // a share's base
	dataset string  // a nearest search's dataset
}

// overviewAsk asks for the profile.
var overviewAsk = ask{q: "Give me an overview of these frames.", intent: IntentFrames}

// valueAsk asks for one measure over the frames.
func (a *answerer) valueAsk(r attrRef) ask {
	at := a.m.attr(r)
	l := lowerLabel(labelOf(at))
	q := "What is the most common " + l + " in these frames?"
	switch k := kindOf(at); {
	case k == kindMean:
		q = "What is the mean " + l + " of these frames?"
	case k == kindMode:
	case isCountLabel(labelOf(at)):
		q = "How many " + l + " are in these frames?"
	default:
		q = "What is the total " + l + " of these frames?"
	}
	return ask{q: q, intent: IntentAttribute, refs: []attrRef{r}}
}

// rankAsk asks which frame ranks highest or lowest on a numeric measure.
func (a *answerer) rankAsk(r attrRef, high bool) ask {
	order := OrderHighest
	if !high {
		order = OrderLowest
	}
	at := a.m.attr(r)
	return ask{q: "Which frame has the " + rankWord(at, high) + " " + lowerLabel(labelOf(at)) + "?", intent: IntentRank, refs: []attrRef{r}, order: order}
}

// compareAsk asks for two measures side by side.
func (a *answerer) compareAsk(x, y attrRef) ask {
	return ask{q: "Compare " + lowerLabel(labelOf(a.m.attr(x))) + " and " + lowerLabel(labelOf(a.m.attr(y))) + " in these frames.",
		intent: IntentCompare, refs: []attrRef{x, y}}
}

// followUps suggests questions about the same frames that this engine
// answers: each is parsed here, and kept only when it parses to the
// intended supported intent and measures, and asks something new.
func (a *answerer) followUps() []string {
	all := a.measures()
	var num []attrRef
	for _, r := range all {
		if kindOf(a.m.attr(r)) != kindMode {
			num = append(num, r)
		}
	}
	other := func(x attrRef) (attrRef, bool) {
		for _, list := range [][]attrRef{num, all} {
			for _, r := range list {
				if r != x {
					return r, true
				}
			}
		}
		return attrRef{}, false
	}
	isNum := func(r attrRef) bool {
		for _, n := range num {
			if n == r {
				return true
			}
		}
		return false
	}
	var cands []ask
	plan := a.p.plan
	switch plan.Intent {
	case IntentFrames:
		if len(num) > 0 {
			cands = append(cands, a.rankAsk(num[0], true))
		}
		if len(num) > 1 {
			cands = append(cands, a.valueAsk(num[1]), a.compareAsk(num[0], num[1]))
		}
	case IntentAttribute, IntentRank:
		x := a.p.used[0].ref
		if isNum(x) {
			// an attribute suggests its highest frame; a ranking, the other end
			cands = append(cands, a.rankAsk(x, plan.Intent != IntentRank || plan.Order == OrderLowest))
		}
		if plan.Intent == IntentRank {
			cands = append(cands, a.valueAsk(x))
		}
		if y, ok := other(x); ok {
			cands = append(cands, a.compareAsk(x, y))
		}
	case IntentCompare:
		for _, c := range a.p.used {
			if isNum(c.ref) {
				cands = append(cands, a.rankAsk(c.ref, true))
			}
		}
	case IntentDensity:
		x := a.p.used[0].ref
		cands = append(cands, a.densityRankAsk(x), a.valueAsk(x))
		cands = append(cands, a.thresholdAsk(x)...)
	case IntentRatio:
		x, y := a.p.used[0].ref, a.p.used[1].ref
		cands = append(cands, a.ratioRankAsk(x, y), a.valueAsk(x), a.valueAsk(y))
	case IntentThreshold, IntentShare:
		x := a.p.used[0].ref
		if a.p.cond != nil {
			x = a.p.cond.m.ref
		}
		if isNum(x) {
			cands = append(cands, a.rankAsk(x, true), a.valueAsk(x))
			cands = append(cands, a.gapAsk(x)...)
			if a.m.isSum(x) {
				cands = append(cands, a.densityAsk(x))
			}
		} else {
			cands = append(cands, a.valueAsk(x))
		}
		if a.p.cond != nil && a.p.cond.op == OpNone && a.m.ds[x.d].Features > 0 {
			cands = append([]ask{a.nearestAsk(x.d)}, cands...)
		}
		cands = append(cands, a.shareAsk()...)
	case IntentNearest:
		d := a.p.near
		for ai := range a.m.ds[d].Attributes {
			r := attrRef{d, ai}
			if a.m.ds[d].Attributes[ai].Name != "" && isNum(r) {
				cands = append(cands, a.valueAsk(r), a.rankAsk(r, true))
				break
			}
		}
		cands = append(cands, overviewAsk)
	case IntentUnsupported:
		cands = append(cands, overviewAsk)
		if len(num) > 0 {
			cands = append(cands, a.rankAsk(num[0], true))
		}
		if len(num) > 1 {
			cands = append(cands, a.valueAsk(num[1]))
		}
	}
	cands = append(cands, overviewAsk)
	for _, r := range all {
		cands = append(cands, a.valueAsk(r))
	}

	var out []string
	for _, c := range cands {
		if len(out) == maxFollowUps {
			break
		}
		if a.answers(c, out) {
			out = append(out, c.q)
		}
	}
	return out
}

// answers reports whether c parses to its intended plan, differs from the
// question answered, and is not among out already.
func (a *answerer) answers(c ask, out []string) bool {
	for _, q := range out {
		if q == c.q {
			return false
		}
	}
	got := a.m.parse(c.q).plan
	if got.Intent != c.intent || got.Order != c.order || len(got.Measures) != len(c.refs) || got.Confidence != ConfidenceExact ||
		got.Per != c.per || got.Scale != c.scale || got.Base != c.base || got.Dataset != c.dataset {
		return false
	}
	if (got.Condition == nil) != (c.op == "") || (got.Condition != nil && got.Condition.Op != c.op) {
		return false
	}
	for i, r := range c.refs {
		if got.Measures[i] != a.m.measureID(r) {
			return false
		}
	}
	cur := a.p.plan
	same := cur.Intent == got.Intent && cur.Order == got.Order && strings.Join(cur.Measures, ",") == strings.Join(got.Measures, ",") &&
		cur.Per == got.Per && cur.Scale == got.Scale && (cur.Condition == nil) == (got.Condition == nil) && cur.Dataset == got.Dataset
	return !same
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

// densityAsk asks for a summed measure's density.
func (a *answerer) densityAsk(r attrRef) ask {
	at := a.m.attr(r)
	l := lowerLabel(labelOf(at))
	q := "What is the " + l + " density of these frames?"
	if isCountLabel(labelOf(at)) {
		q = "What is the density of " + l + " in these frames?"
	}
	return ask{q: q, intent: IntentDensity, refs: []attrRef{r}, per: PerKm2}
}

// densityRankAsk asks which frame is densest in a summed measure.
func (a *answerer) densityRankAsk(r attrRef) ask {
	at := a.m.attr(r)
	l := lowerLabel(labelOf(at))
	q := "Which frame has the highest " + l + " density?"
	if isCountLabel(labelOf(at)) {
		q = "Which frame has the highest density of " + l + "?"
	}
	return ask{q: q, intent: IntentRank, refs: []attrRef{r}, order: OrderHighest, per: PerKm2}
}

// ratioRankAsk asks which frame has the highest ratio of x to y.
func (a *answerer) ratioRankAsk(x, y attrRef) ask {
	q := "Which frame has the highest " + lowerLabel(labelOf(a.m.attr(x))) + " per " + perWhat(a.m.attr(y), 1) + "?"
	return ask{q: q, intent: IntentRank, refs: []attrRef{x, y}, order: OrderHighest, scale: 1}
}

// thresholdAsk asks how many frames have at least about the mean per
// frame of a summed measure (two significant digits), when it is known.
func (a *answerer) thresholdAsk(r attrRef) []ask {
	at := a.m.attr(r)
	sum, n := 0.0, 0
	for _, f := range a.known {
		if v, ok := f.Data[a.m.ds[r.d].ID].Attrs[at.Name]; ok {
			if x, ok := valueNumber(v); ok {
				sum += x
				n++
			}
		}
	}
	if n == 0 || !(sum > 0) {
		return nil
	}
	v := roundSignificant(sum/float64(n), 2)
	if v <= 0 {
		return nil
	}
	noun := countNoun(at, v)
	if isCountLabel(labelOf(at)) {
		noun = lowerLabel(labelOf(at))
	}
	return []ask{{q: "How many frames have at least " + FormatNumber(v) + " " + noun + "?", intent: IntentThreshold,
		refs: []attrRef{r}, op: OpGE}}
}

// gapAsk asks which frames record none of a count ("Which frames have no
// health facility?").
func (a *answerer) gapAsk(r attrRef) []ask {
	at := a.m.attr(r)
	if !isCountLabel(labelOf(at)) || !a.m.isSum(r) {
		return nil
	}
	return []ask{{q: "Which frames have no " + singularPhrase(lowerLabel(labelOf(at))) + "?", intent: IntentThreshold,
		refs: []attrRef{r}, op: OpNone}}
}

// shareAsk asks for the share of frames with the most common value of the
// settlement class (or of another category the frames record).
func (a *answerer) shareAsk() []ask {
	r, ok := a.m.byConcept[cSettlement]
	if !ok || kindOf(a.m.attr(r)) != kindMode {
		return nil
	}
	counts := map[string]int{}
	best := ""
	for _, f := range a.known {
		if v, ok := f.Data[a.m.ds[r.d].ID].Attrs[a.m.attr(r).Name]; ok {
			s := valueText(v)
			if s == "" || strings.ContainsAny(s, "?!.") {
				continue
			}
			counts[s]++
			if best == "" || counts[s] > counts[best] {
				best = s
			}
		}
	}
	if best == "" {
		return nil
	}
	return []ask{{q: "What share of frames are " + best + "?", intent: IntentShare, refs: []attrRef{r}, op: OpIs, base: BaseFrames}}
}

// roundSignificant rounds v to d significant digits.
func roundSignificant(v float64, d int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(d)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// nearestAsk asks for the nearest feature of a dataset of features.
func (a *answerer) nearestAsk(d int) ask {
	return ask{q: "Where is the nearest " + featureNoun(&a.m.ds[d]) + "?", intent: IntentNearest, dataset: a.m.ds[d].ID}
}
