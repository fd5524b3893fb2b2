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

// MeasureText is the text embedded for an attribute: its label, name,
// aliases, unit, and its dataset's name and description, with the task
// prefix nomic-embed-text reads for documents. The handler embeds it once
// per dataset version.
func MeasureText(d Dataset, a Attribute) string {
	var b strings.Builder
	b.WriteString("search_document: ")
	b.WriteString(labelOf(&a))
	if n := strings.ReplaceAll(a.Name, "_", " "); !strings.EqualFold(n, labelOf(&a)) {
		b.WriteString(" (" + n + ")")
	}
	if len(a.Aliases) > 0 {
		b.WriteString("; also called " + strings.Join(a.Aliases, ", "))
	}
	if a.Unit != "" {
		b.WriteString("; unit " + a.Unit)
	}
	if a.Year > 0 {
		b.WriteString("; year " + strconv.Itoa(a.Year))
	}
	b.WriteString(". Dataset: " + datasetName(&d))
	if d.Description != "" {
		desc := d.Description
		if len(desc) > 600 {
			desc = desc[:600]
		}
		b.WriteString(". " + desc)
	}
	return b.String()
}
