package narrate

import (
	"strings"
)

// The hedge and the unit of a claim: the words around its number that say
// which way it may round and what it counts.

// hedge reads the hedge of the number at token i.
func (r *reader) hedge(i int) string {
	toks := r.toks
	// Symbols right before: ~ ≈ > ≥ < ≤.
	if i > 0 && toks[i-1].kind == tkPunct {
		switch toks[i-1].text {
		case "~", "≈":
			return HedgeAbout
		case ">":
			return HedgeOver
		case "≥":
			return HedgeAtLeast
		case "<":
			return HedgeUnder
		case "≤":
			return HedgeAtMost
		}
	}
	// The longest phrase of up to four words right before.
	var buf []byte
	for n := 4; n >= 1; n-- {
		if i-n < 0 {
			continue
		}
		buf = buf[:0]
		ok := true
		for k := i - n; k < i; k++ {
			if toks[k].kind != tkWord {
				ok = false
				break
			}
			if k > i-n {
				buf = append(buf, ' ')
			}
			buf = append(buf, toks[k].text...)
		}
		if !ok {
			continue
		}
		if h, found := hedgePhrases[string(buf)]; found {
			if n == 1 && prepositionAfter(toks, i-1) {
				break // "1,740 over 6 polygons", "18 people per hectare over 506.63 ha"
			}
			if h != "" {
				return h
			}
			break
		}
	}
	// After: "or more", "or so", "+", "-plus", "(rounded)".
	end := toks[i].end
	if end < len(r.s) && r.s[end] == '+' {
		return HedgeAtLeast
	}
	// "or more" right after the number or its noun: "12,000 residents or
	// more".
	for k := i + 1; k+1 < len(toks) && k <= i+4; k++ {
		t := toks[k]
		if t.kind != tkWord || t.text == "and" || t.text == "of" {
			break
		}
		if t.text != "or" || toks[k+1].kind != tkWord {
			continue
		}
		switch toks[k+1].text {
		case "more", "above", "over", "greater":
			return HedgeAtLeast
		case "so", "thereabouts":
			return HedgeAbout
		case "less", "fewer", "below", "under":
			return HedgeAtMost
		}
		break
	}
	if i+2 < len(toks) && toks[i+1].text == "-" && toks[i+2].text == "plus" {
		return HedgeAtLeast
	}
	// Rounding announced in the clause.
	for k := i - 1; k >= 0 && toks[k].kind != tkBreak; k-- {
		if toks[k].kind == tkWord && roundWords[toks[k].text] {
			return HedgeAbout
		}
	}
	for k := i + 1; k < len(toks) && toks[k].kind != tkBreak; k++ {
		if toks[k].kind == tkWord && roundWords[toks[k].text] {
			return HedgeAbout
		}
	}
	return HedgeNone
}

// roundWords announce rounding in a clause.
var roundWords = map[string]bool{"rounded": true, "rounding": true, "round": true, "approximate": true,
	"approximately": true, "roughly": true}

// unit reads the unit of the number at token i.
func (r *reader) unit(i int, c *Claim) string {
	toks := r.toks
	n := len(toks)
	j := i + 1
	if c.Percent {
		// "45% of the (estimated) population"
		k := j
		if k < n && toks[k].kind == tkWord && toks[k].text == "of" {
			k++
			for k < n && toks[k].kind == tkWord && (toks[k].text == "the" || toks[k].text == "all" || toks[k].text == "its" ||
				toks[k].text == "their" || toks[k].text == "these" || toks[k].text == "those" || toks[k].text == "total" ||
				toks[k].text == "selected" || toks[k].text == "selection's") {
				k++
			}
			if k < n && toks[k].kind == tkNum && r.mention[k] == mNone { // "33% of the 12 selected frames"
				k++
			}
			if u, _ := r.nounAt(k, 2, lexicon); u != "" {
				return "%" + u
			}
		}
		return "%"
	}
	if u := UnitAfter(r.s, toks[i].end); u != "" {
		return u
	}
	if rest := strings.TrimLeft(r.s[toks[i].end:], " \u00a0"); len(rest) >= 3 && strings.EqualFold(rest[:3], "nw/") {
		return uRadiance
	}
	noun, end := r.nounAt(j, 2, lexicon)
	if noun == "" {
		end = j
		// "0.18 to 3.53 km", "between 1,000 and 2,000 people": the unit
		// of the range's end.
		if j+1 < n && toks[j].kind == tkWord && (toks[j].text == "to" || toks[j].text == "and") && toks[j+1].kind == tkNum &&
			r.mention[j+1] == mNone && !c.Percent {
			y := Claim{Number: r.nums[toks[j+1].num]}
			if !y.Percent {
				if u := r.unit(j+1, &y); u != "" {
					return u
				}
			}
		}
	}
	// "per km²", "for each building", "/km²", "people live on each hectare".
	if den := r.denominator(end, noun != ""); den != "" && den != uFrames {
		if noun == "" {
			noun = "?"
		}
		return noun + "/" + den
	}
	if noun != "" {
		// "Each building houses 5.34 people": a denominator before.
		if den := r.denominatorBefore(i); den != "" && den != noun && den != uFrames {
			return noun + "/" + den
		}
		return noun
	}
	return r.unitBefore(i)
}

