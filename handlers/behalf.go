package handlers

import (
	"context"
	"net/http"

	"frameindex/state"
)

// behalfKey is the context key of the key a request is served on behalf
// of (ServeAs). Its type is unexported, so only ServeAs can set it: no
// request from the network carries it.
type behalfKey struct{}

// ServeAs answers r as if key had authenticated it: the secret is not
// read (there is none; any Authorization header is dropped), and
// everything else happens as for any request: routing, the request id and
// access-log line (with the key's id), the per-request budget, the key's
// expiry and revocation (401 invalid_key), its and its organisation's rate
// limits (429), the call's capability (403), the datasets the key reads,
// per-query charges and their ledger entries, answers' allowances. The
// web application uses it to serve a signed-in person's map and questions
// through a key of their organisation whose secret it never kept.
//
// The caller vouches for key: pass one read from the store (bolt.Store.Key)
// just before, so that a revocation applies from the next request. r is
// not modified. Safe for concurrent use.
func (s *Server) ServeAs(w http.ResponseWriter, r *http.Request, key state.Key) {
	r2 := r.WithContext(context.WithValue(r.Context(), behalfKey{}, key))
	if len(r.Header.Values("Authorization")) > 0 {
		r2.Header = r.Header.Clone()
		r2.Header.Del("Authorization")
	}
	if err := key.Active(s.now()); err != nil {
		// Answered here, not by requireKey: a key the caller chose is
		// not a guessed secret, so the meter of invalid keys is not spent.
		s.track(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.writeError(w, r, err) })).ServeHTTP(w, r2)
		return
	}
	s.handler.ServeHTTP(w, r2)
}

// behalfOf returns the key r is served on behalf of (ServeAs), if any.
func behalfOf(r *http.Request) (state.Key, bool) {
	k, ok := r.Context().Value(behalfKey{}).(state.Key)
	return k, ok
}
