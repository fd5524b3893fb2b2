package console

import (
	"net/http"
	"strings"
	"testing"

	"frameindex/state"
)

// The fake API answers the area calls as ServeAs does, with the call's
// name as its path.
func (f *fakeAPI) ServeAreaQuote(w http.ResponseWriter, r *http.Request, key state.Key) {
	r.URL.Path = "quote"
	f.ServeAs(w, r, key)
}

func (f *fakeAPI) ServeAreaBeyond(w http.ResponseWriter, r *http.Request, key state.Key) {
	r.URL.Path = "beyond"
	f.ServeAs(w, r, key)
}

// TestExplore_AreaCalls: the quote and the frames beyond are answered by
// the API on behalf of the person's Explore key, with the body as sent
// and without the browser's cookie, only for the page's own POST (the
// CSRF token) and a body of at most 256 KiB.
func TestExplore_AreaCalls(t *testing.T) {
	f, api, c, key, csrf := exploreSession(t)
	body := `{"area":{"around":[7.45,9.05],"radiusKm":2},"question":"How many people live more than 5 km from a clinic?"}`
	for _, call := range []string{"quote", "beyond"} {
		post := func(b, token string) (*http.Response, string) {
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/console/explore/area/"+call, strings.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("X-CSRF-Token", token)
			}
			return c.do(req)
		}
		before := api.count()
		if res, b := post(body, ""); res.StatusCode != http.StatusForbidden || api.count() != before {
			t.Errorf("%s without the CSRF token: %d %.200s, API calls %d", call, res.StatusCode, b, api.count()-before)
		}
		if res, b := post(`{"question":"`+strings.Repeat("a", 300<<10)+`"}`, csrf); res.StatusCode != http.StatusBadRequest || apiError(t, b) != "invalid_body" || api.count() != before {
			t.Errorf("%s too large: %d %.200s", call, res.StatusCode, b)
		}
		res, b := post(body, csrf)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %.300s", call, res.StatusCode, b)
		}
		got := api.last(t)
		if got.path != call || got.key.ID != key.ID || got.body != body || got.cookie != "" || got.auth != "" || got.contentType != "application/json" {
			t.Errorf("%s reached the API as %+v", call, got)
		}
	}
}
