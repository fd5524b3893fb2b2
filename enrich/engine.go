package enrich

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"frameindex/access"
	"frameindex/area"
	"frameindex/index"
	"frameindex/state"
)

// CodeInvalid is the API's code of a request to change (spec, Errors):
// an unknown or unreadable measure, a bad radius, a bad site file.
const CodeInvalid = "invalid"

// Error is an enrichment refused: Code is the API's and Message says
// what to change.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// DefaultMeasures are the measures enriched when none are named: those of
// them the caller reads.
var DefaultMeasures = []string{"population_2020", "building_count", "facility_count"}

// DefaultNear is the features dataset distances are measured to when none
// is named (when the caller reads it).
const DefaultNear = "health"

// MaxRadii is the most rings a site gets.
const MaxRadii = 10

// nearLimitKm is how far the nearest feature is searched: farther than
// any two points of a country.
const nearLimitKm = 5000

// Config is what an Engine reads.
type Config struct {
	Index    *index.Index
	Places   *area.Places // resolves the areas; area.NewPlaces over the store
	Readable []state.Access
	Columns  *access.Columns
	Records  access.RecordScanner
	Reach    *access.Reach
	Features access.FeatureScanner

	Radii []float64 // km, each in (0, area.MaxRadiusKm]
	// Measures are attribute names ("population_2020") or
	// dataset.attribute; empty means DefaultMeasures (those readable).
	Measures []string
	// Near is the features dataset of the distance column; "" means
	// DefaultNear when readable, "-" no distance.
	Near string
	// PerQuery allows measures of per-query datasets (the caller charges
	// them by Row.Reads); without it they are refused.
	PerQuery bool
	// Polygons adds the columns of polygon sites (input formats that can
	// hold them).
	Polygons bool
}

// Measure is one measure enriched.
type Measure struct {
	Dataset  string
	Attr     string
	Label    string
	Mean     bool // its aggregation is a mean, not a sum
	PerQuery bool
	Price    int64 // per 100 frames read, for a per-query dataset

	ds    int       // index into Engine.datasets
	byPos []float64 // the value on each grid position, NaN when not recorded
}

// Engine computes the rows of sites. Safe for concurrent use once built.
type Engine struct {
	cat      *area.Catalogue
	ix       *index.Index
	radii    []float64
	measures []Measure
	datasets []dataset // the datasets of the measures
	near     *nearSearch
	polygons bool
	columns  []string
}

// dataset is one dataset the measures read: where it records something.
type dataset struct {
	ID       string
	PerQuery bool
	Price    int64
	recorded []bool // by grid position
}

type nearSearch struct {
	dataset string
	ix      interface {
		NearestKm(lon, lat, limitKm float64) float64
	}
}

// New checks cfg and builds an Engine: each measure's values by grid
// position (read once through the column cache) and the nearest-feature
// index. Errors: *Error (CodeInvalid) naming a measure no readable
// dataset records as a number, an ambiguous one, a per-query one without
// cfg.PerQuery, a bad radius or an unreadable features dataset; else the
// store's.
func New(cfg Config) (*Engine, error) {
	if cfg.Index == nil || cfg.Index.Len() == 0 {
		return nil, errors.New("enrich: the data file holds no grid")
	}
	if len(cfg.Radii) == 0 && !cfg.Polygons {
		return nil, invalid("give at least one radius (km), e.g. 2,5,10")
	}
	if len(cfg.Radii) > MaxRadii {
		return nil, invalid("%d radii: give at most %d", len(cfg.Radii), MaxRadii)
	}
	for i, r := range cfg.Radii {
		if !(r > 0 && r <= area.MaxRadiusKm) {
			return nil, invalid("radius %v km: each radius must be more than 0 and at most %d km", r, area.MaxRadiusKm)
		}
		if slices.Contains(cfg.Radii[:i], r) {
			return nil, invalid("radius %v km is given twice", r)
		}
	}
	e := &Engine{cat: cfg.Places.Catalogue(cfg.Index, nil), ix: cfg.Index, radii: slices.Clone(cfg.Radii), polygons: cfg.Polygons}
	names := cfg.Measures
	explicit := len(names) > 0
	if !explicit {
		names = DefaultMeasures
	}
	for _, name := range names {
		m, err := findMeasure(cfg.Readable, strings.TrimSpace(name), cfg.PerQuery)
		if err != nil {
			if !explicit {
				continue
			}
			return nil, err
		}
		if slices.ContainsFunc(e.measures, func(x Measure) bool { return x.Dataset == m.Dataset && x.Attr == m.Attr }) {
			return nil, invalid("measure %s is named twice", name)
		}
		e.measures = append(e.measures, m)
	}
	if len(e.measures) == 0 {
		return nil, invalid("none of the default measures (%s) is readable here: name measures, e.g. --measures %s", strings.Join(DefaultMeasures, ", "), readableNumbers(cfg.Readable))
	}
	for i := range e.measures {
		if err := e.load(cfg, &e.measures[i]); err != nil {
			return nil, err
		}
	}
	if err := e.loadNear(cfg); err != nil {
		return nil, err
	}
	e.columns = e.figureColumns()
	return e, nil
}

