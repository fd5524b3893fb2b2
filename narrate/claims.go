package narrate

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hedges a claim may carry: the direction in which the figure may lie from
// the number written.
const (
	HedgeNone    = ""         // stated as is
	HedgeAbout   = "about"    // about, around, roughly, some, "rounded": either side
	HedgeOver    = "over"     // over, more than, above: the figure is larger
	HedgeAtLeast = "at least" // at least, or more, 10k+: the figure is not smaller
	HedgeUnder   = "under"    // under, less than, below: the figure is smaller
	HedgeAlmost  = "almost"   // almost, nearly: the figure is not larger
	HedgeAtMost  = "at most"  // at most, up to, within: the figure is not larger
	HedgeExactly = "exactly"  // exactly, precisely: no rounding
)

// Roles of a claim other than a quantity.
const (
	RoleID    = "id"    // a frame id ("frame 433102007")
	RoleYear  = "year"  // a year as written ("2020")
	RoleScale = "scale" // the base after per/every ("per 100,000 people")
)

// Claim is one number a wording states, with what it is said to count and
// of what.
type Claim struct {
	Number
	// Unit is the canonical unit (see CanonicalUnit) read around the
	// number: the noun or unit after it ("people", "km²", "people per
	// km²"), the noun of "a population of", the base of a percentage ("%
	// of frames"); "" when none is recognised.
	Unit string
	// Hedge is the hedge before or after the number (a Hedge constant).
	Hedge string
	// Frames are the ids of the frames the number is said of, when its
	// clause (or the section heading above it) names some; Names the
	// places or category values. A word of the whole ("total", "in all",
	// "across", "of the") between them and the number cancels both.
	Frames []string
	Names  []string
	// Part is set for the X of "X of Y" ("3 of the 4 frames"); Whole for
	// the Y.
	Part, Whole bool
	// Selection is set when the clause says the number is of the whole
	// selection ("across the selection", "overall", "in total") and names
	// no frame between: it states no single frame's figure.
	Selection bool
	// Role is RoleID, RoleYear, RoleScale or "" for a quantity.
	Role string
	// InName is set for a short number ending a proper name ("Primary
	// Health Centre 6"): read as part of the name when the figures hold it.
	InName bool
}

// Ordinal is an ordinal a wording writes ("third", "6th", "#2").
type Ordinal struct {
	Text       string
	Value      int
	Start, End int
	// Frame is set when it ranks frames: "the sixth frame", "ranks third".
	Frame bool
}

// Kinds of tokens.
const (
	tkWord = iota
	tkNum
	tkPunct
	tkBreak // the end of a clause: . ! ? ; or a line break
)

type token struct {
	start, end int
	kind       uint8
	text       string // a word lower-cased, a punctuation rune, a number's text
	num        int    // tkNum: index into the numbers
	line       int    // the line the token is on
}

// readContext is what the reader knows of the figures: frame ids, names of
// places and category values, and the words of units the figures use.
type readContext struct {
	ids       map[string]bool   // frame ids, digits only
	names     map[string]string // name key -> name
	nameFirst map[string]bool   // first words of names
	units     map[string]string // unit phrase -> canonical unit, besides the lexicon
}

// ReadClaims reads the claims and ordinals of a wording, as Verify does
// when it checks it against f: every number of Numbers (but those inside a
// place or category name f holds) with its unit, hedge and subject. It
// never fails or panics, whatever s holds, and is safe for concurrent use.
func ReadClaims(s string, f Figures) ([]Claim, []Ordinal) {
	return readClaims(s, f.context())
}

// readClaims is ReadClaims with the context built.
func readClaims(s string, cx *readContext) ([]Claim, []Ordinal) {
	nums := Numbers(s)
	toks := tokenize(s, nums)
	shareScale(s, nums)
	r := &reader{s: s, toks: toks, nums: nums, cx: cx}
	r.findMentions()
	r.findGroups()
	claims := r.claims()
	return claims, r.ordinals()
}

// reader reads one text.
type reader struct {
	s    string
	toks []token
	nums []Number
	cx   *readContext

	// mention marks tokens that name a frame (mFrame) or a place or value
	// (mName), or lie inside a name (mInside: a digit of "Ward 6").
	mention []uint8
	mvalue  []string // the frame id or name of a mention's first token
	mlen    []int    // tokens a mention spans, on its first token
	groups  []group
}

const (
	mNone = iota
	mFrame
	mName
	mInside
)

