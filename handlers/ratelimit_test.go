package handlers

import (
	"crypto/sha256"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"frameindex/limiter"
)

// fakeLimiter is a RateLimiter whose answers are set per test; it records
// what it was asked.
type fakeLimiter struct {
	RequestFn    func(keyID, orgID string, insight bool) (limiter.Decision, error)
	InvalidKeyFn func(digest [32]byte) (limiter.Decision, error)
	requests     []string
	digests      [][32]byte
}

func (f *fakeLimiter) Request(keyID, orgID string, insight bool) (limiter.Decision, error) {
	f.requests = append(f.requests, keyID+"/"+orgID)
	return f.RequestFn(keyID, orgID, insight)
}

func (f *fakeLimiter) InvalidKey(digest [32]byte) (limiter.Decision, error) {
	f.digests = append(f.digests, digest)
	return f.InvalidKeyFn(digest)
}

func decided(allowed bool, limit, remaining int, reset, retry time.Duration) func() (limiter.Decision, error) {
	return func() (limiter.Decision, error) {
		return limiter.Decision{Allowed: allowed, State: limiter.State{Limit: limit, Remaining: remaining, Reset: reset, RetryAfter: retry}}, nil
	}
}

func meteredServer(t *testing.T, lim *fakeLimiter) http.Handler {
	t.Helper()
	return New(Config{
		Frames:  func() FrameIndex { return abuja },
		Keys:    func() KeyLookup { return testKeys },
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Limiter: lim,
	})
}

func TestServer_RateLimitHeadersAndOrder(t *testing.T) {
	allowed := decided(true, 120, 77, 42500*time.Millisecond, 0)
	refused := decided(false, 900, 0, 15*time.Minute, 1500*time.Millisecond)
	unavailable := func() (limiter.Decision, error) { return limiter.Decision{}, limiter.ErrUnavailable }
	switchedOff := decided(true, 0, 0, 0, 0)
	const point = "/v1/frames/at?lat=9.0765&lon=7.3986"
	tests := []struct {
		name        string
		secret      string
		target      string
		request     func() (limiter.Decision, error)
		invalid     func() (limiter.Decision, error)
		status      int
		code        string
		headers     map[string]string // "" means absent
		wantDigests int
	}{
		{"allowed", secretGood, point, allowed, nil, 200, "",
			map[string]string{"X-RateLimit-Limit": "120", "X-RateLimit-Remaining": "77", "X-RateLimit-Reset": "43", "Retry-After": ""}, 0},
		{"refused", secretGood, point, refused, nil, 429, "rate_limited",
			map[string]string{"X-RateLimit-Limit": "900", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "900", "Retry-After": "2"}, 0},
		{"refused before the capability check", secretNoCap, point, refused, nil, 429, "rate_limited", nil, 0},
		{"refused before the parameters", secretGood, "/v1/frames/at?lat=abc", refused, nil, 429, "rate_limited", nil, 0},
		{"metered 403", secretNoCap, point, allowed, nil, 403, "insufficient_scope", map[string]string{"X-RateLimit-Limit": "120"}, 0},
		{"metered 400", secretGood, "/v1/frames?bbox=1,2,3", allowed, nil, 400, "invalid_bbox", map[string]string{"X-RateLimit-Remaining": "77"}, 0},
		{"store unreachable: unmetered, no headers", secretGood, point, unavailable, nil, 200, "",
			map[string]string{"X-RateLimit-Limit": "", "X-RateLimit-Remaining": "", "X-RateLimit-Reset": ""}, 0},
		{"every bucket switched off", secretGood, point, switchedOff, nil, 200, "", map[string]string{"X-RateLimit-Limit": ""}, 0},
		{"invalid key metered", "svc_sk_unknownunknownunknownunknown", point, nil, decided(true, 5, 4, 12*time.Second, 0), 401, "invalid_key",
			map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "12"}, 1},
		{"invalid key refused", "svc_sk_unknownunknownunknownunknown", point, nil, decided(false, 5, 0, 60*time.Second, 12*time.Second), 429, "rate_limited",
			map[string]string{"Retry-After": "12"}, 1},
		{"expired key metered as invalid", secretExpired, point, nil, decided(false, 5, 0, time.Minute, 300*time.Millisecond), 429, "rate_limited",
			map[string]string{"Retry-After": "1"}, 1},
		{"no credential: not metered", "", point, nil, nil, 401, "unauthorized", map[string]string{"X-RateLimit-Limit": ""}, 0},
		{"the API description: not metered", "", "/openapi.json", nil, nil, 200, "", map[string]string{"X-RateLimit-Limit": ""}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := &fakeLimiter{
				RequestFn: func(string, string, bool) (limiter.Decision, error) {
					if tc.request == nil {
						t.Fatal("Request called")
					}
					return tc.request()
				},
				InvalidKeyFn: func([32]byte) (limiter.Decision, error) {
					if tc.invalid == nil {
						t.Fatal("InvalidKey called")
					}
					return tc.invalid()
				},
			}
			w := get(meteredServer(t, lim), tc.target, tc.secret)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.code != "" {
				wantError(t, w, tc.status, tc.code)
			}
			for h, want := range tc.headers {
				if got := w.Header().Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if len(lim.digests) != tc.wantDigests {
				t.Fatalf("InvalidKey called %d times", len(lim.digests))
			}
			if tc.wantDigests > 0 {
				// The bucket is keyed by a digest of the credential, never the secret.
				if want := sha256.Sum256([]byte("Bearer " + tc.secret)); lim.digests[0] != want {
					t.Errorf("digest is not SHA-256 of the credential")
				}
			}
			if tc.request != nil && (len(lim.requests) != 1 || !strings.HasSuffix(lim.requests[0], "/org1")) {
				t.Errorf("Request calls %v", lim.requests)
			}
		})
	}
}

// With the real limiter: exactly the burst passes, then 429 with a
// Retry-After that works.
func TestServer_RealLimiterBurst(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cfg := limiter.DefaultConfig()
	lim := limiter.New(cfg, limiter.NewMemory(cfg), func() time.Time { return now })
	s := New(Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return testKeys },
		Limiter: lim, Now: func() time.Time { return now }})
	for i := 1; i <= 120; i++ {
		if w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood); w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") == "" {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood)
	wantError(t, w, 429, "rate_limited", "Retry-After")
	if w.Header().Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
	}
	now = now.Add(time.Second)
	if w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood); w.Code != 200 {
		t.Fatalf("after Retry-After: %d", w.Code)
	}
}

func TestServer_LimiterOutageIsLoggedOnce(t *testing.T) {
	var logs strings.Builder
	down := true
	lim := &fakeLimiter{RequestFn: func(string, string, bool) (limiter.Decision, error) {
		if down {
			return limiter.Decision{}, errors.Join(limiter.ErrUnavailable, errors.New("connection refused"))
		}
		return limiter.Decision{Allowed: true, State: limiter.State{Limit: 120, Remaining: 100}}, nil
	}}
	s := New(Config{Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return testKeys },
		Limiter: lim, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	for i := 0; i < 5; i++ {
		if w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood); w.Code != 200 {
			t.Fatalf("status %d while the store is down", w.Code)
		}
	}
	if n := strings.Count(logs.String(), "rate limiting suspended"); n != 1 {
		t.Fatalf("outage logged %d times:\n%s", n, logs.String())
	}
	down = false
	if w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood); w.Header().Get("X-RateLimit-Remaining") != "100" {
		t.Fatal("headers did not come back with the store")
	}
}
