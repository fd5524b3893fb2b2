package insight

import (
	"strings"
)

// metricCalc is a measure as a question derives it (itself, its density
// or its ratio to another), computed over the known frames.
type metricCalc struct {
	spec  metricSpec
	x, y  *calc
	unit  string    // density: PerKm2 or PerHectare
	cells []cell    // per known frame: the derived value
	areas []float64 // per known frame: area in the density's unit (0: unknown)

	records int     // frames with a derived value
	value   float64 // the selection's figure
	ok      bool    // value was computed
	area    float64 // density: the area of the frames it covers
	covered int     // frames the selection's figure covers
	noArea  int     // density: frames recording x whose area is unknown
}

// areaFactor converts km² to the unit.
func areaFactor(unit string) float64 {
	if unit == PerHectare {
		return 100
	}
	return 1
}

// unitText is how an area unit is shown: "km²", "ha".
func unitText(unit string) string {
	if unit == PerHectare {
		return "ha"
	}
	return "km²"
}

// unitWord is the unit after "per": "km²", "hectare".
func unitWord(unit string) string {
	if unit == PerHectare {
		return "hectare"
	}
	return "km²"
}

// computeMetric computes x (and y) derived as spec says, over the known
// frames.
func (a *answerer) computeMetric(x match, spec metricSpec, unit string) *metricCalc {
	mc := &metricCalc{spec: spec, x: a.compute(x.ref), unit: unit, cells: make([]cell, len(a.known))}
	switch spec.kind {
	case metricPlain:
		copy(mc.cells, mc.x.cells)
		mc.records, mc.covered = mc.x.records, mc.x.records
		if mc.x.records > 0 && mc.x.kind != kindMode {
			mc.value, mc.ok = mc.x.figure(), true
		}
	case metricDensity:
		f := areaFactor(unit)
		mc.areas = make([]float64, len(a.known))
		total := 0.0
		for i, fr := range a.known {
			mc.areas[i] = fr.AreaKm2 * f
			if !mc.x.cells[i].ok {
				continue
			}
			if !(fr.AreaKm2 > 0) {
				mc.noArea++
				continue
			}
			v := mc.x.cells[i].num / mc.areas[i]
			mc.cells[i] = cell{ok: true, num: v, str: FormatNumber(v)}
			mc.records++
			total += mc.x.cells[i].num
			mc.area += mc.areas[i]
		}
		mc.covered = mc.records
		if mc.area > 0 {
			mc.value, mc.ok = total/mc.area, true
		}
	case metricRatio:
		mc.y = a.compute(spec.y.ref)
		for i := range a.known {
			xc, yc := mc.x.cells[i], mc.y.cells[i]
			if !xc.ok || !yc.ok || yc.num == 0 {
				continue
			}
			v := xc.num / yc.num * spec.scale
			mc.cells[i] = cell{ok: true, num: v, str: FormatNumber(v)}
			mc.records++
		}
		mc.covered = mc.records
		if mc.x.records > 0 && mc.y.records > 0 && mc.y.total != 0 {
			mc.value, mc.ok = mc.x.total/mc.y.total*spec.scale, true
		}
	}
	return mc
}

// over is the metric's figure over the frames in sel: a total or mean of
// the measure, or its density or ratio over those frames; covered counts
// the frames of sel the figure covers.
func (mc *metricCalc) over(sel []bool) (v float64, covered int, ok bool) {
	switch mc.spec.kind {
	case metricDensity:
		num, area := 0.0, 0.0
		for i, in := range sel {
			if in && mc.cells[i].ok {
				num += mc.x.cells[i].num
				area += mc.areas[i]
				covered++
			}
		}
		return safeDiv(num, area), covered, area > 0
	case metricRatio:
		xs, ys := 0.0, 0.0
		xn, yn := 0, 0
		for i, in := range sel {
			if !in {
				continue
			}
			if mc.x.cells[i].ok {
				xs += mc.x.cells[i].num
				xn++
			}
			if mc.y.cells[i].ok {
				ys += mc.y.cells[i].num
				yn++
			}
			if mc.x.cells[i].ok || mc.y.cells[i].ok {
				covered++
			}
		}
		return safeDiv(xs, ys) * mc.spec.scale, covered, xn > 0 && yn > 0 && ys != 0
	}
	sum, n := 0.0, 0
	for i, in := range sel {
		if in && mc.x.cells[i].ok {
			sum += mc.x.cells[i].num
			n++
		}
	}
	if mc.x.kind == kindMean {
		return safeDiv(sum, float64(n)), n, n > 0
	}
	return sum, n, n > 0
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// label is the metric's name for facets and table columns: "Estimated
// population", "Estimated population density", "Density of buildings",
// "Health facilities per 100,000 people".
func (mc *metricCalc) label() string {
	l := labelOf(mc.x.a)
	switch mc.spec.kind {
	case metricDensity:
		if isCountLabel(l) {
			return "Density of " + lowerLabel(l)
		}
		return l + " density"
	case metricRatio:
		return l + " per " + perWhat(mc.y.a, mc.spec.scale)
	}
	return l
}

// unitSuffix is the unit a metric's values are shown with: " people per
// km²", " nW/cm²/sr", "" for a ratio.
func (mc *metricCalc) unitSuffix(v float64) string {
	switch mc.spec.kind {
	case metricDensity:
		return " " + countNoun(mc.x.a, v) + " per " + unitWord(mc.unit)
	case metricRatio:
		return ""
	}
	u := strings.TrimSpace(mc.x.a.Unit)
	if u == "" {
		return ""
	}
	if v == 1 {
		u = singularPhrase(u)
	}
	return " " + u
}

// show is a value of the metric with its unit: "567.8 people per km²".
func (mc *metricCalc) show(v float64) string { return FormatNumber(v) + mc.unitSuffix(v) }

// columnLabel is the metric's table column: its label and, for a density,
// the unit ("Estimated population density (per km²)").
func (mc *metricCalc) columnLabel() string {
	if mc.spec.kind == metricDensity {
		return mc.label() + " (per " + unitWord(mc.unit) + ")"
	}
	return mc.label()
}

// years is " (2020)" for the years of the metric's measures, "" when none.
func (mc *metricCalc) years() string {
	var ys []string
	seen := map[int]bool{}
	for _, c := range []*calc{mc.x, mc.y} {
		if c != nil && c.a.Year > 0 && !seen[c.a.Year] {
			seen[c.a.Year] = true
			ys = append(ys, yearSuffix(c.a)[2:len(yearSuffix(c.a))-1])
		}
	}
	if len(ys) == 0 {
		return ""
	}
	return " (" + joinAnd(ys, "and") + ")"
}

// countNoun is what a measure counts, for "people per km²": its unit, or
// its label in lower case; singular for exactly 1.
func countNoun(at *Attribute, v float64) string {
	noun := strings.TrimSpace(at.Unit)
	if noun == "" {
		noun = lowerLabel(labelOf(at))
	}
	if v == 1 {
		return singularPhrase(noun)
	}
	return noun
}

// perWhat is a ratio's denominator: "building", "person", "health
// facility", "100,000 people".
func perWhat(y *Attribute, scale float64) string {
	noun := lowerLabel(labelOf(y))
	if !isCountLabel(labelOf(y)) {
		if u := strings.TrimSpace(y.Unit); u == "people" || (u != "" && isPluralWord(u)) {
			noun = u
		}
	}
	if scale == 1 {
		return singularPhrase(noun)
	}
	return FormatNumber(scale) + " " + noun
}
