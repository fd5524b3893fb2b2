package insight

import "strings"

// Operators: the wording of thresholds, gaps, densities, ratios, shares
// and nearest searches. scanOps finds them among the words no measure
// took and marks the words it used, so that "at least" never reads as the
// ranking word "least" and "5,000" is never an unread number.

// comparison is a threshold's wording and its operator.
type comparison struct {
	words []string
	op    string
}

// prefixComparisons come before their number ("at least 5,000"), longest
// first; postfixComparisons after it ("5,000 or more").
var (
	prefixComparisons = comparisons(
		"no less than", OpGE, "not less than", OpGE, "no fewer than", OpGE, "not fewer than", OpGE,
		"no more than", OpLE, "not more than", OpLE, "no greater than", OpLE, "not greater than", OpLE,
		"no higher than", OpLE, "no lower than", OpGE,
		"a minimum of", OpGE, "a maximum of", OpLE, "in excess of", OpGT, "upwards of", OpGT, "upward of", OpGT,
		"at least", OpGE, "at most", OpLE, "minimum of", OpGE, "maximum of", OpLE, "up to", OpLE,
		"more than", OpGT, "greater than", OpGT, "higher than", OpGT, "bigger than", OpGT, "larger than", OpGT,
		"less than", OpLT, "fewer than", OpLT, "lower than", OpLT, "smaller than", OpLT,
		"equal to", OpEq, "exactly", OpEq, "equals", OpEq, "equalling", OpEq,
		"over", OpGT, "above", OpGT, "exceeding", OpGT, "exceeds", OpGT, "exceed", OpGT, "beyond", OpGT,
		"under", OpLT, "below", OpLT, "beneath", OpLT,
		"min", OpGE, "max", OpLE,
	)
	postfixComparisons = comparisons(
		"or more", OpGE, "or above", OpGE, "and above", OpGE, "or over", OpGE, "and over", OpGE,
		"or greater", OpGE, "or higher", OpGE, "plus", OpGE, "and up", OpGE,
		"or less", OpLE, "or fewer", OpLE, "or below", OpLE, "and below", OpLE, "or under", OpLE,
		"and under", OpLE, "or lower", OpLE,
	)
)

func comparisons(pairs ...string) []comparison {
	out := make([]comparison, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, comparison{words: strings.Fields(pairs[i]), op: pairs[i+1]})
	}
	return out
}

// Words of the operators. They never make a question unanswerable.
var (
	densityWords = set("density", "densities", "dense", "densely", "denser", "densest", "sparse", "sparsely",
		"sparser", "sparsest")
	nearestWords = set("nearest", "closest", "proximity", "distance", "distances", "far", "farthest", "furthest")
	shareWords   = set("share", "percentage", "percent", "proportion", "fraction", "pct")
	gapWords     = set("without", "lacking", "lack", "lacks", "zero", "missing")
	negHave      = set("not", "dont", "doesnt", "didnt", "never", "nothing", "havent", "hasnt", "cannot", "cant")
	haveWords    = set("have", "has", "had", "having", "contain", "contains", "record", "records", "with", "hold", "holds")
	articles     = set("a", "an", "any", "the", "some", "single", "one")
	personWords  = set("capita", "person", "head", "individual", "inhabitant", "resident", "citizen", "human")
	perWords     = set("per", "each", "every")
	frameNouns   = set("frame", "area", "cell", "place", "location", "tile", "square", "site", "spot", "zone",
		"polygon", "pixel", "grid")
	areaUnits = map[string]string{"km2": PerKm2, "km": PerKm2, "sqkm": PerKm2, "kilometre": PerKm2,
		"kilometer": PerKm2, "hectare": PerHectare, "ha": PerHectare}
	// opWords are every word above that the unknown-word check must
	// accept.
	opWords = set("density", "densities", "dense", "densely", "denser", "densest", "sparse", "sparsely",
		"sparser", "sparsest", "nearest", "closest", "proximity", "distance", "distances", "far", "farthest",
		"furthest", "without", "lacking", "lack", "lacks", "zero", "missing", "none", "than", "above", "below",
		"beneath", "exceeding", "exceeds", "exceed", "excess", "beyond", "exactly", "equal", "equals",
		"equalling", "minimum", "maximum", "min", "max", "upwards", "upward", "plus", "hundred", "thousand",
		"million", "mn", "k", "km2", "sqkm", "sq", "hectare", "ha", "kilometre", "kilometer", "dont",
		"doesnt", "didnt", "havent", "hasnt", "cannot", "cant", "nothing", "ratio", "ratios", "pct",
		"serve", "serves", "served", "serving", "percent", "unit", "range", "capita", "inhabitant",
		"citizen", "non", "least", "most", "atleast")
)

