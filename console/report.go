package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"frameindex/area"
	"frameindex/report"
	"frameindex/state"
)

// Place reports (issue 25): GET /console/report with an area in the query
// (place and kind, bbox, around and radius, or compare) is the report's
// page, self-contained and printable, as a link a member can share with
// another member of the organisation; without one it is a form. The
// report reads what the person's Explore key reads (the organisation's
// datasets, as the API's readability rules give them); per-query
// datasets are left off the page with a note, so a report spends no
// credits and a GET changes nothing.

// reportRoutes registers the report's pages.
func (s *Server) reportRoutes() {
	s.mux.HandleFunc("GET /console/report", s.authed(s.handleReport, false))
}

// reportForm is what the form page shows.
type reportForm struct {
	Place, Kind, BBox, Around, Radius, Compare, Measure string
	Measures                                            []string
	Error                                               string
	Available                                           bool
}

// handleReport shows the report of the area the query names, the
// comparison (CSV with format=csv), or the form.
func (s *Server) handleReport(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := reportForm{Place: q.Get("place"), Kind: q.Get("kind"), BBox: q.Get("bbox"), Around: q.Get("around"), Radius: q.Get("radius"),
		Compare: q.Get("compare"), Measure: q.Get("measure"), Measures: report.MapMeasures, Available: s.reports != nil}
	if !f.Available || (f.Place == "" && f.BBox == "" && f.Around == "" && f.Compare == "" && q.Get("geometry") == "" && q.Get("frames") == "") {
		s.reportFormPage(w, r, http.StatusOK, f)
		return
	}
	req, err := reportRequest(q)
	if err == nil {
		var key state.Key
		if key, err = s.reportKey(r); err == nil {
			var buf bytes.Buffer
			if err = s.reports.Make(r.Context(), key, req, &buf); err == nil {
				s.writeReport(w, req, buf.Bytes())
				return
			}
		}
	}
	var ae *area.Error
	if !errors.As(err, &ae) {
		s.fail(w, r, err)
		return
	}
	f.Error = ae.Message
	status := http.StatusBadRequest
	if ae.Code == area.CodeNotFound {
		status = http.StatusNotFound
	}
	s.reportFormPage(w, r, status, f)
}

// writeReport sends a report's page or a comparison's CSV. The page is
// self-contained: its style is inline (the console's pages take theirs
// from this server only), and it runs no script.
func (s *Server) writeReport(w http.ResponseWriter, req report.Request, body []byte) {
	h := w.Header()
	if req.Format == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
		h.Set("Content-Disposition", `attachment; filename="comparison.csv"`)
	} else {
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	}
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// reportFormPage shows the form, with an error when one is given.
func (s *Server) reportFormPage(w http.ResponseWriter, r *http.Request, status int, f reportForm) {
	p := s.newPage(r, "Place report", "explore")
	p.Data = f
	s.render(w, r, status, "report", p)
}

// reportKey is the key a report reads as: the person's Explore key, or,
// before they have one, their organisation's readability (a key minted
// for them with the full preset reads the same datasets).
func (s *Server) reportKey(r *http.Request) (state.Key, error) {
	key, err := s.exploreKey(r, false)
	if errors.Is(err, state.ErrNotFound) {
		rq := requestOf(r)
		return state.Key{ID: "console-report", Name: consoleKeyName(rq.user), OrgID: rq.org, Member: rq.user}, nil
	}
	return key, err
}

// reportRequest reads a report's query: place (with kind), bbox
// (W,S,E,N), geometry (GeoJSON), frames (up to 50 ids), around
// (lon,lat) with radius, or compare (places separated
// by commas, a kind after a colon); measure; facilities (a features
// dataset's id); format=csv for a comparison.
func reportRequest(q url.Values) (report.Request, error) {
	req := report.Request{Measure: q.Get("measure"), Format: q.Get("format"), Facilities: q.Get("facilities")}
	bad := func(msg string) error { return &area.Error{Code: area.CodeInvalid, Message: msg} }
	nums := func(v string, n int, what string) ([]float64, error) {
		parts := strings.Split(v, ",")
		if len(parts) != n {
			return nil, bad(what + " must be " + strconv.Itoa(n) + " numbers separated by commas")
		}
		out := make([]float64, n)
		for i, p := range parts {
			x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return nil, bad(what + ": " + strconv.Quote(p) + " is not a number")
			}
			out[i] = x
		}
		return out, nil
	}
	switch {
	case q.Get("compare") != "":
		for _, p := range strings.Split(q.Get("compare"), ",") {
			name, kind, _ := strings.Cut(strings.TrimSpace(p), ":")
			if name != "" {
				req.Areas = append(req.Areas, area.Spec{Place: name, Kind: kind})
			}
		}
		if len(req.Areas) < 2 || len(req.Areas) > report.MaxCompare {
			return req, bad("a comparison holds 2 to " + strconv.Itoa(report.MaxCompare) + " places separated by commas; it names " + strconv.Itoa(len(req.Areas)))
		}
	case q.Get("place") != "":
		req.Areas = []area.Spec{{Place: q.Get("place"), Kind: q.Get("kind")}}
	case q.Get("bbox") != "":
		b, err := nums(q.Get("bbox"), 4, "bbox (minLon,minLat,maxLon,maxLat)")
		if err != nil {
			return req, err
		}
		req.Areas = []area.Spec{{BBox: b}}
	case q.Get("frames") != "":
		// The selection of up to 50 frames, by id.
		for _, v := range strings.Split(q.Get("frames"), ",") {
			id, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return req, bad("frames are frame ids separated by commas; " + strconv.Quote(v) + " is not a frame id")
			}
			if len(req.Areas) == 0 {
				req.Areas = []area.Spec{{}}
			}
			req.Areas[0].Frames = append(req.Areas[0].Frames, id)
		}
		if n := len(req.Areas[0].Frames); n > area.MaxSelection {
			return req, bad("a report of frames is of 1 to " + strconv.Itoa(area.MaxSelection) + " frames; the link names " + strconv.Itoa(n))
		}
	case q.Get("geometry") != "":
		// A drawn shape: the question call's own check of the member.
		b, err := json.Marshal(map[string]json.RawMessage{"geometry": json.RawMessage(q.Get("geometry"))})
		if err != nil {
			return req, bad("geometry must be a GeoJSON Polygon or MultiPolygon in WGS 84 longitude and latitude; it is not JSON")
		}
		s, err := area.Decode(b)
		if err != nil {
			return req, err
		}
		req.Areas = []area.Spec{s}
	case q.Get("around") != "":
		c, err := nums(q.Get("around"), 2, "around (lon,lat)")
		if err != nil {
			return req, err
		}
		rad, err := strconv.ParseFloat(q.Get("radius"), 64)
		if err != nil {
			return req, bad("around goes with radius, a number of km (more than 0, at most 100)")
		}
		req.Areas = []area.Spec{{Around: c, RadiusKm: rad}}
	}
	return req, nil
}
