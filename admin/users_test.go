package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

// TestOps_Users runs the operations on people as the CLI and the web
// application do, and checks what the audit log says of each.
func TestOps_Users(t *testing.T) {
	s, _ := openStore(t)
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	ops := &Ops{Store: s, Now: func() time.Time { return now }}
	ctx := context.Background()
	mustOrg(t, s, "acme", "pro", 0)
	mustOrg(t, s, "rival", "trial", 0)

	do := func(ctx context.Context, op string, args any) (any, error) {
		t.Helper()
		return ops.run(ctx, op, mustJSON(t, args))
	}
	res, err := do(ctx, OpUserAdd, UserAdd{Name: "olu", Email: "olu@acme.ng", OrgID: "acme", Role: state.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	issued := res.(UserIssued)
	if len(issued.Password) != 19 || !issued.User.MustChange || issued.User.TempExpires == nil {
		t.Fatalf("user.add = %+v", issued)
	}
	// The web application's person acts under their own name and address.
	web := WithActor(ctx, Actor{User: "olu", Org: "acme", Addr: "192.0.2.9"})
	if _, err := do(web, OpUserPassword, UserPassword{Name: "olu", Current: issued.Password, New: "a quiet evening in Jos"}); err != nil {
		t.Fatal(err)
	}
	if _, err := do(web, OpUserPassword, UserPassword{Name: "olu", Current: "wrong password!", New: "another long password"}); !errors.Is(err, state.ErrBadSignIn) {
		t.Fatalf("wrong current password: %v", err)
	}
	res, err = do(web, OpUserAdd, UserAdd{Name: "ada", OrgID: "acme", Role: state.RoleMember})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := do(web, OpUserRole, UserRole{Name: "ada", OrgID: "acme", Role: state.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	if _, err := do(web, OpUserRole, UserRole{Name: "olu", OrgID: "acme", Role: state.RoleMember}); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("demoting the last owner: %v", err)
	}
	res, err = do(ctx, OpUserReset, UserReset{Name: "ada"})
	if err != nil || len(res.(UserIssued).Password) != 19 {
		t.Fatalf("user.reset = %+v, %v", res, err)
	}
	res, err = do(ctx, OpUserList, UserList{OrgID: "acme"})
	if views := res.([]UserView); err != nil || len(views) != 2 || views[0].Name != "ada" || views[0].Orgs[0].Role != state.RoleAdmin {
		t.Fatalf("user.list = %+v, %v", res, err)
	}
	if _, err := do(ctx, OpUserAdd, UserAdd{Name: "olu", OrgID: "rival", Role: state.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	res, err = do(ctx, OpUserRemove, UserRemove{Name: "ada", OrgID: "acme"})
	if err != nil || !res.(UserRemoved).Deleted {
		t.Fatalf("user.remove = %+v, %v", res, err)
	}
	if _, err := do(ctx, OpUserRemove, UserRemove{Name: "olu"}); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("deleting the only owner of two organisations: %v", err)
	}

	res, err = do(ctx, OpAuditList, AuditList{})
	if err != nil {
		t.Fatal(err)
	}
	log := res.([]state.AuditEntry)
	type row struct{ actor, org, action, target, outcome, addr string }
	want := []row{
		{Operator, "", OpUserRemove, "olu", state.AuditRefused, "command line"},
		{Operator, "acme", OpUserRemove, "ada", state.AuditOK, "command line"},
		{Operator, "rival", OpUserAdd, "olu", state.AuditOK, "command line"},
		{Operator, "", OpUserReset, "ada", state.AuditOK, "command line"},
		{"olu", "acme", OpUserRole, "olu", state.AuditRefused, "192.0.2.9"},
		{"olu", "acme", OpUserRole, "ada", state.AuditOK, "192.0.2.9"},
		{"olu", "acme", OpUserAdd, "ada", state.AuditOK, "192.0.2.9"},
		{"olu", "acme", OpUserPassword, "olu", state.AuditRefused, "192.0.2.9"},
		{"olu", "acme", OpUserPassword, "olu", state.AuditOK, "192.0.2.9"},
		{Operator, "acme", OpUserAdd, "olu", state.AuditOK, "command line"},
	}
	if len(log) != len(want) {
		t.Fatalf("audit log has %d entries, want %d: %+v", len(log), len(want), log)
	}
	for i, w := range want {
		e := log[i]
		if got := (row{e.Actor, e.Org, e.Action, e.Target, e.Outcome, e.Addr}); got != w {
			t.Errorf("entry %d = %+v, want %+v", i, got, w)
		}
		if !e.Time.Equal(now) {
			t.Errorf("entry %d at %v", i, e.Time)
		}
		for _, secret := range []string{issued.Password, "a quiet evening", "wrong password!", "another long"} {
			if strings.Contains(e.Detail+e.Reason+e.Target, secret) {
				t.Errorf("entry %d holds a password: %+v", i, e)
			}
		}
	}
	if log[4].Reason == "" || log[3].Detail != "" || log[6].Detail != "role=member" {
		t.Errorf("reason %q, details %q, %q", log[4].Reason, log[3].Detail, log[6].Detail)
	}
	res, _ = do(ctx, OpAuditList, AuditList{OrgID: "rival", Limit: 5})
	if got := res.([]state.AuditEntry); len(got) != 1 || got[0].Action != OpUserAdd {
		t.Errorf("audit.list for rival = %+v", got)
	}
	if _, err := do(ctx, OpAuditList, AuditList{Limit: -1}); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("negative limit: %v", err)
	}
}

// TestOps_AuditsKeysAndOrgs: the existing operations are audited too, with
// the minted key's id (never its secret) and the organisation acted on;
// reads are not.
func TestOps_AuditsKeysAndOrgs(t *testing.T) {
	s, _ := openStore(t)
	ops := &Ops{Store: s}
	ctx := WithActor(context.Background(), Actor{User: "olu", Org: "acme", Addr: "192.0.2.1"})
	steps := []struct {
		op   string
		args any
	}{
		{OpOrgAdd, OrgAdd{ID: "acme", Plan: "pro"}},
		{OpOrgList, struct{}{}},
		{OpKeyMint, KeyMint{OrgID: "acme", Preset: "locality", Name: "dashboard", TTL: "30d", Datasets: []string{"population"}}},
		{OpKeyList, KeyList{OrgID: "acme"}},
		{OpOrgCredits, OrgCredits{ID: "acme", Add: 5, Note: "invoice 7"}},
		{OpUsage, UsageReq{OrgID: "acme"}},
	}
	var secret, keyID string
	for _, st := range steps {
		res, err := ops.run(ctx, st.op, mustJSON(t, st.args))
		if err != nil {
			t.Fatalf("%s: %v", st.op, err)
		}
		if m, ok := res.(Minted); ok {
			secret, keyID = m.Secret, m.Key.ID
		}
	}
	if _, err := ops.run(ctx, OpKeyRevoke, mustJSON(t, KeyRevoke{ID: keyID})); err != nil {
		t.Fatal(err)
	}
	log, err := s.AuditLog("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Action+" "+e.Org+" "+e.Target+" "+e.Detail)
		if strings.Contains(e.Detail+e.Target, secret) {
			t.Errorf("entry holds the secret: %+v", e)
		}
	}
	want := []string{
		"key.revoke acme " + keyID + " ",
		"org.credits acme acme add=5 note=invoice 7",
		`key.mint acme ` + keyID + ` preset=locality datasets=["population"] ttl=30d`,
		"org.add acme acme plan=pro",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSocket_AuditsTheOperator: through the admin socket the operator is
// recorded as coming from it.
func TestSocket_AuditsTheOperator(t *testing.T) {
	s, path := openStore(t)
	ops := &Ops{Store: s}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, ops, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	var issued UserIssued
	if err := call(ctx, path, OpUserAdd, UserAdd{Name: "olu", OrgID: "acme", Role: state.RoleOwner}, &issued); err != nil {
		t.Fatal(err)
	}
	if issued.Password == "" {
		t.Fatal("no one-time password through the socket")
	}
	var log []state.AuditEntry
	if err := call(ctx, path, OpAuditList, AuditList{OrgID: "acme"}, &log); err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Actor != Operator || log[0].Addr != "admin socket" || log[0].Action != OpUserAdd {
		t.Errorf("audit log = %+v", log)
	}
}
