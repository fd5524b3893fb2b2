package narrate

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Verdict is the outcome of Verify.
type Verdict struct {
	// OK is true when the wording may be kept.
	OK bool
	// Reason says what failed, for the log: the number, ordinal or place
	// as the wording wrote it and what it disagrees with, or the missing
	// report structure. It never holds the question and is empty when OK.
	Reason string
	// Kind is the kind of failure (a Fail constant), "" when OK.
	Kind string
}

// Kinds of failure, for the log.
const (
	FailNumber  = "wrong number"         // no figure has that number (or rounds to it)
	FailUnit    = "wrong unit"           // figures have it, none in the unit or noun written
	FailSubject = "wrong subject"        // figures in that unit have it, none of what it is said of
	FailNames   = "wrong count of names" // states, LGAs or wards counted otherwise than the answer names them
	FailOrdinal = "ordinal"              // an ordinal beyond the frames or rows
	FailHedge   = "hedge"                // over, under, almost, at least... point the wrong way
	FailPlace   = "place"                // a known place the figures do not hold
	FailReport  = "report"               // a report without "## " titles or "- " items
	FailEmpty   = "empty"                // nothing written
)

// Verify checks wording against the figures it was written from. It is
// safe for concurrent use, never panics and keeps nothing of its inputs.
// One failure fails the whole wording; the Reason and Kind name the first.
//
// The wording is read into claims (ReadClaims): each number with the noun
// or unit it counts, the hedge before it, and the frames, places or
// category values its clause says it is of. A claim is accepted only when
// one figure of f.List agrees on all of these:
//   - the number (FailNumber): equal to the figure (sign aside: "fell by
//     3.5" for -3.5), or the figure rounded half away from zero to the
//     place the claim shows (Number.Decimals): "about 12,000", "12k" and
//     "twelve thousand" for 12,345; "12.3" for 12.345; "67%" for 66.67%.
//     A percentage matches only percentages, anything else only the rest.
//     A figure under 10 must be written exactly unless hedged ("about 1"
//     for 0.75, never "1"); "exactly" forbids rounding. A year as written
//     ("2020") and a frame id are never rounded. Sums, differences and
//     averages that are not figures fail;
//   - the unit (FailUnit): a claim read with a unit ("4 LGAs", "10,679
//     km²", "567 people per km²", "45% of the population") must state a
//     figure in that unit or one its word stands for (cells and polygons
//     for frames, clinics for health facilities, "an area of" for km² or
//     ha). A claim without a recognisable unit, or a figure whose unit is
//     unknown, is checked on its number alone. A digit inside a name
//     ("Primary Health Centre 6") may be written only without a unit;
//   - the subject (FailSubject): a number said of frames (named in its
//     clause, "(frame 1)" after it, or the "## " heading above) must be a
//     figure of one of them, or of the selection when those frames are the
//     whole selection; said of places or category values, it must not be
//     a figure of another one. Counts of frames, ids, conditions and
//     national counts have no subject to disagree with;
//   - the hedge (FailHedge): over, more than, above mean the figure is
//     larger; at least, "or more", "10k+" not smaller; under, less than
//     smaller; almost, nearly, at most, up to not larger. A condition the
//     question set ("at least 5,000 people") keeps its own hedge.
//
// Counts of states, LGAs and wards (FailNames) must equal the number of
// names the answer's facet holds (a figure of kind names), hedges aside;
// the X of "X of the Y LGAs" is a part. An ordinal (FailOrdinal: "the
// sixth frame", "ranks third", "5th") may not exceed the selected frames
// when it ranks frames, else the frames, table rows and ids, when f.Frames
// is known. "one" before a singular noun ("one frame covers 0.86 km²") is
// read as "a", not as a count, unless "only", "just" or "exactly" precede
// it or it counts states, LGAs or wards.
//
// Every name of KnownPlaces found in the wording must lie within a name of
// Places found there (FailPlace). Names match as whole words, ignoring case
// and punctuation between words ("Ado-Ekiti" and "Ado Ekiti" are one
// name), but only where the wording starts the name with a capital letter,
// since place names are proper nouns ("central" is no ward; "Central" may
// be). "Kano" inside an allowed "Kano Municipal" passes; digits inside an
// allowed name ("Lagos Island Ward 6") are not figures.
//
// With report set, the wording must have at least one line starting "## "
// (a section title) and at least one line starting "- " (an item), leading
// spaces aside (FailReport). Empty wording fails (FailEmpty).
func Verify(wording string, f Figures, report bool) Verdict {
	if strings.TrimSpace(wording) == "" {
		return Verdict{Reason: "wording is empty", Kind: FailEmpty}
	}
	if report {
		title, item := false, false
		for line := range strings.Lines(wording) {
			line = strings.TrimLeft(line, " \t")
			title = title || strings.HasPrefix(line, "## ")
			item = item || strings.HasPrefix(line, "- ")
		}
		if !title {
			return Verdict{Reason: `report has no "## " section title`, Kind: FailReport}
		}
		if !item {
			return Verdict{Reason: `report has no "- " list item`, Kind: FailReport}
		}
	}
	v := newVerifier(f)
	claims, ords := readClaims(wording, v.cx)
	for i := range claims {
		if kind, reason := v.check(wording, &claims[i]); kind != "" {
			return Verdict{Reason: reason, Kind: kind}
		}
	}
	for _, o := range ords {
		if reason := v.checkOrdinal(o); reason != "" {
			return Verdict{Reason: reason, Kind: FailOrdinal}
		}
	}
	if name := f.strayPlace(wording); name != "" {
		return Verdict{Reason: "place " + strconv.Quote(name) + " is not in the figures", Kind: FailPlace}
	}
	return Verdict{OK: true}
}

