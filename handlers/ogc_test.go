package handlers

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/limiter"
	"frameindex/state"
)

// fakeOGC is a mounted OGC whose ServeKeyed is set per test; it records the
// keys it was given.
type fakeOGC struct {
	ServeFn func(w http.ResponseWriter, r *http.Request, key state.Key, requestID string) error
	keys    []string
}

func (f *fakeOGC) Patterns() []string {
	return []string{"GET /ogc", "GET /ogc/{$}", "GET /ogc/collections", "GET /ogc/collections/{id}/items"}
}

func (f *fakeOGC) ServeKeyed(w http.ResponseWriter, r *http.Request, key state.Key, requestID string) error {
	f.keys = append(f.keys, key.ID)
	if requestID == "" {
		return errors.New("no request id")
	}
	return f.ServeFn(w, r, key, requestID)
}

// codedErr is an error with its own code and status, as ogc.Error.
type codedErr struct {
	code   string
	status int
}

func (e codedErr) Error() string        { return e.code }
func (e codedErr) ErrorCode() string    { return e.code }
func (e codedErr) ErrorStatus() int     { return e.status }
func (e codedErr) ErrorMessage() string { return "described " + e.code }

func ogcServer(t *testing.T, o *fakeOGC, lim RateLimiter) (http.Handler, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	return New(Config{
		Frames:  func() FrameIndex { return abuja },
		Keys:    func() KeyLookup { return testKeys },
		Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
		Limiter: lim,
		OGC:     o,
	}), &logs
}

// ogcException decodes an OGC exception and checks status and code.
func ogcException(t *testing.T, w *httptest.ResponseRecorder, status int, code string) string {
	t.Helper()
	var e map[string]string
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("not JSON: %s", w.Body)
	}
	if w.Code != status || e["code"] != code || e["description"] == "" || len(e) != 2 {
		t.Fatalf("got %d %s, want %d {code: %s, description}", w.Code, w.Body, status, code)
	}
	return e["description"]
}

func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

func TestServer_OGCMount(t *testing.T) {
	ok := func(w http.ResponseWriter, r *http.Request, key state.Key, id string) error {
		w.Write([]byte("ok " + key.ID))
		return nil
	}
	tests := []struct {
		name, method, target, auth string
		serve                      func(http.ResponseWriter, *http.Request, state.Key, string) error
		status                     int
		code                       string // "" for success
	}{
		{"bearer", "GET", "/ogc/collections", "Bearer " + secretGood, ok, 200, ""},
		{"landing without slash", "GET", "/ogc", "Bearer " + secretGood, ok, 200, ""},
		{"landing with slash", "GET", "/ogc/", "Bearer " + secretGood, ok, 200, ""},
		{"basic", "GET", "/ogc/collections", basicAuth("qgis", secretGood), ok, 200, ""},
		{"basic, key as user name", "GET", "/ogc/collections", basicAuth(secretGood, ""), ok, 200, ""},
		{"no key", "GET", "/ogc/collections", "", ok, 401, "unauthorized"},
		{"basic, revoked key", "GET", "/ogc/collections", basicAuth("qgis", secretRevoked), ok, 401, "invalid_key"},
		{"basic, garbage", "GET", "/ogc/collections", "Basic %%%", ok, 401, "invalid_key"},
		{"no frame.read", "GET", "/ogc/collections", "Bearer " + secretNoCap, ok, 403, "insufficient_scope"},
		{"unknown path", "GET", "/ogc/nothing", "", ok, 404, "not_found"},
		{"another method", "POST", "/ogc/collections", "", ok, 405, "method_not_allowed"},
		{"a coded error", "GET", "/ogc/collections", "Bearer " + secretGood,
			func(http.ResponseWriter, *http.Request, state.Key, string) error {
				return codedErr{"insufficient_credits", 402}
			}, 402, "insufficient_credits"},
		{"a coded error with a server status is a failure", "GET", "/ogc/collections", "Bearer " + secretGood,
			func(http.ResponseWriter, *http.Request, state.Key, string) error { return codedErr{"weird", 503} }, 500, "internal"},
		{"a plain error", "GET", "/ogc/collections", "Bearer " + secretGood,
			func(http.ResponseWriter, *http.Request, state.Key, string) error { return errors.New("disk on fire") }, 500, "internal"},
		{"a panic", "GET", "/ogc/collections", "Bearer " + secretGood,
			func(http.ResponseWriter, *http.Request, state.Key, string) error { panic("boom") }, 500, "internal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &fakeOGC{ServeFn: tc.serve}
			h, logs := ogcServer(t, o, nil)
			r := httptest.NewRequest(tc.method, tc.target, nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if tc.code == "" {
				if w.Code != 200 || w.Body.String() != "ok key_good" {
					t.Fatalf("%d %s", w.Code, w.Body)
				}
				return
			}
			desc := ogcException(t, w, tc.status, tc.code)
			if strings.Contains(desc, "disk on fire") || strings.Contains(w.Body.String(), secretGood) || strings.Contains(w.Body.String(), secretRevoked) {
				t.Fatalf("the exception leaks: %s", desc)
			}
			if tc.status == 401 && !strings.Contains(strings.Join(w.Header().Values("WWW-Authenticate"), ","), "Basic") {
				t.Fatalf("401 without a Basic challenge: %v", w.Header())
			}
			if tc.status >= 401 && tc.status <= 405 && tc.status != 402 && len(o.keys) > 0 {
				t.Fatalf("the OGC calls ran for a refused request")
			}
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			if line["code"] != tc.code {
				t.Fatalf("access log code %v, want %s", line["code"], tc.code)
			}
			if tc.code == "internal" && tc.name == "a plain error" && !strings.Contains(logs.String(), "disk on fire") {
				t.Fatal("the cause of a failure is not logged")
			}
		})
	}
}

