package insight

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"frameindex/plan"
)

// Intents of plans that today's intents do not name (see IntentOf).
const (
	IntentCount     = "frames_count"     // count of frames (meeting filters)
	IntentFarthest  = "frames_farthest"  // the frame farthest from any feature
	IntentCoverage  = "frames_coverage"  // people or frames within / beyond N km of a feature
	IntentFeatures  = "frames_features"  // features of a features dataset on the frames
	IntentBreakdown = "frames_breakdown" // figures by the values of a category measure
)

// IntentOf is the spec's intent for a plan: the aggregation's, or
// frames_breakdown for a grouped plan.
//
//	profile                 frames
//	total mean median min max  frames_attribute (with conditions: frames_threshold;
//	                        min, max with an order: frames_rank)
//	count                   frames_threshold with conditions or a place, frames_count without
//	share                   frames_share
//	ratio                   frames_ratio
//	density                 frames_density
//	rank                    frames_rank
//	compare                 frames_compare
//	nearest                 frames_nearest
//	farthest                frames_farthest
//	coverage                frames_coverage
//	featurecount            frames_features
//	unsupported             unsupported
func IntentOf(p *plan.Plan) string {
	if p.Group != nil && p.Agg != plan.AggUnsupported && p.Agg != plan.AggProfile {
		return IntentBreakdown
	}
	switch p.Agg {
	case plan.AggProfile:
		return IntentFrames
	case plan.AggMin, plan.AggMax:
		if p.Order != nil { // "which frame has the most ...": a ranking of one
			return IntentRank
		}
		return IntentAttribute
	case plan.AggTotal, plan.AggMean, plan.AggMedian:
		if len(p.Filters) > 0 { // the figure of the frames meeting conditions
			return IntentThreshold
		}
		return IntentAttribute
	case plan.AggCount:
		if len(p.Filters) > 0 || len(p.Places) > 0 {
			return IntentThreshold
		}
		return IntentCount
	case plan.AggShare:
		return IntentShare
	case plan.AggRatio:
		return IntentRatio
	case plan.AggDensity:
		return IntentDensity
	case plan.AggRank:
		return IntentRank
	case plan.AggCompare:
		return IntentCompare
	case plan.AggNearest:
		return IntentNearest
	case plan.AggFarthest:
		return IntentFarthest
	case plan.AggCoverage:
		return IntentCoverage
	case plan.AggFeatureCount:
		return IntentFeatures
	}
	return IntentUnsupported
}

// Result is the answer's primary figure unrounded, for programs (the HTTP
// answer's "result" member).
type Result struct {
	// Value is the primary figure (a share as 0..1, a distance in km);
	// nil when nothing could be computed.
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// Frames are the frame ids of a rank, min, max, nearest or farthest,
	// in order.
	Frames []string `json:"frames,omitempty"`
	// Groups are a breakdown's rows in the order shown.
	Groups []GroupValue `json:"groups,omitempty"`
}

// GroupValue is one row of a breakdown: the category value and its
// figure (nil when the group records none).
type GroupValue struct {
	Key    string   `json:"key"`
	Value  *float64 `json:"value,omitempty"`
	Frames int      `json:"frames"`
}

// Answer is Compute's answer: the spec's Insight (as Answer gives it), the
// unrounded Result, and the plan's reading in words.
type Answer struct {
	Insight
	Result Result
	// ReadAs is the plan in plain words ("read as: mean per frame of
	// population_2020 over 49 frames"); Unread the meaning-bearing words
	// no part of the plan read.
	ReadAs string
	Unread []string
}

// computer holds one Compute call's state.
type computer struct {
	p       *plan.Plan
	in      *Input
	ans     *Answer
	all     []int32 // frames with weight > 0
	details []string
	used    map[string]bool
	n       int       // frames asked about (weight > 0)
	dist    []float64 // nearest-feature distance per frame, NaN until searched
	subj    string    // the frames' subject when a place narrowed them
	placeOf string    // the place that narrowed them, and the frames asked
	asked   int
	inPlace map[int32]bool // a share's place as a condition
}

