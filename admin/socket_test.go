package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/state"
)

// TestSocket_Table: the socket's table runs each operation by its name,
// refuses an unknown name and arguments that do not decode with an
// invalid error that names the operation and what is wrong, and writes
// no audit entry for a request it could not read.
func TestSocket_Table(t *testing.T) {
	s, _ := openStore(t)
	h := Handler(&Ops{Store: s}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	post := func(t *testing.T, body string) wireResponse {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin", strings.NewReader(body)))
		var resp wireResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatalf("reply %q: %v", rec.Body, err)
		}
		return resp
	}
	tests := []struct {
		name, body, kind string
		text             []string
	}{
		{"unknown operation", `{"op":"drop.everything","args":{}}`, "invalid", []string{`unknown operation "drop.everything"`}},
		{"no operation", `{"args":{"id":"acme"}}`, "invalid", []string{`unknown operation ""`}},
		{"argument of the wrong type", `{"op":"org.add","args":{"id":5}}`, "invalid", []string{"org.add: ", "arguments", "cannot unmarshal number"}},
		{"unknown argument", `{"op":"key.mint","args":{"org":"acme","preset":"full","secret":"x"}}`, "invalid", []string{"key.mint: ", `unknown field "secret"`}},
		{"arguments not an object", `{"op":"org.credits","args":[1,2]}`, "invalid", []string{"org.credits: ", "arguments"}},
		{"arguments to an operation without any", `{"op":"org.list","args":{"all":true}}`, "invalid", []string{"org.list: ", `unknown field "all"`}},
		{"unknown member of the request", `{"op":"org.list","argz":{}}`, "invalid", []string{"admin request", `unknown field "argz"`}},
		{"not JSON", `op=org.list`, "invalid", []string{"admin request"}},
		{"refused by the operation", `{"op":"org.plan","args":{"id":"nope","plan":"pro"}}`, "not_found", []string{`organisation "nope" not found`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, tt.body)
			if resp.Error == nil || resp.Error.Kind != tt.kind || resp.Result != nil {
				t.Fatalf("reply %+v (error %+v), want a %s error", resp, resp.Error, tt.kind)
			}
			for _, want := range tt.text {
				if !strings.Contains(resp.Error.Message, want) {
					t.Errorf("message %q does not say %q", resp.Error.Message, want)
				}
			}
		})
	}
	// Only the operation that ran wrote an entry (refused); requests that
	// never reached one wrote none.
	log, err := s.AuditLog("", 0)
	if err != nil || len(log) != 1 || log[0].Action != OpOrgPlan || log[0].Outcome != state.AuditRefused {
		t.Fatalf("audit log %+v, %v; want the refused org.plan alone", log, err)
	}

	// Arguments of the old client's shapes still decode: none, null, {}.
	for _, body := range []string{`{"op":"org.list"}`, `{"op":"org.list","args":null}`, `{"op":"org.list","args":{}}`} {
		if resp := post(t, body); resp.Error != nil || string(resp.Result) != "null" {
			t.Errorf("%s: reply %s, error %+v", body, resp.Result, resp.Error)
		}
	}
	resp := post(t, `{"op":"org.add","args":{"id":"acme","plan":"pro"}}`)
	var o state.Org
	if resp.Error != nil || json.Unmarshal(resp.Result, &o) != nil || o.ID != "acme" || o.Plan != "pro" {
		t.Fatalf("org.add: %s, %+v", resp.Result, resp.Error)
	}
}

// TestSocket_TableNames: the table holds every operation once under its
// name, and refuses to be built with a name twice.
func TestSocket_TableNames(t *testing.T) {
	for name, op := range socketOps {
		if op.name() != name {
			t.Errorf("table entry %q runs %q", name, op.name())
		}
	}
	if len(socketOps) != 37 { // 35 changes and reads, the operator's question and report
		t.Errorf("table has %d operations, want 37", len(socketOps))
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "org.add") {
			t.Errorf("a name twice: %v, want a panic naming it", r)
		}
	}()
	table(AddOrgOp, OrgsOp, AddOrgOp)
}

// TestOps_TypedMatchesSocket: an operation called as a method and through
// the socket returns the same result.
func TestOps_TypedMatchesSocket(t *testing.T) {
	s, path := serveStore(t)
	ctx := context.Background()
	local, err := (&Ops{Store: s}).ShowOrg(ctx, OrgShow{ID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := Call(ctx, path, ShowOrgOp, OrgShow{ID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(local)
	b, _ := json.Marshal(remote)
	if string(a) != string(b) || remote.Credits != 100 {
		t.Errorf("method %s\nsocket %s", a, b)
	}
	if _, err := Call(ctx, path, ShowOrgOp, OrgShow{ID: "nope"}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("socket error %v, want one that matches state.ErrNotFound", err)
	}
}

// A reply larger than a command reads (a busy organisation's whole
// ledger) fails saying so and what to ask for instead, not as a broken
// reply.
func TestCall_ReplyTooLarge(t *testing.T) {
	old := maxReply
	maxReply = 1 << 10
	t.Cleanup(func() { maxReply = old })
	data := filepath.Join(t.TempDir(), "frames.db")
	l, err := net.Listen("unix", SocketPath(data))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"result":%q}`, strings.Repeat("x", 4<<10))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	var out string
	err = call(context.Background(), data, "org.show", struct{}{}, &out)
	if err == nil || !strings.Contains(err.Error(), "the reply is larger than") || !strings.Contains(err.Error(), "--history N") {
		t.Fatalf("error %v, want the reply too large", err)
	}
	// A reply within the bound is read.
	maxReply = 8 << 10
	if err := call(context.Background(), data, "org.show", struct{}{}, &out); err != nil || len(out) != 4<<10 {
		t.Fatalf("a reply within the bound: %v (%d bytes)", err, len(out))
	}
}
