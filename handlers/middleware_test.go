package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"frameindex/grid"
)

func TestServer_Routing(t *testing.T) {
	s, _ := testServer(t, abuja)
	tests := []struct {
		name      string
		method    string
		target    string
		status    int
		code      string
		allow     string
		fragments []string
	}{
		{"unknown path, no key", "GET", "/v2/frames", 404, codeNotFound, "", []string{`there is no call at "/v2/frames"`, "/openapi.json"}},
		{"root", "GET", "/", 404, codeNotFound, "", nil},
		{"trailing slash is another path", "GET", "/v1/frames/", 404, codeNotFound, "", nil},
		{"sub-path", "GET", "/v1/frames/at/x", 404, codeNotFound, "", nil},
		{"unknown path with a key in it", "GET", "/v1/svc_sk_abcdefgh", 404, codeNotFound, "", []string{"svc_sk_[redacted]"}},
		{"POST on the box call", "POST", "/v1/frames", 405, codeMethodNotAllowed, "GET, HEAD", []string{"POST is not allowed", "GET, HEAD"}},
		{"DELETE on the point call", "DELETE", "/v1/frames/at?lat=1&lon=1", 405, codeMethodNotAllowed, "GET, HEAD", nil},
		{"PUT on the document", "PUT", "/openapi.json", 405, codeMethodNotAllowed, "GET, HEAD", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(tt.method, tt.target, nil))
			wantError(t, w, tt.status, tt.code, tt.fragments...)
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
			if w.Header().Get("WWW-Authenticate") != "" {
				t.Error("a routing error asked for a key")
			}
		})
	}

	t.Run("unclean path is redirected", func(t *testing.T) {
		w := get(s, "/v1//frames/at?lat=1&lon=2", "")
		if w.Code/100 != 3 || w.Header().Get("Location") != "/v1/frames/at?lat=1&lon=2" {
			t.Errorf("status %d, Location %q", w.Code, w.Header().Get("Location"))
		}
		if w.Header().Get("X-Request-Id") == "" {
			t.Error("no request id on a redirect")
		}
	})
	t.Run("HEAD is served like GET without a body", func(t *testing.T) {
		srv := httptest.NewServer(s)
		defer srv.Close()
		resp, err := srv.Client().Head(srv.URL + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.ContentLength != int64(len(openAPIDoc)) {
			t.Errorf("HEAD: %d %q %d", resp.StatusCode, resp.Header.Get("Content-Type"), resp.ContentLength)
		}
	})
}