// Compute answers p over in. It reads nothing but its arguments, keeps
// nothing of them, never fails and never panics on a well-formed Input
// (columns as long as the frames). Figures are computed from the plan
// alone; the confidence is the plan's (see confidence) lowered by what the
// computation found (a named place outside the frames, a measure nobody
// may read).
func Compute(p *plan.Plan, in *Input) *Answer {
	c := &computer{p: p, in: in, ans: &Answer{}, used: map[string]bool{}}
	c.ans.Intent = IntentOf(p)
	c.ans.Register = p.Register
	if in.Register == RegisterPlain || in.Register == RegisterGIS {
		c.ans.Register = in.Register
	}
	if c.ans.Register == "" {
		c.ans.Register = RegisterPlain
	}
	c.ans.Retrieval = retrievalOf(p)
	if in.Format == "report" || (in.Format == "" && p.Format == "report") {
		c.ans.Format = "report"
	}
	c.ans.Confidence, c.ans.Unread = p.Confidence(), p.Unread()
	c.ans.ReadAs = p.Describe(c.frameCount())
	c.all = make([]int32, 0, len(in.Frames.IDs))
	for i := range in.Frames.IDs {
		if in.Frames.Weight == nil || in.Frames.Weight[i] > 0 {
			c.all = append(c.all, int32(i))
		}
	}
	c.n = len(c.all)
	if in.Frames.Len() <= maxFrameIDs {
		for _, id := range in.Frames.IDs {
			c.ans.FrameIDs = append(c.ans.FrameIDs, strconv.FormatUint(id, 10))
		}
	}
	c.run()
	c.finish()
	return c.ans
}

// maxFrameIDs is the most frame ids an answer lists (the spec's cap on a
// selection).
const maxFrameIDs = 50

// frameCount counts the frames for the plan's words.
func (c *computer) frameCount() int {
	if c.in.Frames.Weight == nil {
		return c.in.Frames.Len()
	}
	k := 0
	for _, w := range c.in.Frames.Weight {
		if w > 0 {
			k++
		}
	}
	return k
}

// run computes the answer's figures.
func (c *computer) run() {
	p := c.p
	if c.placesOutside() {
		return
	}
	switch {
	case p.Agg == plan.AggUnsupported || p.Agg == "":
		c.unsupported()
		return
	case c.n == 0:
		c.nothing()
		return
	}
	if p.Agg == plan.AggNearest && c.listFeatures() {
		return
	}
	if !c.columnsReadable() {
		return
	}
	if p.Agg == plan.AggProfile {
		c.profile()
		return
	}
	if p.Group != nil {
		c.breakdown(c.all)
		return
	}
	c.scalar(c.all)
}

// finish writes the detail, the confidence note and the sources used.
func (c *computer) finish() {
	a := c.ans
	var d []string
	// The plan's one confidence check (plan.Plan.Confidence) set the
	// confidence; its Detail names what made it less than exact.
	d = append(d, capitalize(a.ReadAs)+".")
	if pd := c.p.Detail(); pd != "" {
		d = append(d, pd)
	}
	if c.in.Frames.Weight != nil && a.Confidence != ConfidenceUnknown && c.p.Agg != plan.AggUnsupported {
		note := "Frames on the edge count by the part inside"
		if c.in.WeightNote != "" {
			note = "Frames on the edge count " + c.in.WeightNote
		}
		d = append(d, note+": summed measures are weighted by that fraction, means and shares the same way.")
	}
	d = append(d, c.details...)
	if len(c.in.Missing) > 0 {
		d = append(d, missingDetail(c.in.Missing))
	}
	a.Detail = strings.Join(d, " ")
	for id := range c.used {
		a.Used = append(a.Used, id)
	}
	sort.Strings(a.Used)
	if a.Confidence != ConfidenceUnknown && a.Headline != "" {
		a.FollowUps = followUpsOf(c.p)
	}
	for _, id := range a.FrameIDs {
		c.fig(id, "frame id", SubjectFrame(id), "Frame", FigureID)
	}
}

// missingDetail names ids that were not found.
func missingDetail(ids []string) string {
	more := ""
	shown := ids
	if len(shown) > 10 {
		more = " and " + fmtInt(len(ids)-10) + " more"
		shown = shown[:10]
	}
	q := make([]string, len(shown))
	for i, id := range shown {
		q[i] = strconv.Quote(id)
	}
	return plural(len(ids), "This id was", "These ids were") + " not found: " + strings.Join(q, ", ") + more + "."
}

// retrievalOf says how the measures were found: "none" when every one was
// named, "hybrid" when an embedding matched one, else "lexical".
func retrievalOf(p *plan.Plan) string {
	out := RetrievalNone
	for _, m := range p.Measures {
		switch {
		case m.Match == "embedding":
			return RetrievalHybrid
		case !m.Exact() && m.Match != "":
			out = RetrievalLexical
		}
	}
	return out
}

// lower marks the answer partial (never raising an unknown).
func (c *computer) lower() {
	if c.ans.Confidence == ConfidenceExact {
		c.ans.Confidence = ConfidencePartial
	}
}

