package report

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"frameindex/access"
	"frameindex/area"
	"frameindex/index"
	"frameindex/insight"
	"frameindex/plan"
	"frameindex/state"
)

// Scanner is the data file's national reads (*bolt.Store implements it).
type Scanner interface {
	access.RecordScanner
	access.FeatureScanner
}

// Engine is what reports read: the datasets of the data file and the
// caches the API's questions share (pass the same Columns, Reach and
// Places as handlers.Config, so a report reuses what questions built).
// Safe for concurrent use.
type Engine struct {
	Store   access.Store
	Scanner Scanner
	Columns *access.Columns
	Reach   *access.Reach
	Places  *area.Places
	Grid    func() *index.Index
	// Word, when set, words an area's figures with a model and returns
	// the wording only when the claim check kept it ("" otherwise); the
	// report then shows it above the deterministic sentences.
	Word func(ctx context.Context, key state.Key, ins insight.Insight) string

	mu      sync.Mutex
	figures map[string]*AreaFigures // places' figures by readable versions, measures and place (cachedFigures)
}

// ErrNoGrid is an Engine without a grid snapshot.
var ErrNoGrid = errors.New("report: no grid snapshot")

// Measures are the measures a report reads: the first readable dataset
// attribute of each concept (plan.Concept), and the features dataset of
// facilities. An empty Dataset (or Facilities) is a measure the key
// cannot read: its figures are left off.
type Measures struct {
	Population plan.Measure
	Buildings  plan.Measure
	Settlement plan.Measure
	// Facilities is the features dataset facilities are counted in and
	// distances measured to; FacilitiesName its name.
	Facilities     string
	FacilitiesName string
}

// Reader reads as one key: the datasets its organisation may read (as
// the API's access.Readable gives them), per-query ones left off.
type Reader struct {
	e   *Engine
	Key state.Key
	ans *access.Answer
	// LeftOff are the per-query datasets the key may read that the
	// report leaves off (see the package comment).
	LeftOff []state.Dataset
	cat     *area.Catalogue
	ix      *index.Index
	M       Measures
}

// Options choose what a Reader reads where a key reads more than one
// candidate.
type Options struct {
	// Facilities is the id of the features dataset of facilities; ""
	// picks the readable features dataset of health facilities with the
	// most features.
	Facilities string
}

// Reader returns a Reader for key. Errors are the store's, and an
// *area.Error (not_found) for an Options.Facilities the key cannot read.
func (e *Engine) Reader(key state.Key, o Options) (*Reader, error) {
	ix := e.Grid()
	if ix == nil {
		return nil, ErrNoGrid
	}
	ans, err := access.Readable(e.Store, key)
	if err != nil {
		return nil, err
	}
	r := &Reader{e: e, Key: key, ix: ix}
	free := &access.Answer{}
	for _, a := range ans.Access {
		if a.PerQuery {
			r.LeftOff = append(r.LeftOff, a.Dataset)
			continue
		}
		free.Access = append(free.Access, a)
		free.State = append(free.State, access.State{})
	}
	r.ans = free
	r.cat = e.Places.Catalogue(ix, free.Access)
	r.M, err = pickMeasures(free.Access, o)
	return r, err
}

// pickMeasures finds the report's measures among the readable datasets.
func pickMeasures(readable []state.Access, o Options) (Measures, error) {
	var m Measures
	most := -1
	for _, a := range readable {
		d := a.Dataset
		health := false
		for _, at := range d.Attributes {
			mi := plan.MeasureInfo{Dataset: d.ID, Attribute: at.Name, Label: at.Label, Aliases: at.Aliases, Unit: at.Unit,
				Type: at.Type, Aggregation: at.Aggregation, Year: at.Year}
			pm := plan.Measure{Dataset: d.ID, Attribute: at.Name, Match: "name"}
			num := at.Type == state.TypeNumber
			switch plan.Concept(mi) {
			case plan.ConceptPopulation:
				if num && m.Population.Dataset == "" {
					m.Population = pm
				}
			case plan.ConceptBuildings:
				if num && m.Buildings.Dataset == "" {
					m.Buildings = pm
				}
			case plan.ConceptSettlement:
				if !num && m.Settlement.Dataset == "" {
					m.Settlement = pm
				}
			case plan.ConceptHealth:
				health = true
			}
		}
		if o.Facilities != "" {
			if d.ID == o.Facilities {
				m.Facilities, m.FacilitiesName = d.ID, d.Name
			}
			continue
		}
		if health && d.Features > most {
			m.Facilities, m.FacilitiesName, most = d.ID, d.Name, d.Features
		}
	}
	if o.Facilities != "" && m.Facilities == "" {
		return m, &area.Error{Code: area.CodeNotFound, Message: "the facilities dataset " + strconv.Quote(o.Facilities) +
			" is not one this key reads without charge; name a features dataset it reads"}
	}
	return m, nil
}

