package handlers

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"frameindex/limiter"
	"frameindex/state"
)

func TestServer_ServeAs(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	active := state.Key{ID: "key_console", OrgID: "org1", Caps: []state.Capability{state.CapFrameRead}, Expires: now.Add(time.Hour)}
	revoked := active
	revoked.Revoked = now.Add(-time.Minute)
	expired := active
	expired.Expires = now
	const point = "/v1/frames/at?lat=9.0765&lon=7.3986"
	tests := []struct {
		name    string
		key     state.Key
		method  string
		target  string
		header  http.Header
		refuse  bool // the limiter refuses
		status  int
		code    string
		metered bool
	}{
		{name: "active key answers", key: active, target: point, status: 200, metered: true},
		{name: "an Authorization header is ignored", key: active, target: point,
			header: http.Header{"Authorization": {"Bearer " + secretRevoked}}, status: 200, metered: true},
		{name: "revoked key", key: revoked, target: point, status: 401, code: codeInvalidKey},
		{name: "expired key", key: expired, target: point, status: 401, code: codeInvalidKey},
		{name: "rate limited as any request", key: active, target: point, refuse: true, status: 429, code: codeRateLimited, metered: true},
		{name: "capability checked", key: active, method: http.MethodPost, target: "/v1/frames/insight", status: 403, code: codeInsufficientScope, metered: true},
		{name: "bad input is the spec's error", key: active, target: "/v1/frames/at?lat=x&lon=7", status: 400, code: "invalid_point", metered: true},
		{name: "unknown path", key: active, target: "/v1/nothing", status: 404, code: codeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := &fakeLimiter{
				RequestFn: func(string, string, bool) (limiter.Decision, error) {
					return limiter.Decision{Allowed: !tc.refuse, State: limiter.State{Limit: 60, Remaining: 1, Reset: time.Second, RetryAfter: time.Second}}, nil
				},
				InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
					t.Error("ServeAs spent the meter of invalid keys")
					return limiter.Decision{Allowed: true}, nil
				},
			}
			var logs bytes.Buffer
			lookups := 0
			s := New(Config{
				Frames: func() FrameIndex { return abuja },
				Keys: func() KeyLookup {
					return &fakeKeys{LookupFn: func(string, time.Time) (state.Key, error) {
						lookups++
						return state.Key{}, state.ErrUnknownKey
					}}
				},
				Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
				Now:     func() time.Time { return now },
				Limiter: lim,
			})
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			r := httptest.NewRequest(method, tc.target, strings.NewReader(`{"frameIds":["1"]}`))
			for k, v := range tc.header {
				r.Header[k] = v
			}
			w := httptest.NewRecorder()
			s.ServeAs(w, r, tc.key)
			if tc.code != "" {
				wantError(t, w, tc.status, tc.code)
			} else if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if lookups != 0 {
				t.Errorf("the secret lookup ran %d times", lookups)
			}
			if got := len(lim.requests) > 0; got != tc.metered {
				t.Errorf("metered = %v, want %v (%v)", got, tc.metered, lim.requests)
			}
			if tc.metered && lim.requests[0] != "key_console/org1" {
				t.Errorf("metered as %v", lim.requests)
			}
			if len(tc.header) > 0 && r.Header.Get("Authorization") == "" {
				t.Error("ServeAs modified the caller's request")
			}
			line := accessLine(t, &logs, w.Header().Get("X-Request-Id"))
			if tc.status != 401 && tc.code != codeNotFound && line["key"] != "key_console" {
				t.Errorf("access line without the key: %v", line)
			}
		})
	}
}

// TestServer_NoBehalfFromTheNetwork: a request served normally, without a
// key, is refused whatever it carries; only ServeAs skips the secret.
func TestServer_NoBehalfFromTheNetwork(t *testing.T) {
	s, _ := testServer(t, abuja)
	wantError(t, get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", ""), 401, codeUnauthorized)
}

// TestServer_ServeAsCharges: a data call served on behalf of a key reads
// and charges as one with its secret: the key's organisation and id, the
// request id, and charged/leftOut in the answer.
func TestServer_ServeAsCharges(t *testing.T) {
	tests := []struct {
		name    string
		balance int64
		charged []string
		left    int
	}{
		{"charged", 10, []string{"paid"}, 0},
		{"left out", 1, nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testStore(tc.balance)
			fake := m.fake()
			s, _ := dataServer(t, fake)
			key := state.Key{ID: "key_console", OrgID: "org1", Caps: []state.Capability{state.CapFrameRead}, Expires: dataNow.Add(time.Hour)}
			w := httptest.NewRecorder()
			s.ServeAs(w, httptest.NewRequest(http.MethodGet, "/v1/frames/data?ids="+frameB, nil), key)
			d := dataOK(t, w)
			if fmt.Sprint(d.Charged) != fmt.Sprint(tc.charged) || len(d.LeftOut) != tc.left {
				t.Errorf("charged %v, leftOut %v", d.Charged, d.LeftOut)
			}
			if len(fake.charges) != 1 {
				t.Fatalf("Charge called %d times", len(fake.charges))
			}
			if c := fake.charges[0]; c.orgID != "org1" || c.keyID != "key_console" || c.requestID != w.Header().Get("X-Request-Id") {
				t.Errorf("Charge(%q, %q, %q)", c.orgID, c.keyID, c.requestID)
			}
		})
	}
}