// group is a run of mentions joined by "and", commas or "or".
type group struct {
	from, to int // token indexes, to exclusive
	frames   []string
	names    []string
}

// tokenize splits s into words, numbers (those of nums, whole), single
// punctuation runes and clause breaks.
func tokenize(s string, nums []Number) []token {
	toks := make([]token, 0, len(s)/4+len(nums))
	ni, line := 0, 0
	for i := 0; i < len(s); {
		if ni < len(nums) && i >= nums[ni].Start {
			if i == nums[ni].Start {
				toks = append(toks, token{start: i, end: nums[ni].End, kind: tkNum, text: nums[ni].Text, num: ni, line: line})
				i = nums[ni].End
			}
			ni++
			continue
		}
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\n':
			toks = append(toks, token{start: i, end: i + 1, kind: tkBreak, text: "\n", line: line})
			line++
			i++
			continue
		case c == '.' || c == '!' || c == '?' || c == ';':
			k := tkBreak
			if c == '.' && len(toks) > 0 && toks[len(toks)-1].kind == tkWord && toks[len(toks)-1].end == i && abbrev[toks[len(toks)-1].text] {
				k = tkPunct
			}
			toks = append(toks, token{start: i, end: i + 1, kind: uint8(k), text: s[i : i+1], line: line})
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			j := i
			next := len(s)
			if ni < len(nums) {
				next = nums[ni].Start
			}
			for j < len(s) && j < next {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) && r2 != '_' {
					break
				}
				j += n
			}
			if j == i { // a number starts here after all
				continue
			}
			toks = append(toks, token{start: i, end: j, kind: tkWord, text: lowerWord(s[i:j]), line: line})
			i = j
			continue
		}
		toks = append(toks, token{start: i, end: i + size, kind: tkPunct, text: s[i : i+size], line: line})
		i += size
	}
	return toks
}

// abbrev are words whose full stop does not end a clause.
var abbrev = map[string]bool{"approx": true, "ca": true, "e": true, "i": true, "g": true, "etc": true, "vs": true,
	"no": true, "nos": true, "c": true, "st": true, "dr": true, "mr": true, "mrs": true}

// lowerWord lower-cases a word, without allocating when it is lower-case
// ASCII already.
func lowerWord(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(w)
		}
	}
	return w
}

// frameWords introduce a frame id.
var frameWords = map[string]bool{"frame": true, "frames": true, "cell": true, "cells": true, "id": true, "ids": true,
	"polygon": true, "polygons": true, "square": true, "tile": true}

// digitsOf is the digits of a whole number as written ("433102007"), "" for
// anything else.
func digitsOf(t string) string {
	var b []byte
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case isDigit(c):
			b = append(b, c)
		case c == ',':
		default:
			return ""
		}
	}
	return string(b)
}

// findMentions marks the frame ids and the names the text holds.
func (r *reader) findMentions() {
	n := len(r.toks)
	r.mention = make([]uint8, n)
	r.mvalue = make([]string, n)
	r.mlen = make([]int, n)
	var key []byte
	for i := 0; i < n; i++ {
		t := r.toks[i]
		if t.kind != tkWord && t.kind != tkNum {
			continue
		}
		// The longest name starting here.
		if len(r.cx.names) > 0 && r.cx.nameFirst[t.text] {
			best, bestLen := "", 0
			key = key[:0]
			words, j := 0, i
			for j < n && words < maxNameWords {
				tj := r.toks[j]
				if tj.kind == tkPunct && (tj.text == "-" || tj.text == "'" || tj.text == "’") && words > 0 {
					j++
					continue
				}
				if tj.kind != tkWord && tj.kind != tkNum {
					break
				}
				if words > 0 {
					key = append(key, ' ')
				}
				key = appendLowerAlnum(key, tj.text)
				words++
				j++
				if name, ok := r.cx.names[string(key)]; ok {
					best, bestLen = name, j-i
				}
			}
			if bestLen > 0 {
				r.mention[i], r.mvalue[i], r.mlen[i] = mName, best, bestLen
				for k := i + 1; k < i+bestLen; k++ {
					r.mention[k] = mInside
				}
				i += bestLen - 1
				continue
			}
		}
		if t.kind != tkNum {
			continue
		}
		d := digitsOf(t.text)
		if d == "" {
			continue
		}
		after := i > 0 && r.toks[i-1].kind == tkWord && frameWords[r.toks[i-1].text]
		if i > 1 && r.toks[i-1].kind == tkPunct && (r.toks[i-1].text == "#") && r.toks[i-2].kind == tkWord && frameWords[r.toks[i-2].text] {
			after = true
		}
		// A known id of five digits or more is an id wherever it stands;
		// a shorter one ("1") only after "frame" or "id".
		if after || (r.cx.ids[d] && len(d) >= 5) {
			r.mention[i], r.mvalue[i], r.mlen[i] = mFrame, d, 1
		}
	}
}

