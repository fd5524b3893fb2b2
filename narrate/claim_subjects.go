package narrate

// The subject of a claim: what its clause says the number is of (a frame,
// a place or category value, the selection), and the groups of a report.

// subject finds what the number at token i is said of.
func (r *reader) subject(i int, c *Claim) {
	toks := r.toks
	// A word of the whole right after: "86,556 people in all".
	for k := i + 1; k < len(toks) && k <= i+4 && toks[k].kind != tkBreak && toks[k].kind != tkNum; k++ {
		if toks[k].kind == tkWord && (toks[k].text == "altogether" || toks[k].text == "combined" || toks[k].text == "overall" ||
			toks[k].text == "together" || (toks[k].text == "all" && k > 0 && toks[k-1].text == "in") ||
			(toks[k].text == "total" && k > 0 && toks[k-1].text == "in") || toks[k].text == "across") {
			c.Selection = !r.oneFrameBefore(i)
			return
		}
	}
	// A mention after, introduced: "(frame 1)", "in frame 1", "from frame
	// 1", with nothing but the number's unit between.
	intro := false
	for k := i + 1; k < len(toks) && k <= i+7; k++ {
		t := toks[k]
		if t.kind == tkBreak || (t.kind == tkNum && r.mention[k] == mNone) || contrastWords[t.text] {
			break
		}
		if r.mention[k] == mFrame || r.mention[k] == mName {
			if intro {
				if g := r.groupAt(k); g != nil {
					c.Frames, c.Names = g.frames, g.names
					return
				}
			}
			break
		}
		switch {
		case introducers[t.text]:
			intro = true
		case frameWords[t.text] || t.text == "the" || t.text == "selected" || t.text == "#":
		default:
			intro = false
		}
	}
	// The nearest group before, in the clause, with no word of the whole
	// between.
	oneFrame := false
	for k := i - 1; k >= 0; k-- {
		t := toks[k]
		if t.kind == tkBreak {
			break
		}
		if t.kind == tkWord && oneFrameWords[t.text] {
			oneFrame = true
		}
		if t.kind == tkWord && wholeWords[t.text] {
			// "the most buildings of the 4 selected frames: 4,591": the
			// selection is what the frame named before is ranked among.
			if (t.text == "selected" || t.text == "selection") && r.amongBefore(k) && r.oneFrameBefore(k) {
				continue
			}
			c.Selection = selectionWords[t.text] && !oneFrame
			return
		}
		if r.mention[k] == mFrame || r.mention[k] == mName || r.mention[k] == mInside {
			if g := r.groupEndingAt(k); g != nil {
				c.Frames, c.Names = g.frames, g.names
			}
			return
		}
	}
	// The section heading above.
	if g := r.headingGroup(i); g != nil {
		c.Frames, c.Names = g.frames, g.names
	}
}

// groupAt is the group starting at token k, or nil.
func (r *reader) groupAt(k int) *group {
	for gi := range r.groups {
		if r.groups[gi].from == k {
			return &r.groups[gi]
		}
	}
	return nil
}

// groupEndingAt is the group holding token k, or nil.
func (r *reader) groupEndingAt(k int) *group {
	for gi := range r.groups {
		if r.groups[gi].from <= k && k < r.groups[gi].to {
			return &r.groups[gi]
		}
	}
	return nil
}

// headingGroup is the one group of the "#" heading above token i, when
// the heading holds exactly one.
func (r *reader) headingGroup(i int) *group {
	line := r.toks[i].line
	// The start of the nearest heading line above.
	for k := i - 1; k >= 0; k-- {
		t := r.toks[k]
		if t.line == line || t.kind == tkBreak {
			continue
		}
		// t is on an earlier line: is that line a heading?
		start := k
		for start > 0 && r.toks[start-1].line == t.line && r.toks[start-1].kind != tkBreak {
			start--
		}
		if r.toks[start].kind == tkPunct && r.toks[start].text == "#" {
			var found *group
			for gi := range r.groups {
				g := &r.groups[gi]
				if g.from >= start && g.to <= k+1 {
					if found != nil {
						return nil
					}
					found = g
				}
			}
			return found
		}
		line = t.line
		k = start
	}
	return nil
}

// ordinalWords are the ordinals read as words.
var ordinalWords = func() map[string]int {
	m := map[string]int{}
	for i, w := range []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
		"tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
		"eighteenth", "nineteenth", "twentieth"} {
		m[w] = i + 1
	}
	for i, w := range []string{"thirtieth", "fortieth", "fiftieth"} {
		m[w] = 30 + 10*i
	}
	return m
}()

// tens are the tens before a hyphenated ordinal ("twenty-first").
var tens = map[string]int{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
	"eighty": 80, "ninety": 90}

// frameNouns follow an ordinal that ranks frames.
var frameNouns = map[string]bool{"frame": true, "frames": true, "cell": true, "cells": true, "polygon": true,
	"square": true, "tile": true, "area": true}
