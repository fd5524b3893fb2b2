package handlers

import (
	"context"
	"net/http"
	"slices"

	"frameindex/grid"
	"frameindex/plan"
	"frameindex/state"
)

// Two calls the console's Explore map makes about an area besides the
// question itself (issue 23, parts 6 and 8). They are not routes of the
// API (the spec's body gains only "area"): the console hands them the
// body of a question on behalf of the person's key, as ServeAs does, and
// they pass the same key checks (credential, the key's and
// organisation's buckets, the ask capability). Neither charges anything
// nor tells anything a charged read would.
//
// ServeAreaQuote says what the question would cost before it runs: the
// per-query datasets its answer would use and, by access.Price, their
// credits for the frames of the area each records something on, which
// is what the question call then charges. ServeAreaBeyond gives the
// frames of a coverage question's area that lie beyond its distance, for
// the map to highlight.

// ServeAreaQuote answers {"data": {"area", "reads", "credits"}} for a
// question body with an area (see above).
func (s *Server) ServeAreaQuote(w http.ResponseWriter, r *http.Request, key state.Key) {
	s.serveConsole(w, r, key, s.handleAreaQuote)
}

// ServeAreaBeyond answers {"data": {"frames", "boxes", "truncated",
// "km", "feature"}} for a coverage question body with an area (see
// above).
func (s *Server) ServeAreaBeyond(w http.ResponseWriter, r *http.Request, key state.Key) {
	s.serveConsole(w, r, key, s.handleAreaBeyond)
}

// serveConsole runs h on behalf of key behind the key checks of the
// question call, within the request budget.
func (s *Server) serveConsole(w http.ResponseWriter, r *http.Request, key state.Key, h http.HandlerFunc) {
	if err := key.Active(s.now()); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeoutCause(context.WithValue(r.Context(), behalfKey{}, key), s.timeout, errBudgetSpent)
	defer cancel()
	r2 := r.WithContext(ctx)
	r2.Header = r.Header.Clone()
	r2.Header.Del("Authorization")
	s.requireKey(state.CapAskQuery, h).ServeHTTP(w, r2)
}

// quoteRead is a per-query dataset a question would read.
type quoteRead struct {
	Dataset string `json:"dataset"`
	Name    string `json:"name"`
	Frames  int    `json:"frames"`
	Credits int64  `json:"credits"`
}

// readAreaQuestion decodes a question body that must name an area and
// prepares it.
func (s *Server) readAreaQuestion(w http.ResponseWriter, r *http.Request) (*areaQuestion, bool) {
	p, err := readInsightBody(w, r)
	if err == nil && p.area == nil {
		err = newError(codeInvalid, "this call is about an area: send area, as for a question about one")
	}
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	key, ok := principalOf(w, r)
	if !ok {
		s.writeError(w, r, errNoPrincipal)
		return nil, false
	}
	q, err := s.prepareArea(key, p)
	if err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return q, true
}

func (s *Server) handleAreaQuote(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readAreaQuestion(w, r)
	if !ok {
		return
	}
	// The answer is computed, not charged and not shown, so that the
	// datasets quoted are exactly those the answer would use (a profile
	// uses every dataset that records something; "population" only one).
	var used []string
	if slices.ContainsFunc(q.ans.Access, func(a state.Access) bool { return a.PerQuery }) {
		used = s.compute(q.pl, &q.in).Used
	}
	reads := []quoteRead{}
	var total int64
	for _, a := range q.ans.UsedPerQuery(used) {
		name := a.ID
		for _, acc := range q.ans.Access {
			if acc.Dataset.ID == a.ID && acc.Dataset.Name != "" {
				name = acc.Dataset.Name
			}
		}
		reads = append(reads, quoteRead{Dataset: a.ID, Name: name, Frames: a.Frames, Credits: a.Price})
		total = satAdd(total, a.Price)
	}
	body, err := marshalData(map[string]any{"area": shownArea(q.area), "reads": reads, "credits": total})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// satAdd is a + b, saturating at the largest int64 (access.Price does).
func satAdd(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// maxBeyondBoxes bounds the frames ServeAreaBeyond lists: a state's
// worth (Kano has 25,478 frames), about 1 MB of JSON.
const maxBeyondBoxes = 30_000

func (s *Server) handleAreaBeyond(w http.ResponseWriter, r *http.Request) {
	q, ok := s.readAreaQuestion(w, r)
	if !ok {
		return
	}
	d := q.pl.Distance
	if d == nil || d.Km <= 0 || d.Feature == "" || (q.pl.Agg == plan.AggFeatureCount && d.Op == "") {
		s.writeError(w, r, newError(codeInvalid, `the question asks no distance to highlight: ask "more than 5 km from a health facility"`))
		return
	}
	near := q.near[d.Feature]
	for _, acc := range q.ans.Access {
		if acc.Dataset.ID == d.Feature && acc.PerQuery {
			// Distances to a per-query dataset's features are charged
			// when an answer uses them; frame by frame they would be a
			// free read of its positions.
			s.writeError(w, r, newError(codeInvalid, "dataset "+d.Feature+" is licensed to your organisation per query: the map does not show frame by frame distances to its features; the answer's figures are charged as usual"))
			return
		}
	}
	if near == nil {
		s.writeError(w, r, newError(codeNotFound, "dataset "+d.Feature+" is not readable by this key"))
		return
	}
	out := struct {
		Feature   string       `json:"feature"`
		Km        float64      `json:"km"`
		Frames    int          `json:"frames"`
		Truncated bool         `json:"truncated,omitempty"`
		Boxes     [][4]float64 `json:"boxes"`
	}{Feature: d.Feature, Km: d.Km, Boxes: [][4]float64{}}
	fr := q.frames
	ix := q.cat.Index()
	for i := range fr.IDs {
		if fr.Weight != nil && fr.Weight[i] <= 0 {
			continue
		}
		if near.NearestKm(fr.Lon[i], fr.Lat[i], d.Km) <= d.Km {
			continue
		}
		out.Frames++
		if len(out.Boxes) == maxBeyondBoxes {
			out.Truncated = true
			continue
		}
		var b grid.Box
		if ix.Polygons() {
			b = ix.ShapeAt(int(q.area.Pos[i])).Box
		} else {
			row, col, _ := grid.RowCol(fr.IDs[i])
			b = grid.CellBox(row, col)
		}
		out.Boxes = append(out.Boxes, [4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat})
	}
	body, err := marshalData(out)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}