// findMeasure finds name ("attr" or "dataset.attr") among the numeric
// attributes of readable.
func findMeasure(readable []state.Access, name string, perQuery bool) (Measure, error) {
	if name == "" {
		return Measure{}, invalid("an empty measure name: give attribute names such as population_2020, or dataset.attribute")
	}
	dsID, attr := "", name
	if i := strings.IndexByte(name, '.'); i > 0 {
		dsID, attr = name[:i], name[i+1:]
	}
	var found []Measure
	for _, a := range readable {
		if dsID != "" && a.Dataset.ID != dsID {
			continue
		}
		for _, at := range a.Dataset.Attributes {
			if at.Name != attr {
				continue
			}
			if at.Type != state.TypeNumber {
				return Measure{}, invalid("measure %s is a %s attribute of dataset %s: enrichment sums numbers", name, at.Type, a.Dataset.ID)
			}
			label := at.Label
			if label == "" {
				label = at.Name
			}
			found = append(found, Measure{Dataset: a.Dataset.ID, Attr: at.Name, Label: label, Mean: at.Aggregation == "mean",
				PerQuery: a.PerQuery, Price: a.Dataset.Price})
		}
	}
	switch len(found) {
	case 0:
		// The same words whether the dataset is absent or not readable:
		// a refusal does not tell what others hold.
		return Measure{}, invalid("measure %s: no dataset you may read records it as a number (readable measures: %s)", name, readableNumbers(readable))
	case 1:
	default:
		var ids []string
		for _, m := range found {
			ids = append(ids, m.Dataset+"."+m.Attr)
		}
		return Measure{}, invalid("measure %s is recorded by %d datasets: name one of %s", name, len(found), strings.Join(ids, ", "))
	}
	m := found[0]
	if m.PerQuery && !perQuery {
		return Measure{}, invalid("measure %s is in dataset %s, licensed per query: enrich it with the console's enrichment job, which quotes and charges its reads", name, m.Dataset)
	}
	return m, nil
}

// readableNumbers lists the numeric attributes of readable, for messages.
func readableNumbers(readable []state.Access) string {
	var out []string
	for _, a := range readable {
		for _, at := range a.Dataset.Attributes {
			if at.Type == state.TypeNumber {
				out = append(out, a.Dataset.ID+"."+at.Name)
			}
		}
	}
	if len(out) == 0 {
		return "none"
	}
	if len(out) > 12 {
		out = append(out[:12], "…")
	}
	return strings.Join(out, ", ")
}

// load reads m's values by grid position, and its dataset's records.
func (e *Engine) load(cfg Config, m *Measure) error {
	var d state.Dataset
	for _, a := range cfg.Readable {
		if a.Dataset.ID == m.Dataset {
			d = a.Dataset
		}
	}
	dc, err := cfg.Columns.Dataset(cfg.Records, d)
	if err != nil {
		return err
	}
	recPos := make([]int32, len(dc.Frames))
	for i := range recPos {
		recPos[i] = int32(i)
	}
	col, _ := dc.Column(m.Attr, recPos)
	m.byPos = make([]float64, e.ix.Len())
	for i := range m.byPos {
		m.byPos[i] = math.NaN()
	}
	m.ds = slices.IndexFunc(e.datasets, func(x dataset) bool { return x.ID == d.ID })
	var rec []bool
	if m.ds < 0 {
		rec = make([]bool, e.ix.Len())
	}
	for i, id := range dc.Frames {
		p, ok := e.ix.Pos(id)
		if !ok {
			continue
		}
		m.byPos[p] = col.Num[i]
		if rec != nil {
			rec[p] = true
		}
	}
	if m.ds < 0 {
		m.ds = len(e.datasets)
		e.datasets = append(e.datasets, dataset{ID: d.ID, PerQuery: m.PerQuery, Price: m.Price, recorded: rec})
	}
	return nil
}

// loadNear builds the nearest-feature search.
func (e *Engine) loadNear(cfg Config) error {
	id := cfg.Near
	if id == "-" {
		return nil
	}
	explicit := id != ""
	if !explicit {
		id = DefaultNear
	}
	i := slices.IndexFunc(cfg.Readable, func(a state.Access) bool { return a.Dataset.ID == id })
	switch {
	case i < 0 && !explicit:
		return nil
	case i < 0:
		return invalid("features dataset %s: no dataset you may read has that id", id)
	case cfg.Readable[i].Dataset.Features == 0:
		if !explicit {
			return nil
		}
		return invalid("dataset %s holds no features to measure distances to", id)
	case cfg.Readable[i].PerQuery:
		if !explicit {
			return nil
		}
		return invalid("features dataset %s is licensed per query: distances to it are not part of enrichment", id)
	}
	rx, err := cfg.Reach.Index(cfg.Features, cfg.Readable[i].Dataset)
	if err != nil {
		return err
	}
	e.near = &nearSearch{dataset: id, ix: rx}
	return nil
}

