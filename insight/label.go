package insight

import (
	"strconv"
	"strings"
)

// datasetName is a dataset's name, or its id when it has none.
func datasetName(d *Dataset) string {
	if d.Name != "" {
		return d.Name
	}
	return d.ID
}

// labelOf is an attribute's label, or its name when it has none.
func labelOf(at *Attribute) string {
	if at.Label != "" {
		return at.Label
	}
	return strings.ReplaceAll(at.Name, "_", " ")
}

// yearSuffix is " (2020)" for a measure of a year, else "".
func yearSuffix(at *Attribute) string {
	if at.Year > 0 {
		return " (" + strconv.Itoa(at.Year) + ")"
	}
	return ""
}

// withUnit is a figure for a facet: "48,210 people", "1 facility",
// "12.5 nW/cm²/sr".
func withUnit(v float64, at *Attribute) string {
	u := strings.TrimSpace(at.Unit)
	switch {
	case u == "":
		return FormatNumber(v)
	case v == 1:
		u = singularPhrase(u)
	}
	return FormatNumber(v) + " " + u
}

// proseUnit is the unit in a sentence, left out where the label already
// says it ("an estimated population of 48,210", not "... 48,210 people").
func proseUnit(at *Attribute) string {
	u := strings.TrimSpace(at.Unit)
	if u == "" {
		return ""
	}
	switch strings.ToLower(u) {
	case "people", "persons", "person", "count", "number":
		return ""
	}
	lw := words(labelOf(at))
	for _, w := range words(u) {
		if containsPhrase(lw, []string{w}) {
			return ""
		}
	}
	return " " + u
}

// verbIs is "is", or "are" for a label naming countable things.
func verbIs(at *Attribute) string {
	if isCountLabel(labelOf(at)) {
		return "are"
	}
	return "is"
}
