package report

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"frameindex/area"
	"frameindex/insight"
	"frameindex/plan"
	"frameindex/state"
)

// Report is one area's report: its figures beside its parent's and the
// country's, a breakdown by the next level down, the sources, the
// sentences and the map.
type Report struct {
	Area    *AreaFigures
	Parent  *AreaFigures // nil for the country, a state without a readable parent, or when none was found
	Country *AreaFigures // nil when the area is the country
	// Breakdown is by the next level down the key reads; nil when none.
	Breakdown *Breakdown
	Sources   []Source
	// LeftOff are the per-query datasets left off the report.
	LeftOff []state.Dataset
	// Sentences are the engine's headlines of the area's figures (the
	// deterministic wording); Wording a model's wording the claim check
	// kept, "" without a model or when it was discarded.
	Sentences []string
	Wording   string
	Map       *Map
	Notes     []string
	Made      time.Time
}

// Source is a dataset a figure of the report read.
type Source struct {
	ID, Name, Owner string
	Version         int
	// Licence is how the key's organisation reads it: "own dataset" or
	// "licensed (subscription)".
	Licence string
	// Citation is the dataset's recorded source (its provider and
	// licence, as imported); "" when none was recorded.
	Citation   string
	ImportedAt time.Time
}

// BuildOptions choose the map's measure and the report's clock.
type BuildOptions struct {
	// Measure colours the map's frames: one of MapMeasures ("" is
	// "density").
	Measure string
	Now     time.Time
}

// Build makes the report of the area spec names, as r reads. Errors:
// *area.Error (invalid, not_found) for the area or the measure, the
// store's, or the context's.
func Build(ctx context.Context, r *Reader, spec area.Spec, o BuildOptions) (*Report, error) {
	measure, err := mapMeasure(o.Measure)
	if err != nil {
		return nil, err
	}
	a, err := r.Resolve(spec)
	if err != nil {
		return nil, err
	}
	rep := &Report{LeftOff: r.LeftOff, Made: o.Now}
	if rep.Made.IsZero() {
		rep.Made = time.Now()
	}
	b, inp, err := r.breakdown(ctx, a)
	if err != nil {
		return nil, err
	}
	rep.Breakdown = b
	if rep.Area, err = r.figures(ctx, a, inp); err != nil {
		return nil, err
	}
	if a.Kind != "country" {
		if rep.Country, err = r.countryFigures(ctx); err != nil {
			return nil, err
		}
		if rep.Parent, err = r.parentFigures(ctx, a, inp); err != nil {
			return nil, err
		}
	}
	rep.Sentences = rep.Area.Sentences()
	if r.e.Word != nil && len(rep.Sentences) > 0 {
		rep.Wording = r.e.Word(ctx, r.Key, rep.Area.merged())
	}
	rep.Sources = r.sources(rep)
	if rep.Map, err = r.drawMap(a, spec, inp, measure); err != nil {
		return nil, err
	}
	if b == nil && len(nextLevels(a.Kind)) > 0 {
		rep.Notes = append(rep.Notes, "No breakdown: no boundary dataset this key reads records "+strings.Join(nextLevels(a.Kind), " or ")+"s.")
	}
	return rep, nil
}

// Sentences are the headlines of the engine's answers behind the main
// figures, in order, each once (the coverage beyond each distance is
// left out: its within answer says the same).
func (f *AreaFigures) Sentences() []string {
	var out []string
	for _, ans := range f.Answers {
		if ans.Headline == "" || ans.Confidence == insight.ConfidenceUnknown || strings.Contains(ans.Headline, " more than ") && ans.Intent == insight.IntentCoverage {
			continue
		}
		if !slices.Contains(out, ans.Headline) {
			out = append(out, ans.Headline)
		}
	}
	return out
}

// merged is the area's answers as one Insight for the wording step: the
// sentences as its headline, every facet and figure of every answer.
func (f *AreaFigures) merged() insight.Insight {
	m := insight.Insight{Intent: "report", Headline: strings.Join(f.Sentences(), " "), Confidence: insight.ConfidenceExact,
		Register: insight.RegisterPlain, Format: "report"}
	for _, ans := range f.Answers {
		if ans.Confidence == insight.ConfidenceUnknown {
			continue
		}
		m.Facets = append(m.Facets, ans.Facets...)
		m.Figures = append(m.Figures, ans.Figures...)
		m.Sources = append(m.Sources, ans.Sources...)
		m.Used = append(m.Used, ans.Used...)
		if ans.Confidence == insight.ConfidencePartial {
			m.Confidence = insight.ConfidencePartial
		}
	}
	return m
}

// countryFigures are the country's figures.
func (r *Reader) countryFigures(ctx context.Context) (*AreaFigures, error) {
	a, err := r.Resolve(area.Spec{Place: "national"})
	if err != nil {
		return nil, err
	}
	return r.cachedFigures(ctx, a)
}