// denominatorBefore reads "each building", "for every building", "per
// frame" earlier in the clause of the number at token i.
func (r *reader) denominatorBefore(i int) string {
	toks := r.toks
	for k := i - 1; k >= 0 && k >= i-8; k-- {
		t := toks[k]
		if t.kind == tkBreak || t.kind == tkNum || (t.kind == tkPunct && t.text != "-") || prepositions[t.text] {
			return ""
		}
		if t.kind == tkWord && (t.text == "each" || t.text == "every" || t.text == "per") {
			if u, _ := r.phraseAt(k+1, lexicon); u != "" {
				return u
			}
			return ""
		}
	}
	return ""
}

// nounAt reads a unit noun starting at token j, after up to skip words
// that are neither stop words nor units ("4 selected frames"); it
// returns the unit and the token after it.
func (r *reader) nounAt(j, skip int, lex map[string]string) (string, int) {
	toks := r.toks
	n := len(toks)
	for s := 0; s <= skip && j < n; s++ {
		if u, e := r.phraseAt(j, lex); u != "" {
			return u, e
		}
		t := toks[j]
		if t.kind == tkPunct && t.text == "-" {
			j++
			s--
			continue
		}
		if t.kind != tkWord || stopWords[t.text] {
			return "", j
		}
		j++
	}
	return "", j
}

// phraseAt matches the longest unit phrase of up to three words at j, in
// lex or among the figures' own units.
func (r *reader) phraseAt(j int, lex map[string]string) (string, int) {
	toks := r.toks
	var buf []byte
	for n := 3; n >= 1; n-- {
		if j+n > len(toks) {
			continue
		}
		buf = buf[:0]
		ok := true
		for k := j; k < j+n; k++ {
			if toks[k].kind != tkWord {
				ok = false
				break
			}
			if k > j {
				buf = append(buf, ' ')
			}
			buf = append(buf, toks[k].text...)
		}
		if !ok {
			continue
		}
		if u, found := lex[string(buf)]; found {
			return u, j + n
		}
		if u, found := r.cx.units[string(buf)]; found {
			return u, j + n
		}
		// An attribute name: "population_2020", "building_count".
		if n == 1 {
			if head, _, ok := strings.Cut(string(buf), "_"); ok {
				if u, found := lex[head]; found {
					return u, j + 1
				}
			}
		}
	}
	return "", j
}

// denominator reads "per km²", "per building", "for each person", "a
// hectare", "/km²" after token j, within a few words when a noun was
// read ("people live on each km²").
func (r *reader) denominator(j int, hadNoun bool) string {
	toks := r.toks
	n := len(toks)
	limit := j + 1
	if hadNoun {
		limit = j + 4
	}
	for k := j; k < n && k <= limit; k++ {
		t := toks[k]
		if t.kind == tkBreak || t.kind == tkNum {
			return ""
		}
		per := false
		switch {
		case t.kind == tkPunct && t.text == "/":
			per = true
		case t.kind == tkWord && (t.text == "per" || t.text == "each" || t.text == "every"):
			per = true
		case t.kind == tkWord && (t.text == "a" || t.text == "an") && k+1 < n && (k == j || shareWords[toks[k-1].text]):
			// "5.34 people share a building", "25,000 people a square
			// kilometre": only before a singular thing counted per.
			if u, _ := r.phraseAt(k+1, lexicon); (u == uBuildings || u == uFacilities || u == uPeople || areaUnits[u]) &&
				toks[k+1].text != "population" && singularWord(toks[k+1].text) == toks[k+1].text {
				per = true
			} else if UnitAfter(r.s, t.end) != "" && areaUnits[UnitAfter(r.s, t.end)] {
				per = true
			}
		case t.kind != tkWord:
			return ""
		case stopWords[t.text] && t.text != "on" && t.text != "in" && t.text != "for" && t.text != "live" &&
			t.text != "lives" && t.text != "living":
			return ""
		}
		if !per {
			continue
		}
		m := k + 1
		if m < n && toks[m].kind == tkNum { // "per 100,000 people"
			m++
		}
		if m >= n {
			return ""
		}
		if u := UnitAfter(r.s, toks[m-1].end); u != "" {
			return u
		}
		if u, _ := r.phraseAt(m, lexicon); u != "" {
			return u
		}
		return ""
	}
	return ""
}