// Resolve resolves an area as the question call does.
func (r *Reader) Resolve(spec area.Spec) (*area.Area, error) {
	return r.cat.Resolve(spec, "")
}

// Value is one figure: V is meaningful only when OK (the key reads its
// measure and the area records it).
type Value struct {
	V  float64
	OK bool
}

// Class is one settlement class of an area: its frames and people.
type Class struct {
	Name   string
	Frames int
	People Value
}

// CoverageKms are the distances a report's coverage is computed at.
var CoverageKms = []float64{2, 5, 10}

// Coverage is the people within and beyond Km of the nearest facility
// and the share within.
type Coverage struct {
	Km     float64
	Within Value
	Beyond Value
	Share  Value
}

// AreaFigures are the figures of one area.
type AreaFigures struct {
	Area        *area.Area
	People      Value
	Buildings   Value
	Density     Value // people per km²
	Facilities  Value
	PerFacility Value // people per facility
	Settlement  []Class
	Coverage    []Coverage
	// Answers are the engine's answers the figures come from, in the
	// order computed (for the sentences and the wording check).
	Answers []*insight.Answer
	// Used are the datasets whose values went into a figure, ascending.
	Used []string
}

// Get returns the figure of a metric (see Metrics) by key.
func (f *AreaFigures) Get(key string) Value {
	switch key {
	case "people":
		return f.People
	case "buildings":
		return f.Buildings
	case "km2":
		return Value{f.Area.Km2, true}
	case "density":
		return f.Density
	case "facilities":
		return f.Facilities
	case "people_per_facility":
		return f.PerFacility
	}
	for _, c := range f.Coverage {
		k := strconv.FormatFloat(c.Km, 'f', -1, 64)
		switch key {
		case "within_" + k + "km":
			return c.Share
		case "beyond_" + k + "km":
			return c.Beyond
		}
	}
	return Value{}
}

// input is an area's engine input, read once for every plan of a report.
type input struct {
	in insight.Input
}

// inputFor reads the frames of a and the columns of every measure of the
// report (and of group, when not empty) through the column cache.
func (r *Reader) inputFor(a *area.Area, group plan.Measure) (*input, error) {
	fr := r.cat.Frames(a)
	fs := insight.FrameSet{IDs: fr.IDs, Lon: fr.Lon, Lat: fr.Lat, AreaKm2: fr.AreaKm2, Weight: fr.Weight}
	union := &plan.Plan{Agg: plan.AggTotal}
	for _, m := range []plan.Measure{r.M.Population, r.M.Buildings, r.M.Settlement, group} {
		if m.Dataset != "" {
			union.Measures = append(union.Measures, m)
		}
	}
	var near map[string]insight.Nearness
	if r.M.Facilities != "" {
		union.Measures = append(union.Measures, plan.Measure{Dataset: r.M.Facilities, Match: "name"})
		cov := &plan.Plan{Agg: plan.AggCoverage, Distance: &plan.Distance{Feature: r.M.Facilities, Km: 5, Op: "within"}}
		var err error
		if near, err = r.ans.Near(cov, r.e.Reach, r.e.Scanner); err != nil {
			return nil, err
		}
		// Each frame's distance is searched once per dataset version
		// and kept, as the question call keeps it.
		for id, n := range near {
			for _, acc := range r.ans.Access {
				if acc.Dataset.ID == id {
					near[id] = r.e.Places.Near(r.ix, id, acc.Dataset.Version, n)
				}
			}
		}
	}
	in, err := r.ans.FrameSetInput(union, access.Question{}, fs, r.e.Columns, r.e.Scanner, near)
	if err != nil {
		return nil, err
	}
	in.Subject = a.Subject()
	if a.Partial {
		in.WeightNote = "by the share of each frame's area inside the " + map[string]string{"bbox": "box", "polygon": "polygon", "ring": "ring"}[a.Kind]
	}
	return &input{in: in}, nil
}