// verifier holds the figures of one Verify call, sorted by magnitude.
type verifier struct {
	f      Figures
	list   []Figure
	order  []int     // indexes into list, by |Value|
	mags   []float64 // |Value| in that order
	cx     *readContext
	ids    int // distinct frame ids among the figures
	frames int // selected frames (0: unknown)
}

func newVerifier(f Figures) *verifier {
	v := &verifier{f: f, list: f.List, frames: f.Frames}
	if len(v.list) == 0 {
		// Figures built by hand: numbers of unknown unit.
		for _, x := range f.Numbers {
			v.list = append(v.list, Figure{Value: x, Unit: legacyUnit(f.Units[math.Abs(x)])})
		}
		for _, x := range f.Percents {
			v.list = append(v.list, Figure{Value: x, Percent: true})
		}
	}
	v.order = make([]int, len(v.list))
	for i := range v.order {
		v.order[i] = i
	}
	sort.Slice(v.order, func(a, b int) bool { return math.Abs(v.list[v.order[a]].Value) < math.Abs(v.list[v.order[b]].Value) })
	v.mags = make([]float64, len(v.order))
	for i, k := range v.order {
		v.mags[i] = math.Abs(v.list[k].Value)
	}
	v.cx = Figures{Places: f.Places, Values: f.Values, List: v.list}.context()
	v.ids = len(v.cx.ids)
	return v
}

// legacyUnit is the unit of a figure known only by the units of length and
// area it is shown with: the one unit, or unknown.
func legacyUnit(us []string) string {
	if len(us) == 1 {
		return us[0]
	}
	return ""
}

// check checks one claim; it returns the kind of failure and a reason, or
// "" when some figure agrees.
func (v *verifier) check(s string, c *Claim) (string, string) {
	if v.indefinite(s, c) {
		return "", ""
	}
	q := strconv.Quote(c.Text)
	if !c.Part && (c.Unit == uStates || c.Unit == uLGAs || c.Unit == uWards) {
		if n, ok := v.namesCount(c.Unit); ok {
			if namesAgree(n, c) {
				return "", ""
			}
			return FailNames, q + " " + unitText(c.Unit) + ": the answer names " + strconv.Itoa(n)
		}
	}
	stage := 0 // how far the best figure got: 1 number, 2 unit, 3 subject, 4 hedge
	var near *Figure
	lo, hi := v.window(c)
	for k := lo; k < hi; k++ {
		g := &v.list[v.order[k]]
		if !numberAgrees(c, g) {
			continue
		}
		st := 1
		if kindAgrees(c, g) && unitsAgree(c.Unit, g.Unit) {
			st = 2
			if v.subjectAgrees(c, g) {
				st = 3
				if hedgeAgrees(c, g) {
					return "", ""
				}
			}
		}
		if st > stage {
			stage, near = st, g
		}
	}
	switch stage {
	case 0:
		return FailNumber, reasonFor(c.Number)
	case 1:
		return FailUnit, "number " + q + " is written as " + unitText(c.Unit) + "; its figure is " + describe(near)
	case 2:
		return FailSubject, "number " + q + " is said of " + subjectWords(c) + "; its figure is of " + figSubject(near)
	}
	return FailHedge, "number " + q + " is hedged " + strconv.Quote(c.Hedge) + "; its figure is " + near.Text
}

