package report

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"time"

	"frameindex/area"
	"frameindex/insight"
	"frameindex/state"
)

// MaxCompare is the most areas a comparison holds.
const MaxCompare = 20

// Comparison is up to MaxCompare areas' figures side by side.
type Comparison struct {
	Areas   []*AreaFigures
	LeftOff []state.Dataset
	Sources []Source
	Made    time.Time
}

// Compare computes the figures of each area specs name, as r reads.
// Errors: *area.Error for fewer than 2 or more than MaxCompare areas, or
// an area that does not resolve (its message says which), the store's,
// or the context's.
func Compare(ctx context.Context, r *Reader, specs []area.Spec, now time.Time) (*Comparison, error) {
	if len(specs) < 2 || len(specs) > MaxCompare {
		return nil, &area.Error{Code: area.CodeInvalid, Message: "a comparison holds 2 to " + strconv.Itoa(MaxCompare) + " areas; it was given " + strconv.Itoa(len(specs))}
	}
	c := &Comparison{LeftOff: r.LeftOff, Made: now}
	if c.Made.IsZero() {
		c.Made = time.Now()
	}
	rep := &Report{}
	for i, s := range specs {
		a, err := r.Resolve(s)
		if err != nil {
			var ae *area.Error
			if errors.As(err, &ae) {
				return nil, &area.Error{Code: ae.Code, Message: "area " + strconv.Itoa(i+1) + " of the comparison: " + ae.Message}
			}
			return nil, err
		}
		f, err := Figures(ctx, r, a)
		if err != nil {
			return nil, err
		}
		c.Areas = append(c.Areas, f)
		rep.Area = f
		c.Sources = mergeSources(c.Sources, r.sources(rep))
	}
	return c, nil
}

// mergeSources adds the sources of more not yet in have.
func mergeSources(have, more []Source) []Source {
	for _, s := range more {
		found := false
		for _, h := range have {
			found = found || h.ID == s.ID
		}
		if !found {
			have = append(have, s)
		}
	}
	return have
}

// Marks are a comparison's highlights of one metric: per area, "best",
// "worst" (a metric with a better direction), "high" or "low" (one
// without), or "".
func (c *Comparison) Marks(m Metric) []string {
	out := make([]string, len(c.Areas))
	hi, lo := -1, -1
	for i, f := range c.Areas {
		v := f.Get(m.Key)
		if !v.OK {
			continue
		}
		if hi < 0 || v.V > c.Areas[hi].Get(m.Key).V {
			hi = i
		}
		if lo < 0 || v.V < c.Areas[lo].Get(m.Key).V {
			lo = i
		}
	}
	if hi < 0 || c.Areas[hi].Get(m.Key).V == c.Areas[lo].Get(m.Key).V {
		return out
	}
	switch m.Better {
	case +1:
		out[hi], out[lo] = "best", "worst"
	case -1:
		out[lo], out[hi] = "best", "worst"
	default:
		out[hi], out[lo] = "high", "low"
	}
	return out
}

// WriteCSV writes the comparison as CSV: a row per area, a column per
// metric, unrounded (shares as 0..1); empty where a figure is unknown.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"area", "kind", "parent", "frames"}
	for _, m := range Metrics {
		head = append(head, m.Key)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, f := range c.Areas {
		row := []string{f.Area.Subject(), f.Area.Kind, f.Area.Parent, strconv.Itoa(f.Area.FrameCount)}
		for _, m := range Metrics {
			v := f.Get(m.Key)
			if v.OK {
				row = append(row, strconv.FormatFloat(v.V, 'f', -1, 64))
			} else {
				row = append(row, "")
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// compareCell is one cell of the comparison's table.
type compareCell struct {
	Text, Mark string
}

// compareView is what the comparison template reads.
type compareView struct {
	Title, Made string
	Heads       []string
	Rows        []compareRow
	C           *Comparison
	Sources     [][]string
	LeftOff     []string
}

type compareRow struct {
	Label string
	Cells []compareCell
}

// WriteHTML writes the comparison as one self-contained HTML page.
func (c *Comparison) WriteHTML(w io.Writer) error {
	v := compareView{Title: "Comparison of " + strconv.Itoa(len(c.Areas)) + " areas", C: c, Made: c.Made.UTC().Format("2 January 2006, 15:04 UTC")}
	for _, f := range c.Areas {
		v.Heads = append(v.Heads, f.Area.Subject())
	}
	v.Rows = append(v.Rows, compareRow{Label: "Frames"})
	for _, f := range c.Areas {
		v.Rows[0].Cells = append(v.Rows[0].Cells, compareCell{Text: insight.FormatFigure(float64(f.Area.FrameCount))})
	}
	for _, m := range Metrics {
		row := compareRow{Label: m.Label}
		marks := c.Marks(m)
		for i, f := range c.Areas {
			row.Cells = append(row.Cells, compareCell{Text: m.Text(f.Get(m.Key)), Mark: marks[i]})
		}
		v.Rows = append(v.Rows, row)
	}
	rep := &Report{Sources: c.Sources, LeftOff: c.LeftOff, Area: &AreaFigures{Area: &area.Area{}}}
	pv := rep.view()
	v.Sources, v.LeftOff = pv.Sources, pv.LeftOff
	return page.ExecuteTemplate(w, "compare", v)
}