// placesOutside answers, figure-less and partial, when a place the
// question names is not among the frames (or was not found at all).
func (c *computer) placesOutside() bool {
	var out, unknown []string
	for _, name := range c.p.Places {
		chk, ok := c.placeCheck(name)
		switch {
		case !ok || !chk.Found:
			unknown = append(unknown, name)
		case !chk.InFrames:
			out = append(out, name)
		case chk.Positions != nil && len(chk.Positions) < c.n:
			if c.p.Agg == plan.AggShare { // "share of frames in Niger": a condition
				c.placeMask(chk.Positions)
				continue
			}
			c.placeOf, c.asked = name, c.n
			c.restrict(chk.Positions)
			c.details = append(c.details, "The figures are of the "+fmtInt(c.n)+" of the frames in "+name+".")
			c.subj = "the " + fmtInt(c.n) + " " + plural(c.n, "frame", "frames") + " in " + name
		case chk.Frames > 0 && chk.Frames < c.n:
			c.lower()
			c.details = append(c.details, name+" covers "+fmtInt(chk.Frames)+" of the "+fmtInt(c.n)+
				" frames; the figures are of all of them.")
		}
	}
	if len(out)+len(unknown) == 0 {
		return false
	}
	c.lower()
	var parts []string
	if len(out) > 0 {
		parts = append(parts, joinAnd(out, "and")+" "+plural(len(out), "is", "are")+" not in the selection")
	}
	if len(unknown) > 0 {
		parts = append(parts, joinAnd(unknown, "and")+" "+plural(len(unknown), "is not a place", "are not places")+
			" in the readable boundary data, so "+plural(len(unknown), "it is", "they are")+" not in the selection")
	}
	c.ans.Headline = capitalize(strings.Join(parts, "; ")) + ", so the question was not answered about " + c.subjectLower() + "."
	if len(unknown) > 0 {
		c.details = append(c.details, "Places are the values of the readable datasets' states, local government areas and wards; "+
			"import a boundary dataset that names "+joinAnd(unknown, "or")+" (docs/data.md), or select its frames and ask without naming it.")
	}
	if len(out) > 0 {
		c.details = append(c.details, "Ask about the frames of the place itself, or select frames inside it.")
	}
	return true
}

// placeMask makes a place a condition: only its frames (positions) meet
// the plan's filters.
func (c *computer) placeMask(positions []int32) {
	if c.inPlace == nil {
		c.inPlace = map[int32]bool{}
		for _, p := range positions {
			c.inPlace[p] = true
		}
		return
	}
	keep := map[int32]bool{}
	for _, p := range positions {
		if c.inPlace[p] {
			keep[p] = true
		}
	}
	c.inPlace = keep
}

// restrict keeps, of the frames asked about, those at positions.
func (c *computer) restrict(positions []int32) {
	in := make(map[int32]bool, len(positions))
	for _, p := range positions {
		in[p] = true
	}
	kept := c.all[:0:0]
	for _, i := range c.all {
		if in[i] {
			kept = append(kept, i)
		}
	}
	c.all, c.n = kept, len(kept)
}

// placeCheck finds the caller's check of a named place.
func (c *computer) placeCheck(name string) (PlaceCheck, bool) {
	for _, pc := range c.in.Places {
		if strings.EqualFold(pc.Name, name) {
			return pc, true
		}
	}
	return PlaceCheck{}, false
}

// unsupported answers a plan that computes nothing.
func (c *computer) unsupported() {
	c.ans.Confidence = ConfidenceUnknown
	c.ans.Intent = IntentUnsupported
	c.ans.Headline = "This question could not be read into figures: ask for a total, a mean, a count of frames, a share, " +
		"a ratio, a density, the top frames, the nearest or farthest frame from a facility, or a profile of the frames."
	c.ans.FollowUps = []string{"Describe these frames", "What is the total population?", "How many frames have no health facility?"}
}

// nothing answers when there are no frames.
func (c *computer) nothing() {
	c.ans.Confidence = ConfidenceUnknown
	switch k := len(c.in.Missing); k {
	case 0:
		c.ans.Headline = "No frames were given, so nothing could be computed."
	case 1:
		c.ans.Headline = "Frame id " + c.in.Missing[0] + " was not found, so nothing could be computed."
	default:
		c.ans.Headline = "None of the " + fmtInt(k) + " frame ids was found, so nothing could be computed."
	}
}