// window is the range of v.order whose figures may state c.
func (v *verifier) window(c *Claim) (int, int) {
	cv := math.Abs(c.Value)
	switch {
	case math.IsNaN(cv):
		return 0, 0
	case math.IsInf(cv, 0):
		return sort.SearchFloat64s(v.mags, cv), len(v.mags)
	}
	half := 0.5 * math.Pow10(-max(min(c.Decimals, 340), -340))
	if c.Hedge != HedgeNone && c.Hedge != HedgeAbout && c.Hedge != HedgeExactly {
		half *= 2 // a bound: a whole step on one side
	}
	tol := half*(1+1e-9) + 1e-9*math.Max(1, cv)
	if math.IsInf(tol, 0) || math.IsNaN(tol) {
		return 0, len(v.mags)
	}
	lo := sort.SearchFloat64s(v.mags, cv-tol)
	hi := sort.SearchFloat64s(v.mags, math.Nextafter(cv+tol, math.Inf(1)))
	return lo, hi
}

// indefinite reports "one" read as "a": "one frame covers 0.86 km²".
func (v *verifier) indefinite(s string, c *Claim) bool {
	if c.Value != 1 || c.Hedge != HedgeNone || c.Role != "" || !strings.EqualFold(c.Text, "one") {
		return false
	}
	switch c.Unit {
	case uStates, uLGAs, uWards:
		return false
	}
	rest := strings.TrimLeft(s[c.End:], " ")
	w := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }); i >= 0 {
		w = rest[:i]
	}
	if w == "" || !isSingularPhrase(strings.ToLower(w)) {
		return false
	}
	before := strings.ToLower(strings.TrimRight(s[:c.Start], " "))
	for _, x := range []string{"only", "just", "exactly", "single", "solely", "but"} {
		if strings.HasSuffix(before, x) {
			return false
		}
	}
	return true
}

// namesCount is how many names of a level (uStates, uLGAs, uWards) the
// answer holds, when a figure says.
func (v *verifier) namesCount(unit string) (int, bool) {
	for _, g := range v.list {
		if g.Kind == KindNames && g.Unit == unit {
			return int(g.Value), true
		}
	}
	return 0, false
}

// namesAgree reports whether a count of names states n, hedge included.
func namesAgree(n int, c *Claim) bool {
	x := float64(n)
	switch c.Hedge {
	case HedgeOver:
		return x > c.Value
	case HedgeAtLeast:
		return x >= c.Value
	case HedgeUnder:
		return x < c.Value
	case HedgeAlmost, HedgeAtMost:
		return x <= c.Value
	}
	return x == c.Value
}

// numberAgrees reports whether the claim's number states figure g.
func numberAgrees(c *Claim, g *Figure) bool {
	if c.Percent != g.Percent {
		return false
	}
	cv, gv := math.Abs(c.Value), math.Abs(g.Value)
	if cv == gv {
		return true
	}
	if c.Role == RoleYear || c.Role == RoleID || g.Kind == KindID || g.Kind == KindYear || c.Hedge == HedgeExactly {
		return false
	}
	if gv < 10 && c.Hedge == HedgeNone {
		return false // a small figure is written exactly unless hedged
	}
	if isYearText(c.Text) || math.IsInf(cv, 0) || math.IsNaN(cv) {
		return false
	}
	p := c.Decimals
	if p > 340 || p < -340 {
		return false
	}
	scale := math.Pow10(p)
	want := cv * scale
	if math.IsInf(want, 0) || want > 1<<53 || (cv != 0 && want == 0) {
		return false
	}
	want = math.Round(want)
	x := gv * scale
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	// Half away from zero, forgiving the binary error of figures such as
	// 12.345 (stored as 12.34499…).
	eps := 1e-9 * math.Max(1, x)
	// A bound is a number like any other: the figure, or the figure
	// rounded to the nearest at the precision shown ("more than 86,000"
	// for 85,996 passes; "more than 86,000" for 86,556 and "fewer than
	// 1,300,000" for 1,234,567 state a number the server did not compute,
	// rounded past the figure, and fail). The hedge check then says
	// whether it points the right way.
	return math.Floor(x+0.5+eps) == want
}

// kindAgrees keeps ids, names' digits, ranks and coordinates to claims
// that may state them.
func kindAgrees(c *Claim, g *Figure) bool {
	if c.Role == RoleID {
		return g.Kind == KindID || g.Unit == "" || g.Unit == uID
	}
	if c.Role == RoleYear {
		return true
	}
	switch g.Kind {
	case KindID:
		return c.Unit == "" || c.Unit == uID
	case KindName:
		return c.Unit == ""
	case KindCoordinate:
		return c.Unit == "" || c.Unit == uDegrees
	case KindRank:
		return c.Unit == "" || c.Unit == uRank
	}
	return true
}