// maxCachedFigures bounds the places whose figures an Engine keeps.
const maxCachedFigures = 256

// cachedFigures are the figures of a place (the country, a parent),
// computed once per set of readable dataset versions and measures: the
// country and the states are the slowest areas a report reads, and every
// report of their LGAs reads them again.
func (r *Reader) cachedFigures(ctx context.Context, a *area.Area) (*AreaFigures, error) {
	var key strings.Builder
	for _, acc := range r.ans.Access {
		key.WriteString(acc.Dataset.ID + "@" + strconv.Itoa(acc.Dataset.Version) + "\x00")
	}
	m := r.M
	for _, s := range []string{m.Population.Dataset, m.Population.Attribute, m.Buildings.Dataset, m.Buildings.Attribute,
		m.Settlement.Dataset, m.Settlement.Attribute, m.Facilities, a.Kind, a.Dataset, a.Name, a.Parent} {
		key.WriteString(s + "\x00")
	}
	r.e.mu.Lock()
	f := r.e.figures[key.String()]
	r.e.mu.Unlock()
	if f != nil {
		return f, nil
	}
	f, err := Figures(ctx, r, a)
	if err != nil {
		return nil, err
	}
	r.e.mu.Lock()
	if r.e.figures == nil || len(r.e.figures) >= maxCachedFigures {
		r.e.figures = map[string]*AreaFigures{}
	}
	r.e.figures[key.String()] = f
	r.e.mu.Unlock()
	return f, nil
}

// parentFigures are the figures of the place a lies in: a place's parent
// as its boundary dataset records it, or, for a drawn area, the state
// holding most of its frames. nil when there is none the key reads.
func (r *Reader) parentFigures(ctx context.Context, a *area.Area, inp *input) (*AreaFigures, error) {
	var spec area.Spec
	switch {
	case a.Place != nil && a.Place.Parent != "" && a.Kind != "state":
		spec = area.Spec{Place: a.Place.Parent, Kind: a.Place.ParentKind}
	case a.Place == nil:
		ds, attr, ok := r.cat.LevelSource("state")
		if !ok {
			return nil, nil
		}
		st := plan.Measure{Dataset: ds, Attribute: attr, Match: "name"}
		in := inp.in
		if col, ok := r.column(st, a); ok {
			in.Columns = append(slices.Clip(in.Columns), col)
		}
		groups := insight.Compute(&plan.Plan{Agg: plan.AggCount, Group: &plan.Group{Measure: st}}, &in).Result.Groups
		top, most := "", 0
		for _, g := range groups {
			if g.Frames > most {
				top, most = g.Key, g.Frames
			}
		}
		if top == "" {
			return nil, nil
		}
		spec = area.Spec{Place: top, Kind: "state"}
	default:
		return nil, nil
	}
	p, err := r.Resolve(spec)
	if err != nil {
		// The parent a dataset names may not resolve (another dataset
		// spells it differently): the report goes on without it.
		return nil, nil
	}
	return r.cachedFigures(ctx, p)
}

// column reads one category column over a's frames.
func (r *Reader) column(m plan.Measure, a *area.Area) (insight.Column, bool) {
	for _, acc := range r.ans.Access {
		if acc.Dataset.ID != m.Dataset {
			continue
		}
		dc, err := r.e.Columns.Dataset(r.e.Scanner, acc.Dataset)
		if err != nil {
			return insight.Column{}, false
		}
		return dc.Column(m.Attribute, dc.Positions(r.cat.Frames(a).IDs))
	}
	return insight.Column{}, false
}

// sources lists the datasets the report's figures read: the figures'
// datasets, the area's boundaries and the breakdown's.
func (r *Reader) sources(rep *Report) []Source {
	ids := map[string]bool{}
	for _, f := range []*AreaFigures{rep.Area, rep.Parent, rep.Country} {
		if f == nil {
			continue
		}
		for _, id := range f.Used {
			ids[id] = true
		}
		if f.Area.Dataset != "" {
			ids[f.Area.Dataset] = true
		}
	}
	if rep.Breakdown != nil {
		ids[rep.Breakdown.Dataset] = true
	}
	var out []Source
	for _, acc := range r.ans.Access {
		d := acc.Dataset
		if !ids[d.ID] {
			continue
		}
		lic := "own dataset"
		if d.Owner != r.Key.OrgID {
			lic = "licensed (subscription)"
		}
		if r.Key.OrgID == "" {
			lic = "read by the operator"
		}
		out = append(out, Source{ID: d.ID, Name: d.Name, Owner: d.Owner, Version: d.Version, Licence: lic, Citation: d.Source, ImportedAt: d.ImportedAt})
	}
	return out
}