// appendLowerAlnum appends the letters and digits of w, lower-cased.
func appendLowerAlnum(b []byte, w string) []byte {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return b
}

// joiners join the mentions of a group.
var joiners = map[string]bool{",": true, "and": true, "or": true, "&": true, "/": true, "frame": true, "frames": true,
	"both": true, "cells": true, "cell": true, "the": true}

// findGroups joins mentions into groups.
func (r *reader) findGroups() {
	n := len(r.toks)
	for i := 0; i < n; i++ {
		if r.mention[i] != mFrame && r.mention[i] != mName {
			continue
		}
		g := group{from: i}
		j := i
		for {
			switch r.mention[j] {
			case mFrame:
				g.frames = append(g.frames, r.mvalue[j])
			case mName:
				g.names = append(g.names, r.mvalue[j])
			}
			j += r.mlen[j]
			// Joiners, then another mention?
			k := j
			for k < n && r.toks[k].kind != tkBreak && r.mention[k] == mNone && (joiners[r.toks[k].text] || r.toks[k].text == ",") {
				k++
			}
			if k > j && k < n && (r.mention[k] == mFrame || r.mention[k] == mName) {
				j = k
				continue
			}
			break
		}
		g.to = j
		r.groups = append(r.groups, g)
		i = j - 1
	}
}

// wholeWords say a number is of the whole selection, not of a frame or
// place named before it.
var wholeWords = map[string]bool{"total": true, "totals": true, "totalling": true, "totaling": true, "all": true,
	"altogether": true, "together": true, "combined": true, "overall": true, "selection": true, "selected": true,
	"entire": true, "whole": true, "across": true, "sum": true, "aggregate": true, "both": true, "each": true,
	"every": true, "average": true, "mean": true, "collectively": true, "cumulative": true, "while": true,
	"whereas": true, "compared": true, "against": true, "rest": true, "others": true, "other": true}

// oneFrameBefore reports a word of one frame (a superlative, "each",
// "frame") or a frame id earlier in the clause of token i.
func (r *reader) oneFrameBefore(i int) bool {
	for k := i - 1; k >= 0 && r.toks[k].kind != tkBreak; k-- {
		if r.mention[k] == mFrame || (r.toks[k].kind == tkWord && oneFrameWords[r.toks[k].text]) {
			return true
		}
	}
	return false
}

// amongBefore reports "of" or "among" within the three tokens before k:
// "of the 4 selected frames", "among the selection".
func (r *reader) amongBefore(k int) bool {
	for m := k - 1; m >= 0 && m >= k-3 && r.toks[m].kind != tkBreak; m-- {
		if r.toks[m].text == "of" || r.toks[m].text == "among" {
			return true
		}
	}
	return false
}

// selectionWords say a number is of the whole selection.
var selectionWords = map[string]bool{"selection": true, "selected": true, "overall": true, "altogether": true,
	"combined": true, "total": true, "totals": true, "whole": true, "entire": true, "together": true, "aggregate": true,
	"sum": true, "across": true, "collectively": true}

// oneFrameWords say a number may be one frame's, after a word of the
// whole: "the selection's busiest frame".
var oneFrameWords = map[string]bool{"frame": true, "cell": true, "one": true, "busiest": true, "densest": true,
	"most": true, "least": true, "highest": true, "lowest": true, "top": true, "largest": true, "smallest": true,
	"fewest": true, "brightest": true, "maximum": true, "minimum": true, "max": true, "min": true, "each": true,
	"every": true, "per": true, "its": true, "alone": true, "polygon": true, "square": true, "sparsest": true,
	"emptiest": true, "biggest": true, "range": true, "ranges": true, "from": true, "between": true, "leads": true,
	"first": true, "second": true, "third": true, "ranked": true, "ranks": true}

// introducers put a mention after a number: "25,741 people (frame 1)",
// "in frame 1", "from frame 1".
var introducers = map[string]bool{"(": true, "in": true, "on": true, "at": true, "of": true, "from": true, "for": true,
	"—": true, "–": true, "within": true, "inside": true}

