package handlers

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"frameindex/access"
	"frameindex/area"
	"frameindex/insight"
	"frameindex/plan"
	"frameindex/state"
)

// planner holds what questions share across requests: the column cache
// (national category values: the places a question may name), the reach
// cache (nearest-feature distances) and the parser's catalogues, one per
// set of readable dataset versions. Safe for concurrent use.
type planner struct {
	cols  *access.Columns
	reach *access.Reach

	mu   sync.Mutex
	cats map[string]*catalogue
}

// maxCatalogues bounds the catalogues kept (emptied when full).
const maxCatalogues = 64

func newPlanner() *planner {
	return &planner{cols: access.NewColumns(access.DefaultColumnBytes), reach: access.NewReach(access.DefaultReachBytes),
		cats: map[string]*catalogue{}}
}

// catalogue is what questions are read against for one set of readable
// dataset versions, and the places it knows.
type catalogue struct {
	cat *plan.Catalogue
	// places maps a place name (lower case) to the category attributes
	// (state, LGA, ward) holding it.
	places map[string][]placeRef
}

// placeRef is a place name as a value of an administrative attribute.
type placeRef struct {
	dataset, attr string
}

// scanner is the data store's national reads, when it has them
// (*bolt.Store does; a test's fake store may not).
type scanner interface {
	access.RecordScanner
	access.FeatureScanner
}

// catalogueFor returns the catalogue of what ans may read. With a store
// that can scan, category values are the national ones (built once per
// dataset version through the column cache) and the catalogue is kept;
// without, they are the selection's and it is built for this request.
func (s *Server) catalogueFor(ans *access.Answer) (*catalogue, error) {
	sc, national := s.data.(scanner)
	var key strings.Builder
	for i := range ans.Access {
		if ans.State[i].LeftOut {
			continue
		}
		d := &ans.Access[i].Dataset
		key.WriteString(d.ID + "@" + strconv.Itoa(d.Version) + "\x00")
	}
	if national {
		s.plans.mu.Lock()
		c := s.plans.cats[key.String()]
		s.plans.mu.Unlock()
		if c != nil {
			return c, nil
		}
	}
	c := &catalogue{cat: &plan.Catalogue{}, places: map[string][]placeRef{}}
	for i := range ans.Access {
		if ans.State[i].LeftOut {
			continue
		}
		d := ans.Access[i].Dataset
		var dc *access.DatasetColumns
		if national && slices.ContainsFunc(d.Attributes, func(a state.Attribute) bool { return a.Type != state.TypeNumber }) {
			var err error
			if dc, err = s.plans.cols.Dataset(sc, d); err != nil {
				return nil, err
			}
		}
		for _, at := range d.Attributes {
			mi := plan.MeasureInfo{Dataset: d.ID, Attribute: at.Name, Label: at.Label, Aliases: at.Aliases, Unit: at.Unit,
				Type: at.Type, Aggregation: at.Aggregation, Year: at.Year}
			if at.Type != state.TypeNumber {
				if dc != nil {
					col, _ := dc.Column(at.Name, nil)
					mi.Values = col.Dict
				} else {
					mi.Values = selectionValues(ans, i, at.Name)
				}
			}
			switch plan.Concept(mi) {
			case plan.ConceptState, plan.ConceptLGA, plan.ConceptWard:
				for _, v := range mi.Values {
					k := strings.ToLower(v)
					c.places[k] = append(c.places[k], placeRef{d.ID, at.Name})
				}
			}
			c.cat.Measures = append(c.cat.Measures, mi)
		}
		if d.Features > 0 {
			c.cat.Features = append(c.cat.Features, plan.FeatureSet{ID: d.ID, Name: d.Name})
		}
	}
	places := c.places
	c.cat.Place = func(ws []string) (int, bool) {
		for n := min(len(ws), 4); n > 0; n-- {
			if _, ok := places[strings.ToLower(strings.Join(ws[:n], " "))]; ok {
				return n, true
			}
		}
		return 0, false
	}
	if national {
		s.plans.mu.Lock()
		if len(s.plans.cats) >= maxCatalogues {
			s.plans.cats = map[string]*catalogue{}
		}
		s.plans.cats[key.String()] = c
		s.plans.mu.Unlock()
	}
	return c, nil
}

// selectionValues are the values a category attribute takes on the
// selection's frames, first seen first.
func selectionValues(ans *access.Answer, di int, attr string) []string {
	var out []string
	for _, f := range ans.Frames {
		for _, e := range f.Entries {
			if e.Dataset != di || len(e.Attrs) == 0 {
				continue
			}
			vals, err := access.Values(e.Attrs)
			if err != nil {
				continue // the selection's input reports it
			}
			if v, ok := vals[attr]; ok && !v.IsNum && !slices.Contains(out, v.Str) {
				out = append(out, v.Str)
			}
		}
	}
	return out
}

// placeChecks resolves the places p names against the catalogue and the
// input's frames: a place is found when an administrative attribute holds
// the name (a "LGA", "State" or "Ward" after it is read as its kind), and
// in the frames when one of them holds it.
func (c *catalogue) placeChecks(p *plan.Plan, in *insight.Input) []insight.PlaceCheck {
	var out []insight.PlaceCheck
	for _, name := range p.Places {
		if area.IsCountry(name) { // every frame is in Nigeria: no restriction
			out = append(out, insight.PlaceCheck{Name: name, Found: true, InFrames: true})
			continue
		}
		refs, k := c.placeRefs(name)
		chk := insight.PlaceCheck{Name: name, Found: len(refs) > 0}
		for _, ref := range refs {
			for ci := range in.Columns {
				col := &in.Columns[ci]
				if col.Dataset != ref.dataset || col.Attr.Name != ref.attr || col.Codes == nil {
					continue
				}
				code := slices.IndexFunc(col.Dict, func(v string) bool { return strings.EqualFold(v, k) })
				if code < 0 {
					continue
				}
				var pos []int32
				for i, x := range col.Codes {
					if x == int32(code) {
						pos = append(pos, int32(i))
					}
				}
				if len(pos) > chk.Frames {
					chk.Frames, chk.Positions = len(pos), pos
				}
			}
		}
		chk.InFrames = chk.Frames > 0
		out = append(out, chk)
	}
	return out
}

// placeKinds are the words after a place name that say its kind.
var placeKinds = []string{" local government area", " lga", " state", " ward"}

// placeRefs finds a place name, with or without its kind.
func (c *catalogue) placeRefs(name string) ([]placeRef, string) {
	k := strings.ToLower(strings.TrimSpace(name))
	if refs := c.places[k]; len(refs) > 0 {
		return refs, k
	}
	for _, kind := range placeKinds {
		if base, ok := strings.CutSuffix(k, kind); ok {
			if refs := c.places[base]; len(refs) > 0 {
				return refs, base
			}
		}
	}
	return nil, k
}