// value is the primary figure of an answer.
func value(ans *insight.Answer) Value {
	if ans == nil || ans.Result.Value == nil || math.IsNaN(*ans.Result.Value) || math.IsInf(*ans.Result.Value, 0) {
		return Value{}
	}
	return Value{*ans.Result.Value, true}
}

// Figures computes the figures of a as r reads them: each one an engine
// answer (insight.Compute of a typed plan) over a's frames.
func Figures(ctx context.Context, r *Reader, a *area.Area) (*AreaFigures, error) {
	inp, err := r.inputFor(a, plan.Measure{})
	if err != nil {
		return nil, err
	}
	return r.figures(ctx, a, inp)
}

func (r *Reader) figures(ctx context.Context, a *area.Area, inp *input) (*AreaFigures, error) {
	f := &AreaFigures{Area: a}
	used := map[string]bool{}
	run := func(p *plan.Plan) *insight.Answer {
		ans := insight.Compute(p, &inp.in)
		f.Answers = append(f.Answers, ans)
		for _, id := range ans.Used {
			used[id] = true
		}
		return ans
	}
	m := r.M
	if m.Population.Dataset != "" {
		f.People = value(run(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{m.Population}}))
		f.Density = value(run(&plan.Plan{Agg: plan.AggDensity, Measures: []plan.Measure{m.Population}, Per: "km2"}))
	}
	if m.Buildings.Dataset != "" {
		f.Buildings = value(run(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{m.Buildings}}))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.Settlement.Dataset != "" {
		p := &plan.Plan{Agg: plan.AggCount, Group: &plan.Group{Measure: m.Settlement}}
		if m.Population.Dataset != "" {
			p = &plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{m.Population}, Group: &plan.Group{Measure: m.Settlement}}
		}
		for _, g := range run(p).Result.Groups {
			c := Class{Name: g.Key, Frames: g.Frames}
			if g.Value != nil && m.Population.Dataset != "" {
				c.People = Value{*g.Value, true}
			}
			f.Settlement = append(f.Settlement, c)
		}
		slices.SortStableFunc(f.Settlement, func(x, y Class) int { return classOrder(x.Name) - classOrder(y.Name) })
	}
	if m.Facilities != "" {
		fac := plan.Measure{Dataset: m.Facilities, Match: "name"}
		f.Facilities = value(run(&plan.Plan{Agg: plan.AggFeatureCount, Measures: []plan.Measure{fac}}))
		if m.Population.Dataset != "" {
			f.PerFacility = value(run(&plan.Plan{Agg: plan.AggRatio, Measures: []plan.Measure{m.Population, fac}}))
			for _, km := range CoverageKms {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				c := Coverage{Km: km}
				for _, op := range []string{"within", "beyond"} {
					v := value(run(&plan.Plan{Agg: plan.AggCoverage, Measures: []plan.Measure{m.Population},
						Distance: &plan.Distance{Feature: m.Facilities, Km: km, Op: op}}))
					if op == "within" {
						c.Within = v
					} else {
						c.Beyond = v
					}
				}
				if c.Within.OK && c.Beyond.OK && c.Within.V+c.Beyond.V > 0 {
					c.Share = Value{c.Within.V / (c.Within.V + c.Beyond.V), true}
				}
				f.Coverage = append(f.Coverage, c)
			}
		}
	}
	for id := range used {
		f.Used = append(f.Used, id)
	}
	slices.Sort(f.Used)
	return f, nil
}

// classOrder orders settlement classes from the densest.
func classOrder(name string) int {
	switch strings.ToLower(name) {
	case "urban":
		return 0
	case "peri-urban":
		return 1
	case "rural":
		return 2
	case "uninhabited":
		return 3
	}
	return 4
}

// Row is one unit of a breakdown: its figures over the frames of the
// area the unit's boundaries give it.
type Row struct {
	Name        string
	Frames      int
	People      Value
	Buildings   Value
	Facilities  Value
	PerFacility Value
	Within5     Value // share of people within 5 km of a facility
}

