package handlers

import (
	"errors"
	"math"
	"net/http"

	"frameindex/access"
	"frameindex/area"
	"frameindex/index"
	"frameindex/insight"
	"frameindex/plan"
	"frameindex/state"
)

// Questions about an area (issue 23): POST /v1/frames/insight with
// "area" instead of "frameIds". The area is resolved into frames and the
// fraction of each that counts (package area), the question is read into
// a plan whose place lookup is the area catalogue's, and the engine
// computes over the frames' columns, with charges as for any question: a
// per-query dataset that records something on the frames and that the
// answer used is charged once.

// errNoPositions is a Config whose grid is not an *index.Index: areas need
// frame positions.
var errNoPositions = errors.New("handlers: the grid snapshot does not give frame positions (not an *index.Index)")

// errNoAreas is a Config without a place catalogue (Config.Areas nil and
// Data not a record scanner).
var errNoAreas = errors.New("handlers: no place catalogue (Config.Areas is nil)")

// areaError maps an error of package area to the API's: its code and
// message as they are; another error (a store failure) stays internal.
func areaError(err error) error {
	var ae *area.Error
	if errors.As(err, &ae) {
		return newError(ae.Code, ae.Message)
	}
	return err
}

// resolveArea resolves spec for key: the catalogue of the boundary
// datasets the key reads without charge over the current grid, and the
// area. Errors are invalid and not_found with messages from package area,
// or internal.
func (s *Server) resolveArea(readable []state.Access, spec area.Spec, question string) (*area.Catalogue, *area.Area, error) {
	fi := s.frames()
	if fi == nil {
		return nil, nil, errNoGrid
	}
	ix, ok := fi.(*index.Index)
	if !ok || ix == nil {
		return nil, nil, errNoPositions
	}
	if s.areas == nil {
		return nil, nil, errNoAreas
	}
	cat := s.areas.Catalogue(ix, readable)
	a, err := cat.Resolve(spec, question)
	if err != nil {
		return nil, nil, areaError(err)
	}
	return cat, a, nil
}

// errNoScanner is a Config without a dataset scanner for areas.
var errNoScanner = errors.New("handlers: no dataset scanner for questions about an area (Config.Scanner is nil)")

// handleAreaInsight answers a question about an area: the area resolved
// (invalid, not_found), the question read into a plan against the
// measures the key reads and the catalogue's places, a breakdown by a
// level of places grouped by the same boundaries the places come from,
// the frames' columns read through the column cache, distances through
// the nearest-feature indexes, and the answer computed and charged as
// AskPlan does. The answer carries area; frameIds only up to 50 frames.
func (s *Server) handleAreaInsight(w http.ResponseWriter, r *http.Request, key state.Key, p insightParams) {
	q, err := s.prepareArea(key, p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := q.ans.AskPlan(r.Context(), s.data, key, requestIDOf(w), s.now(), q.in,
		func(in *insight.Input) *insight.Answer { return s.compute(q.pl, in) })
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.countCharges(q.ans)
	wd := s.word(w, r, key, p, res.Insight)
	body, err := encodeAreaInsight(res, q.pl, q.area, q.ans, wd)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// areaQuestion is a question about an area made ready for the engine:
// what the key reads, the area, its catalogue and frames, the plan and
// the engine's input (nothing charged yet).
type areaQuestion struct {
	ans    *access.Answer
	cat    *area.Catalogue
	area   *area.Area
	frames *area.Frames
	pl     *plan.Plan
	near   map[string]insight.Nearness
	in     insight.Input
}

// prepareArea resolves p's area for key and reads the question into the
// engine's input, as handleAreaInsight and the console's quote need it.
// Errors are the API's (invalid, not_found) or internal.
func (s *Server) prepareArea(key state.Key, p insightParams) (*areaQuestion, error) {
	if s.data == nil {
		return nil, errNoData
	}
	if s.scanner == nil {
		return nil, errNoScanner
	}
	ans, err := access.Readable(s.data, key)
	if err != nil {
		return nil, err
	}
	cat, a, err := s.resolveArea(ans.Access, *p.area, p.question)
	if err != nil {
		return nil, err
	}
	pcat, err := s.catalogueFor(ans)
	if err != nil {
		return nil, err
	}
	pl := plan.Parse(p.question, pcat.cat)
	if p.register != "" {
		pl.Register = p.register
	}
	groupByPlaces(pl, cat)
	near, err := ans.Near(pl, s.plans.reach, s.scanner)
	if err != nil {
		return nil, err
	}
	// Each frame's distance is searched once per features dataset
	// version and kept (the whole country's coverage reads it).
	for id, n := range near {
		for _, acc := range ans.Access {
			if acc.Dataset.ID == id {
				near[id] = s.areas.Near(cat.Index(), id, acc.Dataset.Version, n)
			}
		}
	}
	fr := cat.Frames(a)
	fs := insight.FrameSet{IDs: fr.IDs, Lon: fr.Lon, Lat: fr.Lat, AreaKm2: fr.AreaKm2, Weight: fr.Weight}
	in, err := ans.FrameSetInput(pl, access.Question{Text: p.question, Format: p.format, Register: p.register}, fs, s.plans.cols, s.scanner, near)
	if err != nil {
		return nil, err
	}
	in.Subject = areaSubject(a)
	if a.Partial {
		in.WeightNote = "by the share of each frame's area inside the " + map[string]string{"bbox": "box", "polygon": "polygon", "ring": "ring"}[a.Kind]
	}
	if in.Places, err = checkPlaces(cat, pl.Places, a.Pos); err != nil {
		return nil, err
	}
	return &areaQuestion{ans: ans, cat: cat, area: a, frames: fr, pl: pl, near: near, in: in}, nil
}

// areaSubject names an area in the answer's sentences: "Dala LGA",
// "Kano State", "Nigeria", "the 5 km ring around 8.52, 12".
func areaSubject(a *area.Area) string {
	return a.Subject()
}

// groupByPlaces makes a breakdown by a level of places ("by LGA") group
// by the attribute the catalogue reads that level's places from, so the
// rows are the units a place question would find.
func groupByPlaces(pl *plan.Plan, cat *area.Catalogue) {
	if pl.Group == nil {
		return
	}
	level := area.Level(pl.Group.Measure.Attribute)
	if level == "" {
		return
	}
	if ds, attr, ok := cat.LevelSource(level); ok {
		pl.Group.Measure.Dataset, pl.Group.Measure.Attribute = ds, attr
	}
}

// encodeAreaInsight is encodeInsight's body with the area, its km² to
// 0.001, and without frameIds for more than 50 frames.
func encodeAreaInsight(res *insight.Answer, pl *plan.Plan, a *area.Area, ans *access.Answer, wd wording) ([]byte, error) {
	out := insightBody(res, pl, ans, wd)
	out.Area = shownArea(a)
	if a.FrameCount > maxInsightFrames {
		out.FrameIDs = nil
	}
	return marshalData(out)
}

// shownArea is a as answers show it: its km² to 0.001.
func shownArea(a *area.Area) *area.Area {
	shown := *a
	shown.Km2 = math.Round(a.Km2*1000) / 1000
	return &shown
}

// checkPlaces checks names against the frames at pos (ascending).
func checkPlaces(cat *area.Catalogue, names []string, pos []int32) ([]insight.PlaceCheck, error) {
	var out []insight.PlaceCheck
	for _, name := range names {
		found, in, err := cat.Check(name, pos)
		if err != nil {
			return nil, err
		}
		out = append(out, insight.PlaceCheck{Name: name, Found: found, InFrames: in})
	}
	return out, nil
}