// prepositions end the search for "each building" before a number: "5.3
// people per building across the 12 frames" counts frames.
var prepositions = map[string]bool{"across": true, "in": true, "on": true, "of": true, "over": true, "under": true,
	"from": true, "to": true, "with": true, "at": true, "by": true, "among": true, "between": true, "within": true}

// contrastWords set what follows a number apart from it: "25,741 people,
// ahead of frame 2".
var contrastWords = map[string]bool{"ahead": true, "behind": true, "than": true, "compared": true, "against": true,
	"versus": true, "vs": true, "unlike": true, "like": true, "after": true, "before": true, "while": true,
	"whereas": true, "but": true, "beside": true, "besides": true, "next": true, "followed": true}

// stopWords end the search for a unit after a number.
var stopWords = map[string]bool{"of": true, "in": true, "on": true, "at": true, "by": true, "for": true, "to": true,
	"from": true, "with": true, "and": true, "or": true, "but": true, "than": true, "the": true, "a": true, "an": true,
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "has": true, "have": true, "had": true,
	"do": true, "does": true, "per": true, "each": true, "every": true, "which": true, "that": true, "this": true,
	"these": true, "those": true, "it": true, "its": true, "their": true, "there": true, "here": true, "as": true,
	"while": true, "across": true, "over": true, "under": true, "between": true, "among": true, "within": true,
	"into": true, "out": true, "up": true, "about": true, "around": true, "live": true, "lives": true, "living": true,
	"hold": true, "holds": true, "sit": true, "lie": true, "lies": true, "stand": true, "stands": true,
	"times": true, "percent": true, "per cent": true, "we": true, "they": true, "them": true, "his": true,
	"her": true, "not": true, "no": true, "all": true, "both": true, "only": true, "just": true, "also": true}

// claims reads every number that is not a frame id or inside a name.
func (r *reader) claims() []Claim {
	var out []Claim
	idx := make([]int, len(r.toks)) // token -> claim index + 1
	for i, t := range r.toks {
		if t.kind != tkNum || r.mention[i] == mInside || r.mention[i] == mName {
			continue
		}
		c := Claim{Number: r.nums[t.num], InName: r.nameDigit(i)}
		switch {
		case r.mention[i] == mFrame:
			c.Role = RoleID
			c.Unit = uID
		case !c.Percent && isYearText(c.Text):
			c.Role = RoleYear
			c.Unit = uYear
		default:
			c.Hedge = r.hedge(i)
			if c.Hedge == HedgeExactly && c.Decimals < 0 {
				c.Decimals = 0
			}
			c.Unit = r.unit(i, &c)
			if r.perBefore(i) {
				c.Role = RoleScale
				if c.Unit != "" && !strings.Contains(c.Unit, "/") && !strings.HasPrefix(c.Unit, "%") {
					c.Unit = "~" + c.Unit
				}
			}
			r.subject(i, &c)
		}
		out = append(out, c)
		idx[i] = len(out)
	}
	// "X of Y": X is a part of Y, counted in Y's unit; Y is a whole.
	for i := range r.toks {
		if idx[i] == 0 {
			continue
		}
		j := i + 1
		if j < len(r.toks) && r.toks[j].kind == tkWord && r.toks[j].text == "out" {
			j++
		}
		if j >= len(r.toks) || r.toks[j].kind != tkWord || (r.toks[j].text != "of" && r.toks[j].text != "in") {
			continue
		}
		j++
		for j < len(r.toks) && r.toks[j].kind == tkWord && (r.toks[j].text == "the" || r.toks[j].text == "these" ||
			r.toks[j].text == "those" || r.toks[j].text == "its" || r.toks[j].text == "their" || r.toks[j].text == "all") {
			j++
		}
		if j >= len(r.toks) || idx[j] == 0 {
			continue
		}
		x, y := &out[idx[i]-1], &out[idx[j]-1]
		if x.Role != "" || y.Role != "" || x.Percent {
			continue
		}
		x.Part, y.Whole = true, true
		if y.Unit != "" || x.Unit == uFrames {
			x.Unit = y.Unit // "1 of 9 cells" counts cells, whatever came before
		}
		y.Frames, y.Names = nil, nil
	}
	return out
}

// perBefore reports "per", "every", "each" or "for every" right before the
// number at token i: the number is the base of a ratio.
func (r *reader) perBefore(i int) bool {
	if i == 0 || r.toks[i-1].kind != tkWord {
		return false
	}
	switch r.toks[i-1].text {
	case "per", "every", "each":
		return true
	}
	return false
}