// Breakdown is an area's figures by the units of the next level down.
type Breakdown struct {
	Level   string // "state", "lga", "ward"
	Dataset string // the boundary dataset the units come from
	Rows    []Row
}

// nextLevels are the levels a breakdown of an area of a kind is by, the
// first one the key reads.
func nextLevels(kind string) []string {
	switch kind {
	case "country":
		return []string{"state", "lga"}
	case "state":
		return []string{"lga", "ward"}
	case "lga":
		return []string{"ward"}
	case "bbox", "polygon", "ring", "frames":
		return []string{"ward", "lga"}
	}
	return nil
}

// breakdown computes a's figures by the units of the next level down
// that the key reads, or nil when it reads none.
func (r *Reader) breakdown(ctx context.Context, a *area.Area) (*Breakdown, *input, error) {
	var group plan.Measure
	b := &Breakdown{}
	for _, lvl := range nextLevels(a.Kind) {
		if ds, attr, ok := r.cat.LevelSource(lvl); ok {
			group = plan.Measure{Dataset: ds, Attribute: attr, Match: "name"}
			b.Level, b.Dataset = lvl, ds
			break
		}
	}
	inp, err := r.inputFor(a, group)
	if err != nil || group.Dataset == "" {
		return nil, inp, err
	}
	rows := map[string]*Row{}
	row := func(k string) *Row {
		if rw, ok := rows[k]; ok {
			return rw
		}
		rw := &Row{Name: k}
		rows[k] = rw
		return rw
	}
	grouped := func(p *plan.Plan, set func(*Row, insight.GroupValue)) {
		p.Group = &plan.Group{Measure: group}
		for _, g := range insight.Compute(p, &inp.in).Result.Groups {
			set(row(g.Key), g)
		}
	}
	gv := func(g insight.GroupValue) Value {
		if g.Value == nil || math.IsNaN(*g.Value) || math.IsInf(*g.Value, 0) {
			return Value{}
		}
		return Value{*g.Value, true}
	}
	m := r.M
	grouped(&plan.Plan{Agg: plan.AggCount}, func(rw *Row, g insight.GroupValue) { rw.Frames = g.Frames })
	if m.Population.Dataset != "" {
		grouped(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{m.Population}}, func(rw *Row, g insight.GroupValue) { rw.People = gv(g) })
	}
	if m.Buildings.Dataset != "" {
		grouped(&plan.Plan{Agg: plan.AggTotal, Measures: []plan.Measure{m.Buildings}}, func(rw *Row, g insight.GroupValue) { rw.Buildings = gv(g) })
	}
	if m.Facilities != "" {
		fac := plan.Measure{Dataset: m.Facilities, Match: "name"}
		grouped(&plan.Plan{Agg: plan.AggFeatureCount, Measures: []plan.Measure{fac}}, func(rw *Row, g insight.GroupValue) { rw.Facilities = gv(g) })
		if m.Population.Dataset != "" {
			grouped(&plan.Plan{Agg: plan.AggRatio, Measures: []plan.Measure{m.Population, fac}}, func(rw *Row, g insight.GroupValue) { rw.PerFacility = gv(g) })
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			var within, beyond map[string]Value = map[string]Value{}, map[string]Value{}
			for _, op := range []string{"within", "beyond"} {
				into := map[string]map[string]Value{"within": within, "beyond": beyond}[op]
				grouped(&plan.Plan{Agg: plan.AggCoverage, Measures: []plan.Measure{m.Population},
					Distance: &plan.Distance{Feature: m.Facilities, Km: 5, Op: op}}, func(rw *Row, g insight.GroupValue) { into[rw.Name] = gv(g) })
			}
			for k, w := range within {
				if b := beyond[k]; w.OK && b.OK && w.V+b.V > 0 {
					rows[k].Within5 = Value{w.V / (w.V + b.V), true}
				}
			}
		}
	}
	for _, rw := range rows {
		b.Rows = append(b.Rows, *rw)
	}
	slices.SortFunc(b.Rows, func(x, y Row) int {
		if c := cmp.Compare(y.People.V, x.People.V); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return b, inp, nil
}
