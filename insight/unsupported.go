package insight

import "strings"

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
		a.details = append(a.details, a.modifiedDetail())
	case len(a.p.unknown) > 0:
		a.details = append(a.details, "No readable dataset records "+quoteWords(a.p.unknown)+".")
	}
	a.details = append(a.details, a.p.notes...)
	if len(a.known) > 0 {
		a.ins.FollowUps = a.followUps()
	}
}
