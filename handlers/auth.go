package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"frameindex/state"
)

// KeyLookup finds the key for a presented secret. *state.Keyring implements
// it. Lookup must be safe for concurrent use and must not block on I/O (it
// runs on every request). It returns state.ErrUnknownKey, state.ErrExpiredKey or
// state.ErrRevokedKey for a bad key (401 invalid_key); any other error is a
// server failure (500 internal).
type KeyLookup interface {
	Lookup(secret string, now time.Time) (state.Key, error)
}

// keyPrefix starts every API key (spec, Authentication).
const keyPrefix = "svc_sk_"

// principalKey is the context key of the authenticated key.
type principalKey struct{}

// withPrincipal returns ctx carrying the authenticated key. Requests that
// went through the middleware carry it in their reqInfo instead, which costs
// no new context and request copy on the hot path.
func withPrincipal(ctx context.Context, k state.Key) context.Context {
	return context.WithValue(ctx, principalKey{}, k)
}

// principalOf returns the key that authenticated the request, if any: from
// the request's reqInfo when it went through the middleware, otherwise from
// its context.
func principalOf(w http.ResponseWriter, r *http.Request) (state.Key, bool) {
	if info := infoOf(w); info != nil && info.hasKey {
		return info.key, true
	}
	k, ok := r.Context().Value(principalKey{}).(state.Key)
	return k, ok
}

// requireKey wraps next with the checks that come before any parameter is
// read, in the order of docs/contract.md §6: a credential (401), the meter of
// invalid keys (429), the key's and organisation's buckets (429), then the
// capability (403). The key is put in the request context for next.
func (s *Server) requireKey(c state.Capability, next http.HandlerFunc) http.HandlerFunc {
	return s.requireKeyFor(c, false, next)
}

// requireKeyFor is requireKey for a call that may also spend from the
// insight bucket (spec, Limits: POST /v1/frames/insight is metered "in
// addition to the two above"): with insight set, the key's, organisation's
// and insight buckets are asked in one limiter call, before the capability
// is checked.
func (s *Server) requireKeyFor(c state.Capability, insight bool, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, err := s.authenticate(r)
		if err != nil {
			if isInvalidKey(err) {
				if merr := s.meterInvalid(w, r); merr != nil {
					err = merr
				}
			}
			s.writeError(w, r, err)
			return
		}
		info := infoOf(w)
		if info != nil {
			info.keyID = key.ID
		}
		if err := s.meterKey(w, r, key.ID, key.OrgID, insight); err != nil {
			s.writeError(w, r, err)
			return
		}
		if !key.Has(c) {
			s.writeError(w, r, newError(codeInsufficientScope,
				"this key lacks the "+string(c)+" capability; mint a key whose preset grants it"))
			return
		}
		if info != nil {
			info.key, info.hasKey = key, true
			next(w, r)
			return
		}
		next(w, r.WithContext(withPrincipal(r.Context(), key)))
	}
}

// Messages that show the expected form of the credential.
const (
	bearerHint   = `send it as "Authorization: Bearer svc_sk_..."`
	noKeyMessage = "this call needs an API key: " + bearerHint
)

// authenticate reads the key from the Authorization header, the only place a
// key is read from, and looks it up. It returns an apiError with code
// unauthorized when no credential was sent and invalid_key when one was sent
// but is not a valid key; errors of the KeyLookup are returned as they are
// (see KeyLookup). Messages never echo the key.
func (s *Server) authenticate(r *http.Request) (state.Key, error) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 || (len(vals) == 1 && strings.TrimSpace(vals[0]) == "") {
		// ServeAs drops the header, so only a request without one can be
		// its: requests with a key do not pay for the context lookup.
		if k, ok := behalfOf(r); ok { // ServeAs checked the key
			return k, nil
		}
		if where := misplacedKey(r); where != "" {
			return state.Key{}, newError(codeUnauthorized,
				"an API key was sent in "+where+", where keys are not read; "+bearerHint)
		}
		return state.Key{}, newError(codeUnauthorized, noKeyMessage)
	}
	if len(vals) > 1 {
		return state.Key{}, newError(codeInvalidKey, "send exactly one Authorization header")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if strings.EqualFold(scheme, "Basic") && isOGC(r) { // see OGC
		var err error
		if token, err = basicKey(token); err != nil {
			return state.Key{}, err
		}
		scheme = "Bearer"
	}
	if !strings.EqualFold(scheme, "Bearer") {
		msg := "the Authorization header must use the Bearer scheme: " + bearerHint
		if isToken(scheme) {
			msg = "the Authorization header uses the " + scheme + " scheme, but API keys use Bearer: " + bearerHint
		}
		return state.Key{}, newError(codeInvalidKey, msg)
	}
	token = strings.Trim(token, " \t")
	if token == "" {
		return state.Key{}, newError(codeInvalidKey, `the Authorization header holds no key after "Bearer": `+bearerHint)
	}
	if !strings.HasPrefix(token, keyPrefix) {
		return state.Key{}, newError(codeInvalidKey, "the API key is not valid: API keys begin with "+keyPrefix)
	}
	keys := s.keys()
	if keys == nil {
		return state.Key{}, errNoKeys
	}
	return keys.Lookup(token, s.now())
}

// isToken reports whether a scheme name is short letters only, safe to echo
// (a key pasted without a scheme is not).
func isToken(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Query parameters and headers where people put API keys by mistake.
var (
	keyParams  = []string{"key", "api_key", "apikey", "api-key", "access_token", "token"}
	keyHeaders = []string{"X-Api-Key", "Api-Key"}
)

// misplacedKey names where a key was sent other than the Authorization
// header ("the query parameter \"api_key\"", "the X-API-Key header"), or
// returns "" when it finds none. It names the place, never the value.
func misplacedKey(r *http.Request) string {
	for _, h := range keyHeaders {
		if r.Header.Get(h) != "" {
			return "the " + h + " header"
		}
	}
	for _, p := range parseQuery(r.URL.RawQuery) {
		for _, name := range keyParams {
			if strings.EqualFold(p.key, name) {
				return `the query parameter "` + name + `"`
			}
		}
		if strings.Contains(p.value, keyPrefix) || strings.Contains(p.key, keyPrefix) {
			return "the query string"
		}
	}
	return ""
}