// linkers join a noun to the number after it: "a population of", "Area:",
// "the density is".
var linkers = map[string]bool{"of": true, "is": true, "was": true, "are": true, "were": true, ":": true, "=": true,
	"at": true, "reaches": true, "reached": true, "totals": true, "totalled": true, "totaled": true, "totalling": true,
	"totaling": true, "with": true, "to": true, "measures": true, "stands": true, "hits": true}

// unitBefore reads the noun of "a population of 12,345", "Area: 3.4",
// "the density is 500", "Population per building: 5.34".
func (r *reader) unitBefore(i int) string {
	toks := r.toks
	k := i - 1
	for k >= 0 && toks[k].kind == tkWord && (hedgeWord[toks[k].text] || toks[k].text == "a" || toks[k].text == "an" || toks[k].text == "the") {
		k--
	}
	if k < 0 || !linkers[toks[k].text] || toks[k].kind == tkBreak {
		return ""
	}
	colon := toks[k].text == ":"
	k--
	if k >= 0 && toks[k].kind == tkWord && (toks[k].text == "stands" || toks[k].text == "comes" || toks[k].text == "amounts") {
		k--
	}
	// "Estimated population (2020): 86,556": skip a bracket.
	if k >= 0 && toks[k].text == ")" {
		for k >= 0 && toks[k].text != "(" && toks[k].kind != tkBreak {
			k--
		}
		k--
	}
	if k < 0 || toks[k].kind != tkWord {
		return ""
	}
	// The words of the noun phrase, back to the start of the clause, a
	// number or another bracket.
	start := k
	for start > 0 && start > k-8 && (toks[start-1].kind == tkWord || toks[start-1].text == "-" ||
		(toks[start-1].kind == tkNum && start > 1 && toks[start-2].text == "per")) && !linkers[toks[start-1].text] {
		start--
	}
	// "Frames with at least 20,000 people: 3 of 4": a label headed by
	// frames counts frames.
	if colon {
		h := start
		for h > 0 && toks[h-1].kind != tkBreak && h > k-12 {
			h--
		}
		if toks[h].kind == tkWord && (toks[h].text == "frames" || toks[h].text == "cells") {
			return uFrames
		}
	}
	if start > 0 && (toks[start-1].kind == tkNum || (toks[start-1].kind == tkWord && toks[start-1].text == "no")) {
		return "" // the noun of another number, or "no health facility"
	}
	// "population per building", "health facilities per 10,000 people".
	for m := k; m > start; m-- {
		if toks[m].kind == tkWord && toks[m].text == "per" {
			x := r.phraseEndingAt(m-1, start, beforeLexicon)
			if x == "" || strings.Contains(x, "/") {
				x = "?"
			}
			y, n := "", m+1
			if n <= k && toks[n].kind == tkNum { // "per 10,000 people"
				n++
			}
			if n <= k {
				y, _ = r.phraseAt(n, lexicon)
			}
			if y == "" && m+1 < len(toks) {
				if u := UnitAfter(r.s, toks[m].end); u != "" {
					y = u
				}
			}
			if y == "" {
				return ""
			}
			return x + "/" + y
		}
	}
	return r.phraseEndingAt(k, start, beforeLexicon)
}

// phraseEndingAt matches the longest unit phrase of up to three words
// ending at token k and starting at or after token start.
func (r *reader) phraseEndingAt(k, start int, lex map[string]string) string {
	toks := r.toks
	var buf []byte
	for n := 3; n >= 1; n-- {
		if k-n+1 < start || k-n+1 < 0 {
			continue
		}
		buf = buf[:0]
		ok := true
		for m := k - n + 1; m <= k; m++ {
			if toks[m].kind != tkWord && !(toks[m].kind == tkPunct && toks[m].text == "-") {
				ok = false
				break
			}
			if m > k-n+1 && toks[m].kind == tkWord && toks[m-1].kind == tkWord {
				buf = append(buf, ' ')
			}
			buf = append(buf, toks[m].text...)
		}
		if !ok {
			continue
		}
		if u, found := lex[string(buf)]; found {
			return u
		}
		if u, found := r.cx.units[string(buf)]; found {
			return u
		}
	}
	return ""
}

// hedgeWord are the single words of hedges, skipped when looking for the
// noun before a number.
var hedgeWord = map[string]bool{"about": true, "around": true, "roughly": true, "approximately": true, "approx": true,
	"some": true, "circa": true, "over": true, "more": true, "than": true, "above": true, "under": true, "below": true,
	"less": true, "fewer": true, "almost": true, "nearly": true, "least": true, "most": true, "just": true, "up": true,
	"exactly": true, "precisely": true, "estimated": true, "only": true, "close": true, "well": true}
