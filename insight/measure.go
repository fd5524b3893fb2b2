package insight

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Aggregation kinds of a measure.
const (
	kindSum = iota
	kindMean
	kindMode
)

// cell is one frame's value of a measure.
type cell struct {
	ok  bool
	num float64
	str string
}

// nameCount is one distinct value of a category measure and its frames.
type nameCount struct {
	name  string
	count int
}

// calc is one measure computed over the known frames.
type calc struct {
	ref     attrRef
	d       *Dataset
	a       *Attribute
	kind    int
	cells   []cell // per known frame
	records int    // frames with a value
	total   float64
	mean    float64
	hi, lo  int         // frames (indexes) of the first highest and lowest value
	counts  []nameCount // kindMode: most frames first, then first seen
}

// figure is the measure's figure over the selection: total or mean.
func (c *calc) figure() float64 {
	if c.kind == kindMean {
		return c.mean
	}
	return c.total
}

// kindOf is how an attribute aggregates: a numeric attribute by its
// aggregation (sum unless it says mean or mode), anything else by mode.
func kindOf(at *Attribute) int {
	if !isNumeric(*at) {
		return kindMode
	}
	switch at.Aggregation {
	case "mean":
		return kindMean
	case "mode":
		return kindMode
	}
	return kindSum
}

// compute reads one measure off the known frames.
func (a *answerer) compute(r attrRef) *calc {
	d := &a.m.ds[r.d]
	at := &d.Attributes[r.a]
	c := &calc{ref: r, d: d, a: at, kind: kindOf(at), cells: make([]cell, len(a.known)), hi: -1, lo: -1}
	index := map[string]int{}
	for i, f := range a.known {
		v, ok := f.Data[d.ID].Attrs[at.Name]
		if !ok {
			continue
		}
		if c.kind == kindMode {
			s := valueText(v)
			if s == "" {
				continue
			}
			c.cells[i] = cell{ok: true, str: s}
			c.records++
			if k, ok := index[s]; ok {
				c.counts[k].count++
			} else {
				index[s] = len(c.counts)
				c.counts = append(c.counts, nameCount{s, 1})
			}
			continue
		}
		x, ok := valueNumber(v)
		if !ok {
			continue
		}
		c.cells[i] = cell{ok: true, num: x, str: FormatNumber(x)}
		c.records++
		c.total += x
		if c.hi < 0 || x > c.cells[c.hi].num {
			c.hi = i
		}
		if c.lo < 0 || x < c.cells[c.lo].num {
			c.lo = i
		}
	}
	if c.records > 0 {
		c.mean = c.total / float64(c.records)
		a.used[r.d] = true
		a.source(r)
	}
	sort.SliceStable(c.counts, func(i, j int) bool { return c.counts[i].count > c.counts[j].count })
	return c
}

// valueNumber reads a number, from a number or from text holding one.
func valueNumber(v Value) (float64, bool) {
	x := v.Num
	if !v.IsNum {
		var err error
		if x, err = strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

// valueText reads a category: text as stored, trimmed, or a number shown.
func valueText(v Value) string {
	if v.IsNum {
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return ""
		}
		return FormatNumber(v.Num)
	}
	return strings.TrimSpace(v.Str)
}