// subjectAgrees reports whether figure g is of what claim c is said of.
func (v *verifier) subjectAgrees(c *Claim, g *Figure) bool {
	// "3 of the 4 frames" counts some of them: not the whole selection.
	if c.Part && g.Kind == KindCount && (c.Unit == uFrames || c.Unit == "" || classOf[c.Unit][uFrames]) {
		return false
	}
	if c.Selection && len(c.Frames) == 0 && len(c.Names) == 0 {
		switch g.Kind {
		case KindCount, KindPart, KindNames, KindCondition, KindScale, KindID, KindYear, KindCoordinate, KindName:
			return true
		}
		// Said of the whole selection: not one frame's figure, unless the
		// selection is that frame.
		return !strings.HasPrefix(g.Subject, "frame ") || v.frames == 1 || v.frames == 0
	}
	if len(c.Frames) == 0 && len(c.Names) == 0 {
		return true
	}
	// "Rural frames are 8 of 12": the frames of one value are not
	// another's.
	if g.Kind == KindPart && len(c.Frames) == 0 {
		if name, ok := strings.CutPrefix(g.Subject, "value "); ok {
			for _, x := range c.Names {
				if strings.EqualFold(x, name) {
					return true
				}
			}
			return false
		}
	}
	switch g.Kind {
	case KindCount, KindPart, KindNames, KindCondition, KindScale, KindID, KindYear, KindCoordinate, KindName:
		return true
	}
	if c.Role != "" || g.Subject == "dataset" || g.Unit == uFrames || g.Unit == uID {
		return true
	}
	if len(c.Frames) > 0 {
		if g.Unit == "%"+uFrames {
			return true // a share of frames is of several frames, never of one
		}
		if id, ok := strings.CutPrefix(g.Subject, "frame "); ok {
			for _, x := range c.Frames {
				if x == id {
					return true
				}
			}
			return false
		}
		if g.Subject == "" {
			// The selection's figure said of frames: only when they are
			// the whole selection. Figures read from texts alone (no
			// frame count) may be of anything.
			return v.frames == 0 || len(c.Frames) >= v.frames
		}
		return false
	}
	if name, ok := strings.CutPrefix(g.Subject, "value "); ok {
		for _, x := range c.Names {
			if strings.EqualFold(x, name) {
				return true
			}
		}
		return false
	}
	return true
}

// hedgeAgrees reports whether the claim's hedge points the right way from
// the figure.
func hedgeAgrees(c *Claim, g *Figure) bool {
	switch g.Kind {
	case KindCondition, KindScale, KindID, KindYear, KindRank, KindCoordinate, KindName:
		return true
	}
	if c.Role != "" {
		return true
	}
	cv, gv := math.Abs(c.Value), math.Abs(g.Value)
	switch c.Hedge {
	case HedgeOver:
		return gv > cv
	case HedgeAtLeast:
		return gv >= cv
	case HedgeUnder:
		return gv < cv
	case HedgeAlmost, HedgeAtMost:
		return gv <= cv
	}
	return true
}

// checkOrdinal returns why an ordinal exceeds what it ranks, or "".
func (v *verifier) checkOrdinal(o Ordinal) string {
	if v.frames <= 0 || o.Value <= 1 {
		return ""
	}
	limit := v.frames
	what := "frames"
	if !o.Frame {
		limit = max(v.frames, v.f.Rows, v.ids)
		what = "frames, rows and ids"
	}
	if o.Value > limit {
		return "ordinal " + strconv.Quote(o.Text) + " exceeds the " + strconv.Itoa(limit) + " " + what
	}
	return ""
}

// reasonFor says why n matches no figure.
func reasonFor(n Number) string {
	q := strconv.Quote(n.Text)
	switch {
	case n.Percent:
		return "percentage " + q + " matches no percentage figure"
	case isYearText(n.Text):
		return "year " + q + " is not in the figures"
	}
	return "number " + q + " matches no figure"
}

// unitWords says a canonical unit for a reason.
func unitText(u string) string {
	switch u {
	case "":
		return "a bare number"
	case uLGAs:
		return "local government areas"
	case "km2":
		return "km²"
	}
	return strings.NewReplacer("/", " per ", "~", "", "km2", "km²", "?", "").Replace(u)
}

// describe says what a figure is, for a reason.
func describe(g *Figure) string {
	s := g.Text
	if g.Unit != "" {
		s += " " + unitText(g.Unit)
	}
	if g.Label != "" {
		s += " (" + g.Label + ")"
	}
	return s
}

// figSubject says what a figure is of, for a reason.
func figSubject(g *Figure) string {
	switch g.Subject {
	case "":
		return "the selection"
	case "subset":
		return "the frames meeting the condition"
	}
	return g.Subject
}

// subjectWords says what a claim is said of, for a reason.
func subjectWords(c *Claim) string {
	if len(c.Frames) > 0 {
		return "frame " + strings.Join(c.Frames, ", ")
	}
	return strings.Join(c.Names, ", ")
}