// Measures are the measures enriched, in column order.
func (e *Engine) Measures() []Measure { return slices.Clone(e.measures) }

// Radii are the rings' radii, km.
func (e *Engine) Radii() []float64 { return slices.Clone(e.radii) }

// Near is the features dataset of the distance column ("" none).
func (e *Engine) Near() string {
	if e.near == nil {
		return ""
	}
	return e.near.dataset
}

// Columns are the names of the figures of a Row, in order: for each
// radius r and measure m "m_rkm"; with polygons, "m_site" for each
// measure; "nearest_D_km" with a features dataset D.
func (e *Engine) Columns() []string { return slices.Clone(e.columns) }

func (e *Engine) figureColumns() []string {
	var out []string
	for _, r := range e.radii {
		for _, m := range e.measures {
			out = append(out, m.Attr+"_"+strconv.FormatFloat(r, 'f', -1, 64)+"km")
		}
	}
	if e.polygons {
		for _, m := range e.measures {
			out = append(out, m.Attr+"_site")
		}
	}
	if e.near != nil {
		out = append(out, "nearest_"+e.near.dataset+"_km")
	}
	return out
}

// PerQuery are the per-query datasets the measures read (nil when none).
func (e *Engine) PerQuery() []string {
	var out []string
	for _, d := range e.datasets {
		if d.PerQuery {
			out = append(out, d.ID)
		}
	}
	return out
}

// Row is what a site is enriched with.
type Row struct {
	// Figures are parallel to Engine.Columns; NaN where there is no figure
	// (no frame of the area records the measure, the area is off the
	// grid, the site is not of that kind).
	Figures []float64
	// Note says why figures are missing, "" when none are.
	Note string
	// Reads are, per per-query dataset (Engine.PerQuery order), the
	// charge of this site: access.Price of the frames each area read.
	Reads []int64
}

// Enrich computes the row of s.
func (e *Engine) Enrich(s *Site) Row {
	row := Row{Figures: make([]float64, len(e.columns))}
	for i := range row.Figures {
		row.Figures[i] = math.NaN()
	}
	var pq []int
	for i, d := range e.datasets {
		if d.PerQuery {
			pq = append(pq, i)
		}
	}
	if len(pq) > 0 {
		row.Reads = make([]int64, len(pq))
	}
	if s.Note != "" {
		row.Note = s.Note
		return row
	}
	var notes []string
	k := 0
	add := func(a *area.Area, at int) {
		for mi := range e.measures {
			row.Figures[at+mi] = e.sum(&e.measures[mi], a)
		}
		for j, di := range pq {
			d := &e.datasets[di]
			n := 0
			for _, p := range a.Pos {
				if d.recorded[p] {
					n++
				}
			}
			row.Reads[j] += access.Price(d.Price, n)
		}
	}
	for _, r := range e.radii {
		if !s.Polygon {
			a, err := e.cat.Resolve(area.Spec{Around: []float64{s.Lon, s.Lat}, RadiusKm: r}, "")
			if err != nil {
				notes = append(notes, noteOf(err, fmt.Sprintf("the %v km ring", r)))
			} else {
				add(a, k)
			}
		}
		k += len(e.measures)
	}
	if e.polygons {
		if s.Polygon {
			spec, err := area.Decode(s.areaJSON())
			if err == nil {
				var a *area.Area
				if a, err = e.cat.Resolve(spec, ""); err == nil {
					add(a, k)
				}
			}
			if err != nil {
				notes = append(notes, noteOf(err, "the polygon"))
			}
		}
		k += len(e.measures)
	}
	if e.near != nil {
		if d := e.near.ix.NearestKm(s.Lon, s.Lat, nearLimitKm); !math.IsInf(d, 0) {
			row.Figures[k] = math.Round(d*1000) / 1000
		}
	}
	row.Note = strings.Join(notes, "; ")
	return row
}

// noteOf words an area's refusal for a row.
func noteOf(err error, what string) string {
	var ae *area.Error
	if errors.As(err, &ae) {
		if ae.Code == area.CodeNotFound {
			return what + " covers no frame of the grid"
		}
		return what + ": " + ae.Message
	}
	return what + ": " + err.Error()
}

// sum is m over a as the question engine computes it: Σ weight·value over
// the frames that record m (NaN when none does), or the weighted mean.
func (e *Engine) sum(m *Measure, a *area.Area) float64 {
	s, w, n := 0.0, 0.0, 0
	for i, p := range a.Pos {
		v := m.byPos[p]
		if v != v {
			continue
		}
		n++
		wi := 1.0
		if a.Weights != nil {
			wi = a.Weights[i]
		}
		if a.Weights == nil {
			s += v
		} else {
			s += wi * v
		}
		w += wi
	}
	switch {
	case n == 0:
		return math.NaN()
	case m.Mean:
		return s / w
	}
	return s
}