// comparator is a threshold found in the words: op and values, over the
// words [start, end); num is the index of the (first) number.
type comparator struct {
	op         string
	v1, v2     float64
	start, end int
	num        int
}

// gap is wording that asks for frames recording none of something
// ("without a hospital", "no clinics"): the measure is expected from
// index at.
type gap struct{ start, at int }

// scan is what scanOps found.
type scan struct {
	used        []bool // words an operator used
	comps       []comparator
	gaps        []gap
	density     bool
	densityAt   int    // first density word or unit, -1 when none
	densityAll  []int  // every density word or unit
	unit        string // the area unit the question named, "" when none
	perPerson   []int  // indexes of "per capita", "per person" ... (start of the phrase)
	perPersonTo []int  // the index after each such phrase
	nearest     bool
	count       int // nearest N
	share       bool
	shareAt     int
	ratio       bool // the word "ratio"
	howMany     bool // "how many frames", "number of frames"
	whichFrames bool // "which frames", "list the frames"
	some        bool // "how many frames have X"
	negations   []int
	sparse      bool // "sparsest", "least dense": the low end of a density
	years       []int
	unread      []int // numbers nothing read (indexes)
	words       []string
}

// raw is the word at index i.
func (sc *scan) raw(i int) string {
	if i < 0 || i >= len(sc.words) {
		return ""
	}
	return sc.words[i]
}