// columnsReadable checks that every measure the plan names has a column.
func (c *computer) columnsReadable() bool {
	var missing []string
	check := func(m plan.Measure) {
		if m.Attribute == "" && m.Dataset == "" {
			return
		}
		if c.in.column(m) == nil {
			missing = append(missing, measureName(m))
		}
	}
	for _, m := range c.p.Measures {
		check(m)
	}
	for _, f := range c.p.Filters {
		check(f.Measure)
		if f.Of != nil {
			check(*f.Of)
		}
	}
	if c.p.Group != nil {
		check(c.p.Group.Measure)
	}
	if d := c.p.Distance; d != nil && d.Feature != "" && c.in.Near[d.Feature] == nil &&
		(c.p.Agg == plan.AggNearest || c.p.Agg == plan.AggFarthest || c.p.Agg == plan.AggCoverage) {
		missing = append(missing, d.Feature)
	}
	if len(missing) == 0 {
		return true
	}
	c.ans.Confidence = ConfidenceUnknown
	c.ans.Headline = "No readable dataset holds " + joinAnd(missing, "or") + ", so nothing could be computed."
	return false
}

// measureName is how a detail names a measure.
func measureName(m plan.Measure) string {
	if m.Attribute == "" {
		return m.Dataset
	}
	return m.Attribute
}

// subject is the frames in a sentence's subject: "The 49 selected frames".
func (c *computer) subject() string {
	if c.subj != "" {
		return capitalize(c.subj)
	}
	if c.in.Subject != "" {
		return capitalize(c.in.Subject)
	}
	if c.n == 1 && c.in.Frames.Len() == 1 {
		return "Frame " + strconv.FormatUint(c.in.Frames.IDs[0], 10)
	}
	return "The " + fmtInt(c.n) + " selected frames"
}

// subjectLower is subject inside a sentence.
func (c *computer) subjectLower() string {
	s := c.subject()
	if strings.HasPrefix(s, "The ") {
		return "the " + s[4:]
	}
	return s
}

// fig records a number the answer shows, for the wording check.
func (c *computer) fig(text, unit, subject, label, kind string) {
	if text == "" || text == "n/a" {
		return
	}
	c.ans.Figures = append(c.ans.Figures, Figure{Text: text, Unit: unit, Subject: subject, Label: label, Kind: kind})
}

// facet adds a facet and its figure.
func (c *computer) facet(label, text, unit, subject, kind string) {
	c.ans.Facets = append(c.ans.Facets, Facet{Label: label, Value: text})
	c.fig(strings.TrimSpace(strings.SplitN(text, " ", 2)[0]), unit, subject, label, kind)
}

// source cites a column.
func (c *computer) source(col *Column) {
	for _, s := range c.ans.Sources {
		if s.LayerID == col.Dataset && s.Attribute == col.Attr.Name {
			return
		}
	}
	name := col.DatasetName
	if name == "" {
		if d := c.in.dataset(col.Dataset); d != nil {
			name = datasetName(d)
		} else {
			name = col.Dataset
		}
	}
	s := Source{LayerID: col.Dataset, LayerName: name}
	if col.Attr.Name != "" {
		s.Attribute, s.Label = col.Attr.Name, labelOf(&col.Attr)
	}
	c.ans.Sources = append(c.ans.Sources, s)
}

// setValue sets the unrounded primary figure.
func (c *computer) setValue(v float64, unit string) {
	if math.IsNaN(v) {
		return
	}
	if math.IsInf(v, 0) {
		return
	}
	c.ans.Result.Value = &v
	c.ans.Result.Unit = unit
}

// frameID is frame i's id as text.
func (c *computer) frameID(i int32) string { return strconv.FormatUint(c.in.Frames.IDs[i], 10) }

// followUpsOf are questions the plan's reading suggests next, each one a
// plain question the parser reads in full.
func followUpsOf(p *plan.Plan) []string {
	var out []string
	add := func(q string) {
		if !slices.Contains(out, q) && len(out) < 3 {
			out = append(out, q)
		}
	}
	m := ""
	if len(p.Measures) > 0 && p.Measures[0].Attribute != "" {
		m = strings.ReplaceAll(p.Measures[0].Attribute, "_", " ")
	}
	switch p.Agg {
	case plan.AggTotal, plan.AggMean, plan.AggMedian:
		if m != "" {
			add("Which 5 frames have the highest " + m + "?")
			add("What is the median " + m + " per frame?")
		}
	case plan.AggNearest:
		if p.Distance != nil {
			add("Which frame is farthest from " + p.Distance.Feature + "?")
		}
	case plan.AggFarthest:
		if p.Distance != nil {
			add("How many people live more than 5 km from " + p.Distance.Feature + "?")
		}
	}
	add("Describe these frames")
	return out
}
