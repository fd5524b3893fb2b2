package handlers

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

func TestServer_Auth(t *testing.T) {
	s, logs := testServer(t, abuja)
	const okQuery = "/v1/frames/at?lat=9.0765&lon=7.3986"
	const bearer = `Bearer`
	const invalidToken = `Bearer error="invalid_token"`
	tests := []struct {
		name      string
		target    string
		header    http.Header
		status    int
		code      string // "" for success
		wwwAuth   string
		fragments []string
	}{
		{name: "valid key", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretGood}}, status: 200},
		{name: "scheme is case-insensitive", target: okQuery, header: http.Header{"Authorization": {"bEARER " + secretGood}}, status: 200},
		{name: "spaces around the key", target: okQuery, header: http.Header{"Authorization": {"Bearer   " + secretGood + " "}}, status: 200},
		{name: "valid key on the box call", target: "/v1/frames?ids=1", header: http.Header{"Authorization": {"Bearer " + secretGood}}, status: 200},

		{name: "no credential", target: okQuery, status: 401, code: codeUnauthorized, wwwAuth: bearer,
			fragments: []string{"needs an API key", "Authorization: Bearer"}},
		{name: "blank Authorization header", target: okQuery, header: http.Header{"Authorization": {"  "}},
			status: 401, code: codeUnauthorized, wwwAuth: bearer},
		{name: "key in a query parameter", target: okQuery + "&api_key=" + secretGood, status: 401, code: codeUnauthorized, wwwAuth: bearer,
			fragments: []string{`the query parameter "api_key"`, "Authorization"}},
		{name: "key in access_token", target: okQuery + "&ACCESS_TOKEN=x", status: 401, code: codeUnauthorized,
			fragments: []string{`"access_token"`}},
		{name: "key as any query value", target: okQuery + "&ids=" + secretGood, status: 401, code: codeUnauthorized,
			fragments: []string{"the query string"}},
		{name: "key in X-API-Key", target: okQuery, header: http.Header{"X-Api-Key": {secretGood}}, status: 401, code: codeUnauthorized,
			fragments: []string{"X-Api-Key header", "Authorization"}},
		{name: "key in Api-Key", target: okQuery, header: http.Header{"Api-Key": {secretGood}}, status: 401, code: codeUnauthorized,
			fragments: []string{"Api-Key header"}},

		{name: "Basic scheme", target: okQuery, header: http.Header{"Authorization": {"Basic dXNlcjpwYXNz"}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"uses the Basic scheme", "Bearer"}},
		{name: "key without a scheme", target: okQuery, header: http.Header{"Authorization": {secretGood}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"must use the Bearer scheme"}},
		{name: "Bearer without a key", target: okQuery, header: http.Header{"Authorization": {"Bearer"}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"holds no key"}},
		{name: "Bearer and spaces", target: okQuery, header: http.Header{"Authorization": {"Bearer    "}}, status: 401, code: codeInvalidKey},
		{name: "not an svc_sk_ key", target: okQuery, header: http.Header{"Authorization": {"Bearer sk_live_abc"}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"begin with svc_sk_"}},
		{name: "unknown key", target: okQuery, header: http.Header{"Authorization": {"Bearer svc_sk_nobodyhasthiskeynobodyhasthiskey"}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"not recognised"}},
		{name: "expired key", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretExpired}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"expired"}},
		{name: "revoked key", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretRevoked}}, status: 401, code: codeInvalidKey, wwwAuth: invalidToken,
			fragments: []string{"revoked"}},
		{name: "two Authorization headers", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretGood, "Bearer " + secretGood}}, status: 401, code: codeInvalidKey,
			fragments: []string{"exactly one Authorization header"}},
		{name: "bad key and a key in the query", target: okQuery + "&key=" + secretGood, header: http.Header{"Authorization": {"Bearer svc_sk_wrong"}}, status: 401, code: codeInvalidKey},

		{name: "missing capability", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretNoCap}}, status: 403, code: codeInsufficientScope,
			fragments: []string{"this key lacks the frame.read capability"}},
		{name: "missing capability on the box call", target: "/v1/frames?bbox=1,2,3,4", header: http.Header{"Authorization": {"Bearer " + secretNoCap}}, status: 403, code: codeInsufficientScope,
			fragments: []string{"frame.read"}},
		{name: "keyring failure is internal", target: okQuery, header: http.Header{"Authorization": {"Bearer " + secretBroken}}, status: 500, code: codeInternal},

		// Check order: credential, then capability, then parameters.
		{name: "401 before 400", target: "/v1/frames/at?lat=abc", status: 401, code: codeUnauthorized},
		{name: "invalid key before 400", target: "/v1/frames?bbox=x", header: http.Header{"Authorization": {"Bearer svc_sk_x"}}, status: 401, code: codeInvalidKey},
		{name: "403 before 400", target: "/v1/frames?bbox=x", header: http.Header{"Authorization": {"Bearer " + secretNoCap}}, status: 403, code: codeInsufficientScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.target, nil)
			for k, v := range tt.header {
				r.Header[k] = v
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if tt.code == "" {
				env := decode(t, w)
				if w.Code != tt.status || env.Error != nil {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
				return
			}
			wantError(t, w, tt.status, tt.code, tt.fragments...)
			if got := w.Header().Get("WWW-Authenticate"); tt.wwwAuth != "" && got != tt.wwwAuth {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wwwAuth)
			}
			if tt.status != 401 && w.Header().Get("WWW-Authenticate") != "" {
				t.Errorf("WWW-Authenticate on a %d", tt.status)
			}
			if echoedKey.MatchString(w.Body.String()) {
				t.Errorf("the body echoes a key: %s", w.Body)
			}
		})
	}
	for _, secret := range []string{secretGood, secretNoCap, secretExpired, secretRevoked} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds the secret %s", secret)
		}
	}
}

// echoedKey matches a key in a body; the hints "svc_sk_..." do not.
var echoedKey = regexp.MustCompile(`svc_sk_[A-Za-z0-9]`)

func TestServer_AuthPrincipal(t *testing.T) {
	// The handler behind requireKey finds the key in its context, and Lookup
	// gets the server's clock.
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	var gotNow time.Time
	keys := &fakeKeys{LookupFn: func(secret string, at time.Time) (state.Key, error) {
		gotNow = at
		return state.Key{ID: "key_p", Caps: []state.Capability{state.CapFrameRead}}, nil
	}}
	s := New(Config{Keys: func() KeyLookup { return keys }, Now: func() time.Time { return now }})
	var got state.Key
	var ok bool
	h := s.requireKey(state.CapFrameRead, func(w http.ResponseWriter, r *http.Request) {
		got, ok = principalOf(w, r)
	})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer svc_sk_p")
	h(httptest.NewRecorder(), r)
	if !ok || got.ID != "key_p" || !gotNow.Equal(now) {
		t.Errorf("principal %+v %v, lookup at %v", got, ok, gotNow)
	}
	if _, ok := principalOf(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil)); ok {
		t.Error("principal in an empty context")
	}
}

func TestServer_NoKeys(t *testing.T) {
	s := New(Config{Frames: func() FrameIndex { return abuja }})
	wantError(t, get(s, "/v1/frames/at?lat=9&lon=7", secretGood), http.StatusInternalServerError, codeInternal)
}
