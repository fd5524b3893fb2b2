package insight

import (
	"sort"
	"strconv"
	"strings"
)

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
	// subsetSubject is the subject of the figures of the frames a
	// condition selects (see condFigs).
	subsetSubject string
}

// answer is Answer.
func answer(req Request) Insight {
	m := requestMatcher(req)
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
		a.ins.Retrieval = a.retrieval()
		a.explainMatches()
		switch plan.Intent {
		case IntentFrames:
			a.profile()
		case IntentAttribute:
			a.attribute(a.compute(a.p.used[0].ref))
		case IntentRank:
			if a.p.metric.kind != metricPlain {
				a.rankMetric()
			} else {
				a.rank(a.compute(a.p.used[0].ref))
			}
		case IntentCompare:
			a.compare(a.compute(a.p.used[0].ref), a.compute(a.p.used[1].ref))
		case IntentDensity:
			a.density()
		case IntentRatio:
			a.ratio()
		case IntentThreshold:
			a.threshold()
		case IntentShare:
			a.share()
		case IntentNearest:
			a.nearest()
		}
		if a.ins.Confidence != ConfidenceUnknown {
			a.ins.FollowUps = a.followUps()
		}
	}
	if len(a.missing) > 0 {
		a.details = append(a.details, a.notFound())
	}
	a.idFigs()
	a.ins.Detail = strings.Join(a.details, " ")
	for i := range a.used {
		a.ins.Used = append(a.ins.Used, req.Datasets[i].ID)
	}
	sort.Strings(a.ins.Used)
	return a.ins
}

// retrieval says how the measures were found: "none" when every one was
// named, else "lexical", or "hybrid" when embeddings took part.
func (a *answerer) retrieval() string {
	loose := false
	for _, c := range a.p.used {
		loose = loose || !c.exact
	}
	if a.p.plan.Intent == IntentNearest {
		loose = a.p.nearLoose
	}
	switch {
	case !loose:
		return RetrievalNone
	case a.p.hybrid:
		return RetrievalHybrid
	}
	return RetrievalLexical
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

// citeUnrecorded lists the sources of measures no known frame records,
// after the answer's other sources (compute lists the recorded ones as it
// reads them).
func (a *answerer) citeUnrecorded(cs ...*calc) {
	for _, c := range cs {
		if c.records == 0 {
			a.source(c.ref)
		}
	}
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
	if len(a.p.modified) > 0 {
		a.details = append(a.details, a.modifiedDetail())
	}
	var left []string
	for _, c := range a.p.ignored {
		left = append(left, labelOf(a.m.attr(c.ref)))
	}
	a.details = append(a.details, a.p.notes...)
	switch a.p.plan.Intent {
	case IntentAttribute, IntentRank, IntentCompare:
	default:
		left = nil // the notes say it
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

// modifiedDetail names, for the detail, the qualifiers no readable dataset
// records ("density" of "population density"); a.p.modified is not empty.
func (a *answerer) modifiedDetail() string {
	mods := make([]string, len(a.p.modified))
	for i, c := range a.p.modified {
		mods[i] = strconv.Quote(c.modifier)
	}
	return "No readable dataset records " + joinAnd(mods, "or") + "."
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
