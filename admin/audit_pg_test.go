package admin

import (
	"context"
	"strings"
	"testing"

	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
)

// TestOps_AuditFaultPostgres: with the shared state in PostgreSQL, an
// operation whose audit entry cannot be written leaves no change either:
// a trigger refuses org.credits' "ok" entry, after the credits were added
// in the same transaction. The operation fails, the balance is as it was,
// and the log holds the failure alone (an entry the trigger lets pass).
func TestOps_AuditFaultPostgres(t *testing.T) {
	c := pgtest.Start(t)
	ctx := context.Background()
	url := c.NewDatabase(t)
	if _, err := pgstate.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	data, _ := openStore(t)
	st, err := pgstate.Open(ctx, url, pgstate.Options{Catalogue: data})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ops := &Ops{Store: data, State: st}
	if _, err := ops.AddOrg(ctx, OrgAdd{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	_, err = st.Pool().Exec(ctx, `CREATE FUNCTION audit_fault() RETURNS trigger LANGUAGE plpgsql AS
		$$ BEGIN
			IF NEW.action = 'org.credits' AND NEW.outcome = 'ok' THEN RAISE EXCEPTION 'injected audit fault'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER audit_fault BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_fault()`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.AddCredits(ctx, OrgCredits{ID: "acme", Add: 50, Note: "invoice 1"}); err == nil || !strings.Contains(err.Error(), "injected audit fault") {
		t.Fatalf("org.credits with its entry refused: %v", err)
	}
	if o, err := st.Org("acme"); err != nil || o.Credits != 0 {
		t.Fatalf("the credits stayed without their entry: %+v, %v", o, err)
	}
	log, err := ops.AuditLog(ctx, AuditList{OrgID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].Action != OpOrgCredits || log[0].Outcome != state.AuditFailed || log[1].Action != OpOrgAdd {
		t.Fatalf("audit log %+v; want the failed org.credits and the org.add", log)
	}
	// The same change with its entry: both are there.
	if _, err := st.Pool().Exec(ctx, `DROP TRIGGER audit_fault ON audit`); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.AddCredits(ctx, OrgCredits{ID: "acme", Add: 50, Note: "invoice 1"}); err != nil {
		t.Fatal(err)
	}
	log, _ = ops.AuditLog(ctx, AuditList{OrgID: "acme", Limit: 1})
	if o, _ := st.Org("acme"); o.Credits != 50 || len(log) != 1 || log[0].Outcome != state.AuditOK || log[0].Detail != "add=50 note=invoice 1" {
		t.Fatalf("balance %d, newest entry %+v", o.Credits, log)
	}
}
