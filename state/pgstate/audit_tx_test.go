package pgstate_test

import (
	"context"
	"strings"
	"testing"

	"frameindex/state"
	"frameindex/state/pgstate/pgtest"
)

// TestAuditedFault injects a failure between a change and its audit
// entry: a trigger makes PostgreSQL refuse the entry's INSERT, after the
// change was made in the same transaction. Neither may stay; without the
// handle the change succeeds.
func TestAuditedFault(t *testing.T) {
	c := pgtest.Shared(t)
	s, _, _ := openPG(t, c)
	ctx := context.Background()
	e := state.AuditEntry{Actor: "operator", Org: "acme", Action: "org.add", Target: "acme", Outcome: state.AuditOK}
	if _, err := s.Audited(&e).AddOrg(state.Org{ID: "acme", Created: t0}); err != nil || e.Seq == 0 {
		t.Fatalf("AddOrg through Audited: %v, entry %+v", err, e)
	}
	_, err := s.Pool().Exec(ctx, `CREATE FUNCTION audit_fault() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN RAISE EXCEPTION 'injected audit fault'; END $$;
		CREATE TRIGGER audit_fault BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_fault()`)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func(audited bool) error
		undone func() bool
	}{
		{"AddCredits", func(audited bool) error {
			st := s.Audited(&state.AuditEntry{Actor: "operator", Action: "org.credits", Outcome: state.AuditOK})
			if !audited {
				st = s
			}
			_, _, err := st.AddCredits("acme", 50, "invoice 1", t0)
			return err
		}, func() bool { o, err := s.Org("acme"); return err == nil && o.Credits == 0 }},
		{"MintKey", func(audited bool) error {
			st := s.Audited(&state.AuditEntry{Actor: "operator", Action: "key.mint", Outcome: state.AuditOK})
			if !audited {
				st = s
			}
			_, _, err := st.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: t0})
			return err
		}, func() bool { ks, err := s.Keys("acme"); return err == nil && len(ks) == 0 }},
	}
	for _, st := range steps {
		if err := st.change(true); err == nil || !strings.Contains(err.Error(), "injected audit fault") {
			t.Errorf("%s through Audited with the log failing: %v", st.name, err)
		}
		if !st.undone() {
			t.Errorf("%s: the change stayed without its entry", st.name)
		}
		if err := st.change(false); err != nil {
			t.Errorf("%s without the audit entry: %v", st.name, err)
		}
	}
	if log, err := s.AuditLog("", 0); err != nil || len(log) != 1 || log[0] != e {
		t.Fatalf("audit log %+v, %v; want the org.add alone", log, err)
	}
}