// A Basic credential with a wrong key is metered by the invalid-key bucket,
// by the digest of what was presented, and the sixth is refused with 429.
func TestServer_OGCBasicInvalidKeyMetered(t *testing.T) {
	lim := &fakeLimiter{
		RequestFn: func(string, string, bool) (limiter.Decision, error) {
			return limiter.Decision{Allowed: true, State: limiter.State{Limit: 120, Remaining: 100}}, nil
		},
	}
	n := 0
	lim.InvalidKeyFn = func([32]byte) (limiter.Decision, error) {
		n++
		return limiter.Decision{Allowed: n <= 5, State: limiter.State{Limit: 5, Remaining: max(5-n, 0), Reset: time.Minute, RetryAfter: 12 * time.Second}}, nil
	}
	h, _ := ogcServer(t, &fakeOGC{ServeFn: func(http.ResponseWriter, *http.Request, state.Key, string) error { return nil }}, lim)
	cred := basicAuth("qgis", "svc_sk_wrongwrongwrong")
	for i := 1; i <= 6; i++ {
		r := httptest.NewRequest("GET", "/ogc/collections", nil)
		r.Header.Set("Authorization", cred)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if i <= 5 {
			ogcException(t, w, 401, "invalid_key")
			if w.Header().Get("X-RateLimit-Limit") != "5" {
				t.Fatalf("attempt %d: X-RateLimit-Limit %q", i, w.Header().Get("X-RateLimit-Limit"))
			}
			continue
		}
		ogcException(t, w, 429, "rate_limited")
		if w.Header().Get("Retry-After") != "12" {
			t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
		}
	}
	if want := sha256.Sum256([]byte(cred)); lim.digests[0] != want {
		t.Fatal("the bucket is not keyed by the digest of the presented credential")
	}
	// A good Basic key spends from the key's and organisation's buckets.
	r := httptest.NewRequest("GET", "/ogc/collections", nil)
	r.Header.Set("Authorization", basicAuth("qgis", secretGood))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") != "100" || len(lim.requests) != 1 {
		t.Fatalf("%d, remaining %q, %d requests metered", w.Code, w.Header().Get("X-RateLimit-Remaining"), len(lim.requests))
	}
}

// An error after the answer started cannot become an exception: the
// connection is aborted and the failure logged.
func TestServer_OGCErrorAfterWriting(t *testing.T) {
	o := &fakeOGC{ServeFn: func(w http.ResponseWriter, r *http.Request, key state.Key, id string) error {
		w.WriteHeader(200)
		w.Write([]byte("partial"))
		return errors.New("late failure")
	}}
	logs := &lockedBuffer{}
	h := New(Config{
		Frames: func() FrameIndex { return abuja },
		Keys:   func() KeyLookup { return testKeys },
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		OGC:    o,
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ogc/collections", nil)
	req.Header.Set("Authorization", "Bearer "+secretGood)
	res, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(res.Body)
		res.Body.Close()
	}
	if err == nil && res.ContentLength < 0 {
		t.Fatal("an aborted answer read as complete")
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(logs.String(), "late failure") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `"aborted":true`) {
		t.Fatalf("the abort is not logged:\n%s", logs)
	}
}

func TestBasicKey(t *testing.T) {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		token, want string
		ok          bool
	}{
		{enc("user:svc_sk_abc"), "svc_sk_abc", true},
		{enc(":svc_sk_abc"), "svc_sk_abc", true},
		{enc("svc_sk_abc:"), "svc_sk_abc", true},
		{enc("user:pass:with:colons"), "pass:with:colons", true},
		{" " + enc("u:svc_sk_x") + " ", "svc_sk_x", true},
		{enc("user:"), "", false},
		{enc("nocolon"), "", false},
		{"not base64!", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, err := basicKey(tc.token)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("%q: %q, %v", tc.token, got, err)
		}
		if err != nil && !isInvalidKey(err) {
			t.Errorf("%q: %v is not invalid_key", tc.token, err)
		}
	}
}

// FuzzBasicKey: reading Basic credentials never panics, and an error never
// echoes them.
func FuzzBasicKey(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte("u:svc_sk_key")))
	f.Add("!!")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		key, err := basicKey(token)
		if err != nil {
			if len(token) > 3 && strings.Contains(err.Error(), token) {
				t.Fatalf("the error echoes the credentials: %v", err)
			}
			return
		}
		if key == "" {
			t.Fatal("an empty key without an error")
		}
	})
}

// lockedBuffer is a log buffer a test may read while a server writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