// scanOps reads the operators among toks; taken marks the words measures
// (or values) already took, which operators never use. It never fails.
func scanOps(toks []token, taken []bool) scan {
	n := len(toks)
	sc := scan{used: make([]bool, n), densityAt: -1, shareAt: -1, words: make([]string, n)}
	for i, t := range toks {
		sc.words[i] = t.raw
	}
	free := func(i int) bool { return i >= 0 && i < n && !taken[i] && !sc.used[i] }
	raw := func(i int) string {
		if i < 0 || i >= n {
			return ""
		}
		return toks[i].raw
	}
	phraseFree := func(i int, ws []string) bool {
		if i+len(ws) > n {
			return false
		}
		for k, w := range ws {
			if !free(i+k) || toks[i+k].raw != w {
				return false
			}
		}
		return true
	}
	mark := func(i, j int) {
		for k := i; k < j && k < n; k++ {
			sc.used[k] = true
		}
	}

	// Comparisons, prefix and postfix, and ranges.
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		// between N and M, from N to M
		if w := raw(i); w == "between" || w == "from" || w == "range" {
			j := i + 1
			for j < n && (raw(j) == "of" || raw(j) == "the") {
				j++
			}
			if a, k, ok := numberAt(toks, j); ok {
				link := k
				if raw(link) == "and" || raw(link) == "to" || raw(link) == "through" {
					link++
				}
				if b, e, ok := numberAt(toks, link); ok && (link > k || w == "between") {
					if b < a {
						a, b = b, a
					}
					sc.comps = append(sc.comps, comparator{op: OpBetween, v1: a, v2: b, start: i, end: e, num: j})
					mark(i, e)
					i = e - 1
					continue
				}
			}
		}
		matched := false
		for _, c := range prefixComparisons {
			if !phraseFree(i, c.words) {
				continue
			}
			j := i + len(c.words)
			if raw(j) == "of" && (c.op == OpGE || c.op == OpLE) {
				j++
			}
			v, e, ok := numberAt(toks, j)
			if !ok {
				continue
			}
			cmp := comparator{op: c.op, v1: v, start: i, end: e, num: j}
			// "over 5,000 to 10,000": a range after all
			if raw(e) == "to" || raw(e) == "and" {
				if b, e2, ok := numberAt(toks, e+1); ok && b > v && c.op != OpEq {
					cmp = comparator{op: OpBetween, v1: v, v2: b, start: i, end: e2, num: j}
				}
			}
			sc.comps = append(sc.comps, cmp)
			mark(cmp.start, cmp.end)
			i, matched = cmp.end-1, true
			break
		}
		if matched || !free(i) {
			continue
		}
		// N or more; N to M
		if v, e, ok := numberAt(toks, i); ok {
			for _, c := range postfixComparisons {
				if phraseFree(e, c.words) {
					end := e + len(c.words)
					sc.comps = append(sc.comps, comparator{op: c.op, v1: v, start: i, end: end, num: i})
					mark(i, end)
					i, matched = end-1, true
					break
				}
			}
			if !matched && raw(e) == "to" && isNumberToken(raw(i)) {
				if b, e2, ok := numberAt(toks, e+1); ok && b > v {
					sc.comps = append(sc.comps, comparator{op: OpBetween, v1: v, v2: b, start: i, end: e2, num: i})
					mark(i, e2)
					i = e2 - 1
				}
			}
		}
	}

	// Area units: per km2, per square kilometre, sq km, per hectare.
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		j := i
		per := perWords[raw(j)] || raw(j) == "a"
		if per {
			j++
		}
		sq := raw(j) == "square" || raw(j) == "sq"
		if sq {
			j++
		}
		if j >= n || !free(j) {
			continue
		}
		u, ok := areaUnits[toks[j].sing]
		// "km" alone is a distance; it is an area after "per" or "square"
		// ("per km²" reads as "per km"), or as "km2" or "km 2".
		if !ok || (toks[j].sing == "km" && !per && !sq && raw(j+1) != "2") || (raw(i) == "a" && !sq && u == PerKm2) {
			continue
		}
		if raw(j) == "km" && raw(j+1) == "2" {
			j++
		}
		sc.density = true
		if sc.densityAt < 0 {
			sc.densityAt = i
		}
		sc.densityAll = append(sc.densityAll, i)
		if sc.unit == "" {
			sc.unit = u
		}
		mark(i, j+1)
	}
	for i := 0; i+1 < n; i++ {
		if free(i) && raw(i) == "per" && (raw(i+1) == "area" || (raw(i+1) == "unit" && raw(i+2) == "area")) {
			end := i + 2
			if raw(i+1) == "unit" {
				end++
			}
			sc.density = true
			if sc.densityAt < 0 {
				sc.densityAt = i
			}
			sc.densityAll = append(sc.densityAll, i)
			mark(i, end)
		}
	}
	for i := 0; i < n; i++ {
		if free(i) && densityWords[raw(i)] {
			sc.density = true
			if sc.densityAt < 0 {
				sc.densityAt = i
			}
			sc.densityAll = append(sc.densityAll, i)
			switch raw(i) {
			case "sparse", "sparsely", "sparser", "sparsest":
				sc.sparse = true
			}
			if raw(i-1) == "least" || raw(i-1) == "lowest" {
				sc.sparse = true
			}
			sc.used[i] = true
		}
	}

	// per capita, per person, for each person, per 1,000 people: a
	// population named without a measure's name. "per resident" is left
	// to the ratio of two measures (resident names the measure).
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		j := i
		if raw(j) == "for" {
			j++
			if raw(j) != "each" && raw(j) != "every" {
				continue
			}
		} else if !perWords[raw(j)] {
			continue
		}
		k := j + 1
		if _, e, ok := numberAt(toks, k); ok {
			k = e
		}
		if k < n && free(k) && personWords[toks[k].sing] {
			sc.perPerson = append(sc.perPerson, i)
			sc.perPersonTo = append(sc.perPersonTo, k+1)
			mark(i, k+1)
		}
	}

	// Gaps: without a hospital, no clinics, lacking buildings, frames that
	// do not have a clinic.
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		w := raw(i)
		j := -1
		switch {
		case gapWords[w] || w == "no":
			j = i + 1
		case w == "none":
			j = i + 1
			if raw(j) == "of" {
				j++
			}
		case w == "havent" || w == "hasnt":
			j = i + 1
		case negHave[w] && haveWords[raw(i+1)]:
			j = i + 2
		case w == "not" || w == "non":
			// beside a value ("not urban"), read with the values
			sc.negations = append(sc.negations, i)
			sc.used[i] = true
		}
		if j < 0 {
			continue
		}
		for j < n && articles[raw(j)] {
			j++
		}
		sc.gaps = append(sc.gaps, gap{start: i, at: j})
		mark(i, min(j, n))
	}

	// Nearest: the nearest clinic, the 3 closest hospitals, how far is...
	for i := 0; i < n; i++ {
		w := raw(i)
		if !free(i) || !(nearestWords[w] || (w == "how" && raw(i+1) == "far")) {
			continue
		}
		if w == "far" && raw(i-1) != "how" {
			continue
		}
		sc.nearest = true
		sc.used[i] = true
		if w == "how" {
			sc.used[i+1] = true
		}
		for _, k := range []int{i - 1, i + 1} {
			if k >= 0 && k < n && free(k) {
				if c, ok := numberValue(toks[k]); ok {
					sc.count = min(c, maxNearest)
					sc.used[k] = true
					break
				}
			}
		}
	}

	// Shares: share, percentage, proportion, what part of, how much of.
	for i := 0; i < n; i++ {
		w := raw(i)
		if !free(i) {
			continue
		}
		if shareWords[w] || ((w == "part" || w == "portion") && raw(i+1) == "of") ||
			(w == "much" && raw(i-1) == "how" && raw(i+1) == "of") {
			if !sc.share {
				sc.share, sc.shareAt = true, i
			}
			sc.used[i] = true
		}
		if w == "ratio" || w == "ratios" {
			sc.ratio = true
			sc.used[i] = true
		}
	}

	// How many frames, which frames.
	for i := 0; i < n; i++ {
		w := raw(i)
		j := -1
		switch {
		case w == "how" && raw(i+1) == "many":
			j = i + 2
		case (w == "number" || w == "count") && raw(i+1) == "of":
			j = i + 2
		case w == "which" || w == "what" || w == "list" || w == "show" || w == "name":
			j = i + 1
		}
		if j < 0 {
			continue
		}
		for j < n && (raw(j) == "of" || raw(j) == "the" || raw(j) == "these" || raw(j) == "selected" || raw(j) == "my" || raw(j) == "those") {
			j++
		}
		if j < n && frameNouns[toks[j].sing] {
			if w == "how" || w == "number" || w == "count" {
				sc.howMany = true
			} else {
				sc.whichFrames = true
			}
		}
	}
	if sc.howMany {
		for i := 0; i < n; i++ {
			if haveWords[raw(i)] && raw(i) != "record" && raw(i) != "records" {
				sc.some = true
			}
		}
	}

	// Years and numbers left unread.
	for i := 0; i < n; i++ {
		if !free(i) {
			continue
		}
		w := raw(i)
		if y, ok := isYear(w); ok {
			_ = y
			sc.years = append(sc.years, i)
			continue
		}
		if isNumberToken(w) && !(len(w) >= 7 && isDigits(w)) && !(i+1 < n && frameNouns[toks[i+1].sing]) {
			sc.unread = append(sc.unread, i)
		}
	}
	return sc
}

// normalizeSymbols spells out comparison symbols and the percent sign, so
// that tokenize keeps their meaning: "> 5000" -> " more than 5000",
// "5000+" -> "5000 or more", "40%" -> "40 percent".
func normalizeSymbols(q string) string {
	if !strings.ContainsAny(q, "<>≥≤+%=/") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	rs := []rune(q)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '>' && next == '=', r == '≥':
			b.WriteString(" at least ")
			if r == '>' {
				i++
			}
		case r == '<' && next == '=', r == '≤':
			b.WriteString(" at most ")
			if r == '<' {
				i++
			}
		case r == '>':
			b.WriteString(" more than ")
		case r == '<':
			b.WriteString(" less than ")
		case r == '=':
			b.WriteString(" exactly ")
		case r == '+' && i > 0 && (rs[i-1] >= '0' && rs[i-1] <= '9' || (i > 1 && (rs[i-1] == 'k' || rs[i-1] == 'K') && rs[i-2] >= '0' && rs[i-2] <= '9')):
			b.WriteString(" or more ")
		case r == '%':
			b.WriteString(" percent ")
		case r == '/':
			b.WriteString(" per ")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