// hedgePhrases are the hedges written before a number, by their words.
var hedgePhrases = map[string]string{
	"about": HedgeAbout, "around": HedgeAbout, "roughly": HedgeAbout, "approximately": HedgeAbout, "approx": HedgeAbout,
	"some": HedgeAbout, "circa": HedgeAbout, "ca": HedgeAbout, "close to": HedgeAbout, "in the region of": HedgeAbout,
	"on the order of": HedgeAbout, "of the order of": HedgeAbout, "an estimated": "", "estimated": "",
	"something like": HedgeAbout, "somewhere around": HedgeAbout, "round about": HedgeAbout, "more or less": HedgeAbout,
	"over": HedgeOver, "more than": HedgeOver, "above": HedgeOver, "exceeding": HedgeOver, "exceeds": HedgeOver,
	"in excess of": HedgeOver, "upwards of": HedgeOver, "greater than": HedgeOver, "higher than": HedgeOver,
	"beyond": HedgeOver, "just over": HedgeOver, "well over": HedgeOver, "slightly over": HedgeOver,
	"a little over": HedgeOver, "north of": HedgeOver, "slightly more than": HedgeOver, "well above": HedgeOver,
	"just above": HedgeOver, "larger than": HedgeOver, "bigger than": HedgeOver,
	"at least": HedgeAtLeast, "no fewer than": HedgeAtLeast, "no less than": HedgeAtLeast, "not less than": HedgeAtLeast,
	"not fewer than": HedgeAtLeast, "a minimum of": HedgeAtLeast,
	"under": HedgeUnder, "below": HedgeUnder, "less than": HedgeUnder, "fewer than": HedgeUnder, "lower than": HedgeUnder,
	"short of": HedgeUnder, "shy of": HedgeUnder, "just under": HedgeUnder, "just below": HedgeUnder,
	"smaller than": HedgeUnder, "well under": HedgeUnder, "well below": HedgeUnder,
	"almost": HedgeAlmost, "nearly": HedgeAlmost, "not quite": HedgeAlmost, "approaching": HedgeAlmost,
	"just shy of": HedgeAlmost, "close on": HedgeAlmost,
	"at most": HedgeAtMost, "up to": HedgeAtMost, "no more than": HedgeAtMost, "not more than": HedgeAtMost,
	"a maximum of": HedgeAtMost, "within": HedgeAtMost, "not exceeding": HedgeAtMost,
	"exactly": HedgeExactly, "precisely": HedgeExactly, "exact": HedgeExactly,
}

// ordinals finds the ordinals of the text.
func (r *reader) ordinals() []Ordinal {
	var out []Ordinal
	toks := r.toks
	s := r.s
	for i, t := range toks {
		var o Ordinal
		switch {
		case t.kind == tkWord && ordinalWords[t.text] > 0:
			o = Ordinal{Text: s[t.start:t.end], Value: ordinalWords[t.text], Start: t.start, End: t.end}
			if i >= 2 && toks[i-1].text == "-" && tens[toks[i-2].text] > 0 && o.Value < 10 {
				o.Value += tens[toks[i-2].text]
				o.Start = toks[i-2].start
				o.Text = s[o.Start:o.End]
			}
		case t.kind == tkWord && len(t.text) >= 3 && isDigit(t.text[0]):
			// "3rd", "21st", "6th": a word of digits and a suffix.
			k := 0
			for k < len(t.text) && isDigit(t.text[k]) {
				k++
			}
			switch t.text[k:] {
			case "st", "nd", "rd", "th":
			default:
				continue
			}
			v, err := strconv.Atoi(t.text[:k])
			if err != nil || k > 6 {
				continue
			}
			if i > 0 && toks[i-1].end == t.start && toks[i-1].kind == tkWord {
				continue
			}
			o = Ordinal{Text: s[t.start:t.end], Value: v, Start: t.start, End: t.end}
		case t.kind == tkPunct && t.text == "#" && i+1 < len(toks) && toks[i+1].start == t.end && toks[i+1].kind == tkWord &&
			isDigit(toks[i+1].text[0]):
			v, err := strconv.Atoi(toks[i+1].text)
			if err != nil {
				continue
			}
			o = Ordinal{Text: s[t.start:toks[i+1].end], Value: v, Start: t.start, End: toks[i+1].end, Frame: true}
		default:
			continue
		}
		if o.Value < 1 { // "#0", "0th": no place
			continue
		}
		// What it ranks: a frame noun within two words after, or "ranks",
		// "ranked", "placed", "comes" before.
		for k := i + 1; k < len(toks) && k <= i+4; k++ {
			if toks[k].kind == tkBreak || toks[k].kind == tkNum {
				break
			}
			if frameNouns[toks[k].text] {
				o.Frame = true
				break
			}
		}
		if i > 0 && toks[i-1].kind == tkWord {
			switch toks[i-1].text {
			case "ranks", "ranked", "placed", "comes", "rank", "ranking":
				o.Frame = true
			}
		}
		out = append(out, o)
	}
	return out
}

