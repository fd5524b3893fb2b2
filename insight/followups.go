package insight

import "strings"

// maxFollowUps is how many follow-up questions an answer suggests (the
// issue asks for two to four).
const maxFollowUps = 3

// ask is a follow-up question and the plan it must parse to.
type ask struct {
	q      string
	intent string
	refs   []attrRef
	order  string
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
	if got.Intent != c.intent || got.Order != c.order || len(got.Measures) != len(c.refs) {
		return false
	}
	for i, r := range c.refs {
		if got.Measures[i] != a.m.measureID(r) {
			return false
		}
	}
	cur := a.p.plan
	same := cur.Intent == got.Intent && cur.Order == got.Order && strings.Join(cur.Measures, ",") == strings.Join(got.Measures, ",")
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
