package report

import (
	_ "embed"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"frameindex/insight"
)

//go:embed report.css
var css string

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(css) },
}).Parse(pageText))

// Metric is one row of the key figures and one row of a comparison.
type Metric struct {
	Key, Label string
	// Additive figures add up over areas: beside another area they show
	// as a share of it; the others (densities, ratios, shares) as an
	// index (this area's value per 100 of the other's).
	Additive bool
	// Better is +1 when more is better, -1 when less is, 0 when neither
	// (a comparison marks the highest and lowest, not the best and
	// worst).
	Better int
	// Percent shows a 0..1 share as a percentage.
	Percent bool
}

// Metrics are the key figures, in the order shown.
var Metrics = []Metric{
	{Key: "km2", Label: "Area (km²)", Additive: true},
	{Key: "people", Label: "People", Additive: true},
	{Key: "buildings", Label: "Buildings", Additive: true},
	{Key: "density", Label: "People per km²"},
	{Key: "facilities", Label: "Health facilities", Additive: true, Better: +1},
	{Key: "people_per_facility", Label: "People per facility", Better: -1},
	{Key: "within_2km", Label: "Share of people within 2 km of a facility", Better: +1, Percent: true},
	{Key: "within_5km", Label: "Share of people within 5 km of a facility", Better: +1, Percent: true},
	{Key: "within_10km", Label: "Share of people within 10 km of a facility", Better: +1, Percent: true},
	{Key: "beyond_5km", Label: "People more than 5 km from a facility", Additive: true, Better: -1},
}

// Text is a metric's value as the page shows it: the engine's figure
// (insight.FormatFigure), a share as a percentage; "–" when unknown.
func (m Metric) Text(v Value) string {
	if !v.OK {
		return "–"
	}
	if m.Percent {
		return Percent(v.V)
	}
	return insight.FormatFigure(v.V)
}

// Percent writes a 0..1 share as a percentage to three significant
// figures, at most one decimal past the unit under 100 ("34.2%").
func Percent(share float64) string {
	if math.IsNaN(share) || math.IsInf(share, 0) {
		return "–"
	}
	p := share * 100
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	case p >= 1:
		return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64) + "%"
	}
	return insight.FormatFigure(p) + "%"
}

// Relative is a's figure beside b's: a share ("12.3% of it") for an
// additive metric, an index ("index 87") for the others; "" when either
// is unknown or b is 0.
func (m Metric) Relative(a, b Value) string {
	if !a.OK || !b.OK || b.V == 0 {
		return ""
	}
	if m.Additive {
		return Percent(a.V / b.V)
	}
	return "index " + strconv.Itoa(int(math.Round(a.V/b.V*100)))
}

// figureRow is one row of the key figures table.
type figureRow struct {
	Label, Value, Parent, ParentRel, Country, CountryRel string
}

// view is what the page template reads.
type view struct {
	Title, Subtitle, Made string
	R                     *Report
	Rows                  []figureRow
	HasParent, HasCountr  bool
	ParentName            string
	Classes               [][]string
	Coverage              [][]string
	BreakdownHead         []string
	Breakdown             [][]string
	Sources               [][]string
	LeftOff               []string
}

// WriteHTML writes the report as one self-contained HTML page: inline
// CSS and SVG, no script, nothing fetched.
func (rep *Report) WriteHTML(w io.Writer) error {
	return page.ExecuteTemplate(w, "report", rep.view())
}

func (rep *Report) view() view {
	a := rep.Area.Area
	v := view{Title: "Place report: " + a.Subject(), R: rep, Made: rep.Made.UTC().Format("2 January 2006, 15:04 UTC")}
	v.Subtitle = kindWords(a.Kind)
	if a.Parent != "" {
		v.Subtitle += ", " + a.Parent
	}
	v.Subtitle += " · " + insight.FormatFigure(float64(a.FrameCount)) + " frames · " + insight.FormatFigure(a.Km2) + " km²"
	if a.Partial {
		v.Subtitle += " · frames on the edge count by the part inside"
	}
	v.HasParent, v.HasCountr = rep.Parent != nil, rep.Country != nil
	if rep.Parent != nil {
		v.ParentName = rep.Parent.Area.Subject()
	}
	for _, m := range Metrics {
		val := rep.Area.Get(m.Key)
		row := figureRow{Label: m.Label, Value: m.Text(val)}
		if rep.Parent != nil {
			pv := rep.Parent.Get(m.Key)
			row.Parent, row.ParentRel = m.Text(pv), m.Relative(val, pv)
		}
		if rep.Country != nil {
			cv := rep.Country.Get(m.Key)
			row.Country, row.CountryRel = m.Text(cv), m.Relative(val, cv)
		}
		v.Rows = append(v.Rows, row)
	}
	people := rep.Area.People
	for _, c := range rep.Area.Settlement {
		share := ""
		if c.People.OK && people.OK && people.V > 0 {
			share = Percent(c.People.V / people.V)
		}
		v.Classes = append(v.Classes, []string{c.Name, insight.FormatFigure(float64(c.Frames)), Metric{}.Text(c.People), share})
	}
	for i, c := range rep.Area.Coverage {
		row := []string{insight.FormatFigure(c.Km) + " km", Metric{}.Text(c.Within), Metric{}.Text(c.Beyond), Metric{Percent: true}.Text(c.Share)}
		for _, o := range []*AreaFigures{rep.Parent, rep.Country} {
			if o != nil && i < len(o.Coverage) {
				row = append(row, Metric{Percent: true}.Text(o.Coverage[i].Share))
			} else if o != nil {
				row = append(row, "–")
			}
		}
		v.Coverage = append(v.Coverage, row)
	}
	if b := rep.Breakdown; b != nil {
		v.BreakdownHead = []string{kindWords(b.Level), "Frames", "People", "Buildings", "Health facilities", "People per facility", "Within 5 km"}
		for _, r := range b.Rows {
			v.Breakdown = append(v.Breakdown, []string{r.Name, insight.FormatFigure(float64(r.Frames)), Metric{}.Text(r.People), Metric{}.Text(r.Buildings),
				Metric{}.Text(r.Facilities), Metric{}.Text(r.PerFacility), Metric{Percent: true}.Text(r.Within5)})
		}
	}
	for _, s := range rep.Sources {
		when := ""
		if !s.ImportedAt.IsZero() {
			when = s.ImportedAt.UTC().Format("2006-01-02")
		}
		v.Sources = append(v.Sources, []string{s.Name + " (" + s.ID + ")", strconv.Itoa(s.Version), s.Owner, s.Licence, s.Citation, when})
	}
	for _, d := range rep.LeftOff {
		v.LeftOff = append(v.LeftOff, d.Name+" ("+d.ID+")")
	}
	return v
}

// kindWords names a kind of area for a heading.
func kindWords(kind string) string {
	switch kind {
	case "lga":
		return "LGA"
	case "state", "ward", "country", "ring", "polygon":
		return strings.ToUpper(kind[:1]) + kind[1:]
	case "bbox":
		return "Box"
	}
	return kind
}