// shareScale gives the first number of a range the scale of the second:
// "between 1 and 2 million" is 1 million to 2 million, "12 to 15
// thousand" 12,000 to 15,000.
func shareScale(s string, nums []Number) {
	for i := 0; i+1 < len(nums); i++ {
		x, y := &nums[i], &nums[i+1]
		if x.Percent || y.Percent {
			continue
		}
		gap := strings.TrimSpace(s[x.End:y.Start])
		if gap != "and" && gap != "to" && gap != "-" && gap != "–" {
			continue
		}
		exp := scaleOf(y.Text)
		if exp == 0 || scaleOf(x.Text) != 0 || math.Abs(x.Value) >= 1000 {
			continue
		}
		x.Value *= math.Pow10(exp)
		x.Decimals -= exp
	}
}

// scaleOf is the power of ten a number's scale word or suffix gives it
// ("2 million": 6, "12k": 3), 0 when none.
func scaleOf(t string) int {
	l := strings.ToLower(t)
	switch {
	case strings.HasSuffix(l, "trillion") || strings.HasSuffix(l, "tn"):
		return 12
	case strings.HasSuffix(l, "billion") || strings.HasSuffix(l, "bn") || strings.HasSuffix(l, "b"):
		return 9
	case strings.HasSuffix(l, "million") || strings.HasSuffix(l, "mn") || strings.HasSuffix(l, "m"):
		return 6
	case strings.HasSuffix(l, "thousand") || strings.HasSuffix(l, "k"):
		return 3
	}
	return 0
}

// prepositionAfter reports whether the word at token k ("over", "under",
// "above", "below", "beyond") follows a number or its unit, and so joins
// two quantities rather than hedging the second.
func prepositionAfter(toks []token, k int) bool {
	switch toks[k].text {
	case "over", "under", "above", "below", "beyond":
	default:
		return false
	}
	if k == 0 {
		return false
	}
	p := toks[k-1]
	if p.text == "²" && k >= 2 { // "km² over"
		p = toks[k-2]
	}
	switch {
	case p.kind == tkNum, p.text == ")":
		return true
	case p.kind == tkWord && acrossWords[p.text]:
		return true
	case p.kind == tkWord:
		if _, ok := lexicon[p.text]; ok {
			return true
		}
		_, ok := lexicon[singularWord(p.text)]
		return ok
	}
	return false
}

// shareWords may stand between a noun and "a building": "5.34 people
// share a building".
var shareWords = map[string]bool{"share": true, "shares": true, "sharing": true, "live": true, "living": true,
	"in": true, "on": true, "for": true, "to": true}

// acrossWords are followed by "over" meaning "across": "mean over 9
// cells", "spread over six LGAs".
var acrossWords = map[string]bool{"mean": true, "sum": true, "average": true, "total": true, "density": true,
	"radiance": true, "statistics": true, "averaged": true, "summed": true, "aggregated": true, "computed": true,
	"calculated": true, "measured": true, "taken": true, "spread": true, "distributed": true, "ratio": true,
	"zonal": true, "values": true, "value": true, "computed,": true, "scattered": true, "lie": true, "lies": true}

// nameDigit reports whether the number at token i ends a proper name:
// "Primary Health Centre 6", "Ibadan Clinic 20" (two capitalised words
// before it, a short whole number).
func (r *reader) nameDigit(i int) bool {
	t := r.toks[i]
	if i < 2 || len(t.text) > 3 || digitsOf(t.text) == "" {
		return false
	}
	a, b := r.toks[i-2], r.toks[i-1]
	return a.kind == tkWord && b.kind == tkWord && firstRuneUpper(r.s[a.start:a.end]) && firstRuneUpper(r.s[b.start:b.end]) &&
		!hedgeWord[b.text] && b.end < t.start
}
