package cli

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
	"frameindex/state/statetest"
)

// t0 is the time of everything fillFile writes: a whole microsecond, as
// PostgreSQL keeps times.
var t0 = statetest.T0

// fillFile gives a data file some of every kind of shared state.
func fillFile(t *testing.T, f *bolt.Store) (secret string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"acme", "owner"} {
		_, err := f.AddOrg(state.Org{ID: id, Created: t0})
		must(err)
	}
	_, _, err := f.AddCredits("acme", 20, "grant", t0)
	must(err)
	for _, d := range []state.Dataset{{ID: "pop", Name: "Population", Owner: "owner", Price: 2}, {ID: "roads", Name: "Roads", Owner: "owner", Price: 1}} {
		d.Attributes = []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}
		_, err = f.ImportDataset(d, []bolt.FrameRecord{{Frame: 1, Attrs: []byte(`{"v":1}`)}}, t0)
		must(err)
	}
	_, err = f.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 3, LicenceText: "terms"}, t0)
	must(err)
	_, _, err = f.LicenseOffer("acme", "roads", nil, t0)
	must(err)
	_, err = f.GrantLicence("acme", "pop", state.LicencePerQuery, t0)
	must(err)
	k, secret, err := f.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: t0})
	must(err)
	k2, _, err := f.MintKey(state.MintRequest{OrgID: "acme", Preset: "locality", Datasets: []string{"pop"}, Now: t0})
	must(err)
	_, err = f.RevokeKey(k2.ID, t0.Add(time.Hour))
	must(err)
	u := state.NewKeyUses()
	u.Seen(k.ID, t0.Add(time.Minute))
	_, err = f.FlushKeyUses(u)
	must(err)
	_, _, err = f.Charge("acme", k.ID, "req-1", []state.DatasetPrice{{ID: "pop", Price: 2}}, t0)
	must(err)
	r, err := f.ReserveAnswer("acme", k.ID, "req-2", 1, t0)
	must(err)
	must(f.CommitAnswer(r))
	_, err = f.ReserveAnswer("acme", k.ID, "req-3", 1, t0) // left pending
	must(err)
	_, err = f.AppendAudit(state.AuditEntry{Time: t0, Actor: "operator", Org: "acme", Action: "key.mint", Target: k.ID, Outcome: state.AuditOK})
	must(err)
	return secret
}

// TestStateImport copies a data file's shared state into PostgreSQL
// (pgstate.Store.Import, behind `frameindex state import`) and reads the
// same from both.
func TestStateImport(t *testing.T) {
	openFile := func() *bolt.Store {
		f, err := bolt.Open(t.TempDir()+"/node.db", bolt.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	url := pgtest.Start(t).NewDatabase(t)
	if _, err := pgstate.Migrate(t.Context(), url); err != nil {
		t.Fatal(err)
	}
	file, cat := openFile(), openFile()
	secret := fillFile(t, file)
	fillFile(t, cat) // the node's datasets
	// People: one with a password of their own in two organisations, one
	// with a one-time password.
	const password = "three quiet river stones"
	_, otp, err := file.AddUser(state.NewUser{Name: "olu", Email: "olu@acme.ng", Org: "acme", Role: state.RoleOwner, Now: t0})
	if err == nil {
		_, err = file.ChangePassword("olu", otp, password, t0)
	}
	if err == nil {
		_, _, err = file.AddUser(state.NewUser{Name: "olu", Org: "owner", Role: state.RoleAdmin, Now: t0})
	}
	if err == nil {
		_, _, err = file.AddUser(state.NewUser{Name: "ada", Org: "owner", Role: state.RoleMember, Now: t0})
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := pgstate.Open(t.Context(), url, pgstate.Options{Catalogue: cat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)

	counts, err := s.Import(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(counts)
	if counts.Orgs != 2 || counts.Keys != 2 || counts.Pending != 1 || counts.Audit != 1 || counts.Licences != 2 || counts.Users != 2 {
		t.Fatalf("Import: %v", counts)
	}
	same := func(what string, read func(state.Store) (any, error)) {
		t.Helper()
		a, err := read(file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := read(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s differ after import:\nfile %+v\npg   %+v", what, a, b)
		}
	}
	same("organisations", func(st state.Store) (any, error) { return st.Orgs() })
	same("ledgers", func(st state.Store) (any, error) { return st.Ledger("acme", 0) })
	same("keys", func(st state.Store) (any, error) { return st.Keys("") })
	same("licences", func(st state.Store) (any, error) { return st.Licences("") })
	same("offers", func(st state.Store) (any, error) { return st.Offers() })
	same("usage", func(st state.Store) (any, error) { return st.Usage("acme", t0) })
	same("audit", func(st state.Store) (any, error) { return st.AuditLog("", 0) })
	same("readable", func(st state.Store) (any, error) { return st.Readable(state.Key{OrgID: "acme"}) })
	same("people", func(st state.Store) (any, error) { return st.Users("") })
	if u, err := s.SignIn("OLU@acme.ng", password, t0.Add(time.Hour)); err != nil || u.Name != "olu" {
		t.Fatalf("an imported person signs in with their password: %+v %v", u, err)
	}
	kr, err := s.Keyring()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Lookup(secret, t0.Add(time.Hour)); err != nil {
		t.Fatalf("an imported key: %v", err)
	}
	if v, err := s.KeyVersion(t.Context()); err != nil || v == 0 {
		t.Fatalf("key version after import: %d %v", v, err)
	}
	// The pending answer is refunded once past the bound; new ids follow
	// the file's.
	if n, err := s.RecoverPending(t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("RecoverPending after import: %d %v", n, err)
	}
	r, err := s.ReserveAnswer("acme", "k", "after", 1, t0)
	if err != nil || r.ID != 3 {
		t.Fatalf("a reservation after import: %+v %v", r, err)
	}
	if a, err := s.AppendAudit(state.AuditEntry{Actor: "operator", Action: "x", Outcome: state.AuditOK}); err != nil || a.Seq != 2 {
		t.Fatalf("an audit entry after import: %+v %v", a, err)
	}
	if _, err := s.Import(file); !errors.Is(err, state.ErrExists) {
		t.Fatalf("a second import: %v", err)
	}
}
