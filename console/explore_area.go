package console

import (
	"net/http"

	"frameindex/state"
)

// Explore's questions about areas (issue 23, parts 6 and 8): a place
// found with "Find a place", the frames in view, a drawn polygon or a
// ring around a clicked point (console/assets/static/explore-area.js).
// The question itself is the API's question call with "area"
// (handleExploreAsk); before a question that reads a per-query dataset
// runs, the page asks the API what it would cost (the quote), and after
// a coverage answer, which frames of the area lie beyond the distance
// (to highlight them). Both are answered by the API's handlers on
// behalf of the person's key, as the question is.

// AreaCalls are the API's calls about an area that are not routes of
// the API; *handlers.Server implements them.
type AreaCalls interface {
	ServeAreaQuote(w http.ResponseWriter, r *http.Request, key state.Key)
	ServeAreaBeyond(w http.ResponseWriter, r *http.Request, key state.Key)
}

func (s *Server) exploreAreaRoutes() {
	m := s.mux
	m.HandleFunc("POST /console/explore/area/quote", s.authed(s.areaCall(AreaCalls.ServeAreaQuote), false))
	m.HandleFunc("POST /console/explore/area/beyond", s.authed(s.areaCall(AreaCalls.ServeAreaBeyond), false))
}

// areaCall returns a handler that hands a question body (the CSRF token
// in X-CSRF-Token, checked by authed) to one of the AreaCalls.
func (s *Server) areaCall(call func(AreaCalls, http.ResponseWriter, *http.Request, state.Key)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ac, ok := s.explore.api.(AreaCalls)
		if !ok {
			writeJSONError(w, http.StatusServiceUnavailable, "unavailable", "this server's API does not answer questions about areas")
			return
		}
		body, ok := readQuestionBody(w, r)
		if !ok {
			return
		}
		s.serveVia(w, r, http.MethodPost, "/v1/frames/insight", "", body, func(w http.ResponseWriter, r *http.Request, k state.Key) {
			call(ac, w, r, k)
		})
	}
}