func TestServer_HandleOpenAPI(t *testing.T) {
	s, _ := testServer(t, abuja)
	w := get(s, "/openapi.json", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != string(openAPIDoc) {
		t.Fatalf("status %d, type %q, %d bytes", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
	}
	if !strings.Contains(w.Body.String(), `"openapi": "3.1.0"`) || !strings.Contains(w.Body.String(), `"version": "1.0.0"`) {
		t.Error("not an OpenAPI 3.1.0 document of version 1.0.0")
	}
}

func TestServer_Panic(t *testing.T) {
	calls := 0
	ix := &fakeIndex{AtFn: func(lat, lon float64) (grid.Shape, bool) {
		calls++
		if calls == 1 {
			panic("index exploded")
		}
		return abuja.At(lat, lon)
	}}
	s, logs := testServer(t, ix)
	w := get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood)
	env := wantError(t, w, http.StatusInternalServerError, codeInternal)
	if env.Error.Message != internalMessage || strings.Contains(w.Body.String(), "exploded") {
		t.Errorf("the panic leaked to the client: %s", w.Body)
	}
	out := logs.String()
	if !strings.Contains(out, "index exploded") || !strings.Contains(out, "handleFramesAt") {
		t.Errorf("the panic and its stack are not logged:\n%s", out)
	}
	line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
	if line["level"] != "ERROR" || line["status"] != float64(500) {
		t.Errorf("access line %v", line)
	}

	// The server goes on serving.
	w = get(s, "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood)
	if env := decode(t, w); w.Code != 200 || env.Data == nil {
		t.Fatalf("after a panic: %d %s", w.Code, w.Body)
	}
}

func TestServer_PanicAfterFirstChunk(t *testing.T) {
	// Once bytes went out, a panic aborts the connection.
	ix := &fakeIndex{BoxFn: func(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
		for i := range 1000 {
			fn(grid.LatticeShape(grid.CellID(9000, 22000+i)))
		}
		panic("late failure")
	}}
	s, logs := testServer(t, ix)
	srv := httptest.NewServer(s)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/frames?bbox=1,2,3,4", nil)
	req.Header.Set("Authorization", "Bearer "+secretGood)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatal("the cut body was read without error")
	}
	id := resp.Header.Get("X-Request-Id")
	srv.Close() // waits for the handler, so its log line is written
	line := accessLine(t, logs, id)
	if line["aborted"] != true || line["level"] != "ERROR" {
		t.Errorf("access line %v", line)
	}
	if !strings.Contains(logs.String(), "late failure") {
		t.Error("the panic is not logged")
	}
}

func TestServer_Deadline(t *testing.T) {
	s := New(Config{RequestTimeout: 20 * time.Millisecond})
	var cause error
	h := s.deadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // returns once the budget is spent
		cause = context.Cause(r.Context())
		s.writeError(w, r, cause)
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	if !errors.Is(cause, errBudgetSpent) {
		t.Errorf("cause = %v, want errBudgetSpent", cause)
	}
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"code":"internal"`) {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if got := New(Config{}).timeout; got != 30*time.Second {
		t.Errorf("default budget %v", got)
	}
}

func TestServer_AccessLog(t *testing.T) {
	s, logs := testServer(t, abuja)
	tests := []struct {
		name   string
		target string
		secret string
		status int
		level  string
		key    string
		code   string
		route  string
	}{
		{"success", "/v1/frames/at?lat=9.0765&lon=7.3986", secretGood, 200, "INFO", "key_good", "", "GET /v1/frames/at"},
		{"bad parameter", "/v1/frames?bbox=x", secretGood, 400, "INFO", "key_good", codeInvalidBBox, "GET /v1/frames"},
		{"forbidden", "/v1/frames?bbox=x", secretNoCap, 403, "INFO", "key_nocap", codeInsufficientScope, "GET /v1/frames"},
		{"key in the query", "/v1/frames?bbox=1,2,3,4&api_key=" + secretGood, "", 401, "INFO", "", codeUnauthorized, "GET /v1/frames"},
		{"revoked key", "/v1/frames?bbox=1,2,3,4", secretRevoked, 401, "INFO", "", codeInvalidKey, "GET /v1/frames"},
		{"keyring failure", "/v1/frames?bbox=1,2,3,4", secretBroken, 500, "ERROR", "", codeInternal, "GET /v1/frames"},
		{"unknown path", "/nope/" + secretGood, "", 404, "INFO", "", codeNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			w := get(s, tt.target, tt.secret)
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			want := map[string]any{"level": tt.level, "method": "GET", "status": float64(tt.status), "bytes": float64(w.Body.Len())}
			for k, v := range want {
				if line[k] != v {
					t.Errorf("%s = %v, want %v", k, line[k], v)
				}
			}
			for k, v := range map[string]string{"key": tt.key, "code": tt.code, "route": tt.route} {
				got, _ := line[k].(string)
				if got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if path, _ := line["path"].(string); strings.Contains(path, "?") || path == "" {
				t.Errorf("path %q", path)
			}
			if _, ok := line["duration"]; !ok {
				t.Error("no duration")
			}
			if (tt.code == codeInternal) != (line["error"] != nil) {
				t.Errorf("error = %v", line["error"])
			}
			for _, secret := range []string{secretGood, secretNoCap, secretRevoked, secretBroken} {
				if strings.Contains(logs.String(), secret) {
					t.Errorf("the log holds a secret:\n%s", logs)
				}
			}
		})
	}
}

func TestNewHTTPServer(t *testing.T) {
	var logs bytes.Buffer
	h := http.NotFoundHandler()
	srv := NewHTTPServer("127.0.0.1:0", h, slog.New(slog.NewJSONHandler(&logs, nil)))
	if srv.Addr != "127.0.0.1:0" || srv.Handler == nil || srv.ErrorLog == nil {
		t.Fatalf("%+v", srv)
	}
	srv.ErrorLog.Print("http: TLS handshake error")
	if m := logLines(t, &logs); len(m) != 1 || m[0]["level"] != "WARN" || m[0]["msg"] != "http: TLS handshake error" {
		t.Errorf("server errors are not logged as warnings: %s", logs.String())
	}
	if NewHTTPServer("", h, nil).ErrorLog == nil {
		t.Error("no ErrorLog with a nil logger")
	}
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("limits not set: %+v", srv)
	}
	if srv.WriteTimeout <= DefaultRequestTimeout {
		t.Errorf("WriteTimeout %v is not above the request budget", srv.WriteTimeout)
	}
}

func TestNewRequestID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newRequestID()
		if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}
