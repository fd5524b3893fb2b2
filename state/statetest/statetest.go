package statetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/state"
)

// Env is one fresh, empty store to run a test against.
type Env struct {
	Store state.Store
	// AddDataset stores a dataset, owned by an organisation already in
	// Store, where Store looks datasets up (the data file); it records one
	// frame so that the dataset is whole.
	AddDataset func(t *testing.T, d state.Dataset)
}

// Run runs the suite; open returns a fresh empty Env for each test and
// registers its cleanup with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) Env) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e Env)
	}{
		{"Orgs", testOrgs},
		{"Credits", testCredits},
		{"Keys", testKeys},
		{"KeyUses", testKeyUses},
		{"Licences", testLicences},
		{"Offers", testOffers},
		{"Terms", testTerms},
		{"Charge", testCharge},
		{"Answers", testAnswers},
		{"AnswersFromCredits", testAnswersFromCredits},
		{"DailyCeiling", testDailyCeiling},
		{"ConcurrentAnswers", testConcurrentAnswers},
		{"Audit", testAudit},
		{"AuditedChange", testAuditedChange},
		{"ConcurrentCharges", testConcurrentCharges},
		{"People", testPeople},
		{"Sessions", testSessions},
		{"AuditedPeople", testAuditedPeople},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// T0 is the time the suite's records are made at.
var T0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, kind error, what string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got error %v, want %v", what, err, kind)
	}
}

func addOrg(t *testing.T, s state.Store, id string) state.Org {
	t.Helper()
	o, err := s.AddOrg(state.Org{ID: id, Created: T0})
	must(t, err)
	return o
}

func grant(t *testing.T, s state.Store, id string, n int64) {
	t.Helper()
	_, _, err := s.AddCredits(id, n, "test grant", T0)
	must(t, err)
}

// checkLedger checks that the organisation's ledger is numbered 1, 2, 3...
// and sums to its balance.
func checkLedger(t *testing.T, s state.Store, id string) []state.LedgerEntry {
	t.Helper()
	o, entries, err := s.OrgLedger(id, 0)
	must(t, err)
	var sum int64
	for i, e := range entries {
		sum += e.Credits
		if e.Seq != uint64(i+1) || e.Balance != sum {
			t.Fatalf("ledger of %s: entry %d is %+v, want seq %d balance %d", id, i, e, i+1, sum)
		}
	}
	if sum != o.Credits {
		t.Fatalf("ledger of %s sums to %d, balance is %d", id, sum, o.Credits)
	}
	return entries
}

func testOrgs(t *testing.T, e Env) {
	s := e.Store
	// An empty store lists nothing as nil (JSON null), as the file does.
	orgs, err := s.Orgs()
	must(t, err)
	keys, err := s.Keys("")
	must(t, err)
	lic, err := s.Licences("")
	must(t, err)
	audit, err := s.AuditLog("", 0)
	must(t, err)
	offers, err := s.Offers()
	must(t, err)
	if orgs != nil || keys != nil || lic != nil || audit != nil || offers != nil {
		t.Fatalf("empty store: %#v %#v %#v %#v %#v", orgs, keys, lic, audit, offers)
	}
	o, err := s.AddOrg(state.Org{ID: "acme", Created: T0})
	must(t, err)
	if o.Name != "acme" || o.Plan != state.PlanTrial || !o.Created.Equal(T0) || o.Credits != 0 {
		t.Fatalf("AddOrg defaults: %+v", o)
	}
	for _, bad := range []state.Org{{ID: "Acme"}, {ID: ""}, {ID: "x", Plan: "gold"}, {ID: "y", Credits: 5}, {ID: "z", Name: "a\x01b"}} {
		_, err := s.AddOrg(bad)
		wantErr(t, err, state.ErrInvalid, fmt.Sprintf("AddOrg(%+v)", bad))
	}
	_, err = s.AddOrg(state.Org{ID: "acme"})
	wantErr(t, err, state.ErrExists, "AddOrg of a taken id")
	addOrg(t, s, "zulu")
	addOrg(t, s, "beta-2")
	orgs, err = s.Orgs()
	must(t, err)
	var ids []string
	for _, o := range orgs {
		ids = append(ids, o.ID)
	}
	if want := []string{"acme", "beta-2", "zulu"}; !slices.Equal(ids, want) {
		t.Fatalf("Orgs: %v, want %v", ids, want)
	}
	got, err := s.Org("acme")
	must(t, err)
	if got != o {
		t.Fatalf("Org: %+v, want %+v", got, o)
	}
	_, err = s.Org("nobody")
	wantErr(t, err, state.ErrNotFound, "Org of an unknown id")
	o, err = s.SetPlan("acme", state.PlanPro)
	must(t, err)
	if o.Plan != state.PlanPro {
		t.Fatalf("SetPlan: %+v", o)
	}
	_, err = s.SetPlan("acme", "gold")
	wantErr(t, err, state.ErrInvalid, "SetPlan to an unknown plan")
	_, err = s.SetPlan("nobody", state.PlanPro)
	wantErr(t, err, state.ErrNotFound, "SetPlan of an unknown organisation")
}

func testCredits(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	o, le, err := s.AddCredits("acme", 10, "opening grant", T0)
	must(t, err)
	if o.Credits != 10 || le.Seq != 1 || le.Kind != state.LedgerGrant || le.Balance != 10 || le.Note != "opening grant" || !le.Time.Equal(T0) {
		t.Fatalf("AddCredits: %+v %+v", o, le)
	}
	o, le, err = s.AddCredits("acme", -4, "correction", T0.Add(time.Second))
	must(t, err)
	if o.Credits != 6 || le.Seq != 2 || le.Kind != state.LedgerAdjust || le.Balance != 6 {
		t.Fatalf("AddCredits(-4): %+v %+v", o, le)
	}
	for _, c := range []struct {
		org  string
		n    int64
		note string
		kind error
	}{
		{"acme", -7, "too much", state.ErrInvalid},
		{"acme", 0, "nothing", state.ErrInvalid},
		{"acme", 1, "", state.ErrInvalid},
		{"acme", 1, "bad\nnote", state.ErrInvalid},
		{"acme", 1 << 62, "big", nil},
		{"acme", 1 << 62, "bigger", state.ErrInvalid},
		{"nobody", 1, "who", state.ErrNotFound},
	} {
		_, _, err := s.AddCredits(c.org, c.n, c.note, T0)
		if c.kind == nil {
			must(t, err)
			continue
		}
		wantErr(t, err, c.kind, fmt.Sprintf("AddCredits(%s, %d, %q)", c.org, c.n, c.note))
	}
	_, _, err = s.AddCredits("acme", -(1 << 62), "back", T0)
	must(t, err)
	entries := checkLedger(t, s, "acme")
	if len(entries) != 4 {
		t.Fatalf("ledger has %d entries, want 4 (nothing written on error)", len(entries))
	}
	last, err := s.Ledger("acme", 2)
	must(t, err)
	if len(last) != 2 || last[0].Seq != 3 || last[1].Seq != 4 {
		t.Fatalf("Ledger(limit 2): %+v", last)
	}
	addOrg(t, s, "empty")
	none, err := s.Ledger("empty", 0)
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("Ledger of a new organisation: %+v", none)
	}
	_, err = s.Ledger("nobody", 0)
	wantErr(t, err, state.ErrNotFound, "Ledger of an unknown organisation")
	u, err := s.Usage("acme", T0)
	must(t, err)
	if u.Credits != 6 || u.Plan != state.PlanTrial || u.Allowance != state.PlanAllowance[state.PlanTrial] || u.Month != "2026-11" || u.Day != "2026-11-22" || u.DailyCeiling != state.DailyCeiling {
		t.Fatalf("Usage: %+v", u)
	}
	_, err = s.Usage("nobody", T0)
	wantErr(t, err, state.ErrNotFound, "Usage of an unknown organisation")
}

func testKeys(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	addOrg(t, s, "other")
	k, secret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "analyst", Name: "ci", Datasets: []string{"b", "a", "b"}, Now: T0})
	must(t, err)
	if !strings.HasPrefix(secret, state.SecretPrefix) || len(secret) != state.SecretLen || k.Digest != state.Digest(secret) {
		t.Fatalf("MintKey: secret %d characters, digest mismatch", len(secret))
	}
	if !slices.Equal(k.Datasets, []string{"a", "b"}) || !k.Created.Equal(T0) || !k.Expires.Equal(T0.Add(state.DefaultTTL)) || !k.Has(state.CapAskQuery) {
		t.Fatalf("MintKey: %+v", k)
	}
	for _, c := range []struct {
		req  state.MintRequest
		kind error
	}{
		{state.MintRequest{OrgID: "acme", Preset: "root"}, state.ErrInvalid},
		{state.MintRequest{OrgID: "acme", Preset: "full", TTL: -time.Hour}, state.ErrInvalid},
		{state.MintRequest{OrgID: "acme", Preset: "full", Datasets: []string{"Bad"}}, state.ErrInvalid},
		{state.MintRequest{OrgID: "nobody", Preset: "full"}, state.ErrNotFound},
		{state.MintRequest{OrgID: "nobody", Preset: "root"}, state.ErrInvalid},
	} {
		_, _, err := s.MintKey(c.req)
		wantErr(t, err, c.kind, fmt.Sprintf("MintKey(%+v)", c.req))
	}
	k2, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: T0.Add(time.Second)})
	must(t, err)
	k3, _, err := s.MintKey(state.MintRequest{OrgID: "other", Preset: "locality", Now: T0})
	must(t, err)
	keys, err := s.Keys("acme")
	must(t, err)
	if len(keys) != 2 || keys[0].ID != k.ID || keys[1].ID != k2.ID {
		t.Fatalf("Keys(acme): %v", keys)
	}
	all, err := s.Keys("")
	must(t, err)
	if len(all) != 3 {
		t.Fatalf("Keys(\"\"): %v", all)
	}
	_, err = s.Keys("nobody")
	wantErr(t, err, state.ErrNotFound, "Keys of an unknown organisation")
	got, err := s.Key(k.ID)
	must(t, err)
	if got.ID != k.ID || got.Digest != k.Digest || !slices.Equal(got.Caps, k.Caps) || got.Name != "ci" || !got.Revoked.IsZero() {
		t.Fatalf("Key: %+v, want %+v", got, k)
	}
	_, err = s.Key("key_nothing")
	wantErr(t, err, state.ErrNotFound, "Key of an unknown id")

	kr, err := s.Keyring()
	must(t, err)
	if kr.Len() != 3 {
		t.Fatalf("Keyring holds %d keys", kr.Len())
	}
	if found, err := kr.Lookup(secret, T0.Add(time.Hour)); err != nil || found.ID != k.ID {
		t.Fatalf("Lookup: %v %v", found, err)
	}
	if _, err := kr.Lookup(secret+"x", T0); !errors.Is(err, state.ErrUnknownKey) {
		t.Fatalf("Lookup of a wrong secret: %v", err)
	}
	rk, err := s.RevokeKey(k.ID, T0.Add(time.Minute))
	must(t, err)
	if !rk.Revoked.Equal(T0.Add(time.Minute)) {
		t.Fatalf("RevokeKey: %+v", rk)
	}
	rk, err = s.RevokeKey(k.ID, T0.Add(time.Hour))
	must(t, err)
	if !rk.Revoked.Equal(T0.Add(time.Minute)) {
		t.Fatalf("RevokeKey again changed the time: %v", rk.Revoked)
	}
	_, err = s.RevokeKey("key_nothing", T0)
	wantErr(t, err, state.ErrNotFound, "RevokeKey of an unknown id")
	kr, err = s.Keyring()
	must(t, err)
	if _, err := kr.Lookup(secret, T0.Add(time.Hour)); !errors.Is(err, state.ErrRevokedKey) {
		t.Fatalf("Lookup of a revoked key: %v", err)
	}
	_ = k3
	// A member's Explore key records the member; a look-alike name does not.
	mk, _, err := s.MintKey(state.MintRequest{OrgID: "other", Preset: "full", Name: "console: mo", Member: "mo", Now: T0})
	must(t, err)
	fake, _, err := s.MintKey(state.MintRequest{OrgID: "other", Preset: "full", Name: "console: mo", Now: T0})
	must(t, err)
	if got, err := s.Key(mk.ID); err != nil || got.Member != "mo" {
		t.Fatalf("Key of a member's key: %+v %v", got, err)
	}
	if got, err := s.Key(fake.ID); err != nil || got.Member != "" {
		t.Fatalf("Key of a look-alike: %+v %v", got, err)
	}
}

func testKeyUses(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	k, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: T0})
	must(t, err)
	u := state.NewKeyUses()
	n, err := s.FlushKeyUses(u)
	must(t, err)
	if n != 0 {
		t.Fatalf("FlushKeyUses of nothing wrote %d", n)
	}
	u.Seen(k.ID, T0.Add(time.Hour))
	if n, err = s.FlushKeyUses(u); err != nil || n != 1 {
		t.Fatalf("FlushKeyUses: %d %v", n, err)
	}
	if n, err = s.FlushKeyUses(u); err != nil || n != 0 {
		t.Fatalf("FlushKeyUses again: %d %v", n, err)
	}
	// An older use flushed by another process does not go back in time.
	older := state.NewKeyUses()
	older.Seen(k.ID, T0)
	_, err = s.FlushKeyUses(older)
	must(t, err)
	last, err := s.KeysLastUsed([]string{k.ID, "key_never"})
	must(t, err)
	if len(last) != 1 || !last[k.ID].Equal(T0.Add(time.Hour)) {
		t.Fatalf("KeysLastUsed: %v", last)
	}
}

func addDatasets(t *testing.T, e Env) {
	addOrg(t, e.Store, "owner")
	addOrg(t, e.Store, "acme")
	e.AddDataset(t, state.Dataset{ID: "pop", Name: "Population", Owner: "owner", Price: 2})
	e.AddDataset(t, state.Dataset{ID: "roads", Name: "Roads", Owner: "owner", Price: 1})
	e.AddDataset(t, state.Dataset{ID: "mine", Name: "Mine", Owner: "acme", Price: 5})
}

func accessOf(t *testing.T, s state.Store, k state.Key) string {
	t.Helper()
	acc, err := s.Readable(k)
	must(t, err)
	var parts []string
	for _, a := range acc {
		p := fmt.Sprintf("%s@%d", a.Dataset.ID, a.Dataset.Price)
		if a.PerQuery {
			p += "/pq"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func testLicences(t *testing.T, e Env) {
	s := e.Store
	addDatasets(t, e)
	key := state.Key{ID: "key_x", OrgID: "acme"}
	if got := accessOf(t, s, key); got != "mine@5" {
		t.Fatalf("Readable before licences: %q", got)
	}
	l, err := s.GrantLicence("acme", "pop", state.LicencePerQuery, T0)
	must(t, err)
	if l.OrgID != "acme" || l.Dataset != "pop" || l.Mode != state.LicencePerQuery || !l.Granted.Equal(T0) {
		t.Fatalf("GrantLicence: %+v", l)
	}
	_, err = s.GrantLicence("acme", "roads", state.LicenceSubscription, T0)
	must(t, err)
	for _, c := range []struct {
		org, ds, mode string
		kind          error
	}{
		{"acme", "pop", "forever", state.ErrInvalid},
		{"acme", "mine", state.LicencePerQuery, state.ErrInvalid},
		{"acme", "nothing", state.LicencePerQuery, state.ErrNotFound},
		{"nobody", "pop", state.LicencePerQuery, state.ErrNotFound},
	} {
		_, err := s.GrantLicence(c.org, c.ds, c.mode, T0)
		wantErr(t, err, c.kind, fmt.Sprintf("GrantLicence(%s, %s, %s)", c.org, c.ds, c.mode))
	}
	if got := accessOf(t, s, key); got != "mine@5 pop@2/pq roads@1" {
		t.Fatalf("Readable: %q", got)
	}
	if got := accessOf(t, s, state.Key{OrgID: "acme", Datasets: []string{"pop"}}); got != "pop@2/pq" {
		t.Fatalf("Readable of a narrowed key: %q", got)
	}
	d, err := s.SetPrice("pop", 7)
	must(t, err)
	if d.Price != 7 || d.ID != "pop" || d.Owner != "owner" {
		t.Fatalf("SetPrice: %+v", d)
	}
	_, err = s.SetPrice("pop", -1)
	wantErr(t, err, state.ErrInvalid, "SetPrice below zero")
	_, err = s.SetPrice("nothing", 1)
	wantErr(t, err, state.ErrNotFound, "SetPrice of an unknown dataset")
	// The licence keeps the price it was granted at; a new one pays the new.
	if got := accessOf(t, s, key); got != "mine@5 pop@2/pq roads@1" {
		t.Fatalf("Readable after SetPrice: %q", got)
	}
	addOrg(t, s, "later")
	_, err = s.GrantLicence("later", "pop", state.LicencePerQuery, T0)
	must(t, err)
	if got := accessOf(t, s, state.Key{OrgID: "later"}); got != "pop@7/pq" {
		t.Fatalf("Readable of a licence granted after SetPrice: %q", got)
	}
	ls, err := s.Licences("")
	must(t, err)
	if len(ls) != 3 || ls[0].Dataset != "pop" || ls[0].Price != 2 || !ls[0].Priced || ls[1].Dataset != "roads" || ls[2].OrgID != "later" || ls[2].Price != 7 {
		t.Fatalf("Licences: %+v", ls)
	}
	_, err = s.Licences("nobody")
	wantErr(t, err, state.ErrNotFound, "Licences of an unknown organisation")
	must(t, s.RevokeLicence("acme", "pop"))
	wantErr(t, s.RevokeLicence("acme", "pop"), state.ErrNotFound, "RevokeLicence twice")
	if got := accessOf(t, s, key); got != "mine@5 roads@1" {
		t.Fatalf("Readable after RevokeLicence: %q", got)
	}
	if got := accessOf(t, s, state.Key{}); got != "" {
		t.Fatalf("Readable of a key without organisation: %q", got)
	}
}

// testTerms: a licence is granted only on the terms the buyer saw, and
// keeps them when the seller changes its price.
func testTerms(t *testing.T, e Env) {
	s := e.Store
	addDatasets(t, e)
	grant(t, s, "acme", 1000)
	addOrg(t, s, "late")
	grant(t, s, "late", 1000)
	_, err := s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 1}, T0)
	must(t, err)
	list, err := s.Offers()
	must(t, err)
	seen := list[0].Terms() // the page the buyer saw: 1 credit per query
	// The seller re-offers it as a 900-credit subscription before the
	// buyer confirms: nothing is licensed or charged.
	_, err = s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 900}, T0)
	must(t, err)
	_, entry, err := s.LicenseOffer("acme", "roads", &seen, T0)
	wantErr(t, err, state.ErrTermsChanged, "LicenseOffer after the terms changed")
	if entry != nil || !strings.Contains(err.Error(), "900 credits") {
		t.Fatalf("terms changed: %+v %v", entry, err)
	}
	if ls, _ := s.Licences("acme"); len(ls) != 0 {
		t.Fatalf("a licence on changed terms: %+v", ls)
	}
	if o, _ := s.Org("acme"); o.Credits != 1000 {
		t.Fatalf("the terms race charged: balance %d", o.Credits)
	}
	// Back to 1 credit per query; licensed on the terms seen.
	_, err = s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 1}, T0)
	must(t, err)
	l, entry, err := s.LicenseOffer("acme", "roads", &seen, T0)
	must(t, err)
	if entry != nil || l.Mode != state.LicencePerQuery || l.Price != 1 || !l.Priced {
		t.Fatalf("LicenseOffer on the terms seen: %+v %+v", l, entry)
	}
	// The price rises to 100: acme keeps paying 1, a new licensee pays 100.
	_, err = s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 100}, T0)
	must(t, err)
	_, _, err = s.LicenseOffer("late", "roads", &state.Terms{Mode: state.OfferPerQuery, Price: 100}, T0)
	must(t, err)
	if got := accessOf(t, s, state.Key{OrgID: "acme"}); got != "mine@5 roads@1/pq" {
		t.Fatalf("the existing licensee after a price rise: %q", got)
	}
	if got := accessOf(t, s, state.Key{OrgID: "late"}); got != "roads@100/pq" {
		t.Fatalf("a new licensee after a price rise: %q", got)
	}
	ls, err := s.Licences("")
	must(t, err)
	if len(ls) != 2 || ls[0].Price != 1 || ls[1].Price != 100 {
		t.Fatalf("Licences record their prices: %+v", ls)
	}
	checkLedger(t, s, "acme")
	checkLedger(t, s, "late")
}

func testOffers(t *testing.T, e Env) {
	s := e.Store
	addDatasets(t, e)
	grant(t, s, "acme", 10)
	o, err := s.SetOffer(state.Offer{Dataset: "pop", Mode: state.OfferSubscription, Price: 4, LicenceText: "CC BY 4.0\nattribution"}, T0)
	must(t, err)
	if !o.Updated.Equal(T0) || o.Price != 4 {
		t.Fatalf("SetOffer: %+v", o)
	}
	_, err = s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 3}, T0)
	must(t, err)
	for _, bad := range []state.Offer{
		{Dataset: "pop", Mode: "gift"},
		{Dataset: "pop", Mode: state.OfferSubscription, Price: -1},
		{Dataset: "pop", Mode: state.OfferSubscription, LicenceText: "a\x00b"},
	} {
		_, err := s.SetOffer(bad, T0)
		wantErr(t, err, state.ErrInvalid, fmt.Sprintf("SetOffer(%+v)", bad))
	}
	_, err = s.SetOffer(state.Offer{Dataset: "nothing", Mode: state.OfferPerQuery, Price: 1}, T0)
	wantErr(t, err, state.ErrNotFound, "SetOffer of an unknown dataset")
	list, err := s.Offers()
	must(t, err)
	if len(list) != 2 || list[0].Dataset != "pop" || list[0].LicenceText != "CC BY 4.0\nattribution" || list[1].Dataset != "roads" || list[1].Price != 3 || list[1].Info.Price != 3 {
		t.Fatalf("Offers: %+v", list)
	}
	// A per-query offer's price is the dataset's price.
	_, err = s.SetPrice("roads", 2)
	must(t, err)
	if list, _ = s.Offers(); list[1].Price != 2 {
		t.Fatalf("Offers after SetPrice: %+v", list[1])
	}

	l, entry, err := s.LicenseOffer("acme", "pop", nil, T0)
	must(t, err)
	if l.Mode != state.LicenceSubscription || entry == nil || entry.Kind != state.LedgerLicence || entry.Credits != -4 || entry.Balance != 6 || entry.Dataset != "pop" {
		t.Fatalf("LicenseOffer: %+v %+v", l, entry)
	}
	_, _, err = s.LicenseOffer("acme", "pop", nil, T0)
	wantErr(t, err, state.ErrExists, "LicenseOffer twice")
	l, entry, err = s.LicenseOffer("acme", "roads", nil, T0)
	must(t, err)
	if l.Mode != state.LicencePerQuery || entry != nil {
		t.Fatalf("LicenseOffer per query: %+v %+v", l, entry)
	}
	_, _, err = s.LicenseOffer("acme", "mine", nil, T0)
	wantErr(t, err, state.ErrInvalid, "LicenseOffer of an own dataset")
	_, _, err = s.LicenseOffer("nobody", "pop", nil, T0)
	wantErr(t, err, state.ErrNotFound, "LicenseOffer for an unknown organisation")
	addOrg(t, s, "poor")
	_, _, err = s.LicenseOffer("poor", "pop", nil, T0)
	wantErr(t, err, state.ErrInvalid, "LicenseOffer without the credits")
	if ls, _ := s.Licences("poor"); len(ls) != 0 {
		t.Fatalf("a refused LicenseOffer wrote a licence: %+v", ls)
	}
	must(t, s.WithdrawOffer("pop"))
	must(t, s.WithdrawOffer("pop"))
	wantErr(t, s.WithdrawOffer("nothing"), state.ErrNotFound, "WithdrawOffer of an unknown dataset")
	_, _, err = s.LicenseOffer("poor", "pop", nil, T0)
	wantErr(t, err, state.ErrNotFound, "LicenseOffer of a private dataset")
	if o, err := s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPrivate}, T0); err != nil || o.Mode != state.OfferPrivate {
		t.Fatalf("SetOffer private: %+v %v", o, err)
	}
	if list, _ := s.Offers(); len(list) != 0 {
		t.Fatalf("Offers after withdrawing all: %+v", list)
	}
	checkLedger(t, s, "acme")
	checkLedger(t, s, "poor")
}

func testCharge(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	grant(t, s, "acme", 5)
	ds := []state.DatasetPrice{{ID: "c", Price: 1}, {ID: "a", Price: 4}, {ID: "b", Price: 3}, {ID: "free", Price: 0}}
	charged, left, err := s.Charge("acme", "key_1", "req-1", ds, T0)
	must(t, err)
	if !slices.Equal(charged, []string{"a", "c", "free"}) || !slices.Equal(left, []string{"b"}) {
		t.Fatalf("Charge: charged %v, left out %v", charged, left)
	}
	entries := checkLedger(t, s, "acme")
	if len(entries) != 3 || entries[1].Kind != state.LedgerCharge || entries[1].Dataset != "a" || entries[1].KeyID != "key_1" || entries[1].RequestID != "req-1" || entries[2].Dataset != "c" {
		t.Fatalf("ledger after Charge: %+v", entries)
	}
	u, err := s.Usage("acme", T0)
	must(t, err)
	want := []state.DatasetCharge{{Dataset: "a", Requests: 1, Credits: 4}, {Dataset: "c", Requests: 1, Credits: 1}, {Dataset: "free", Requests: 1}}
	if !slices.Equal(u.Charges, want) || u.Credits != 0 {
		t.Fatalf("Usage after Charge: %+v", u)
	}
	if u, _ = s.Usage("acme", T0.AddDate(0, 1, 0)); len(u.Charges) != 0 {
		t.Fatalf("Usage of the next month: %+v", u.Charges)
	}
	charged, left, err = s.Charge("acme", "key_1", "req-2", nil, T0)
	if err != nil || charged != nil || left != nil {
		t.Fatalf("Charge of nothing: %v %v %v", charged, left, err)
	}
	for _, c := range []struct {
		org  string
		ds   []state.DatasetPrice
		req  string
		kind error
	}{
		{"acme", []state.DatasetPrice{{ID: "a", Price: 1}, {ID: "a", Price: 1}}, "r", state.ErrInvalid},
		{"acme", []state.DatasetPrice{{ID: "A", Price: 1}}, "r", state.ErrInvalid},
		{"acme", []state.DatasetPrice{{ID: "a", Price: -1}}, "r", state.ErrInvalid},
		{"acme", []state.DatasetPrice{{ID: "a", Price: 1}}, strings.Repeat("r", 201), state.ErrInvalid},
		{"nobody", []state.DatasetPrice{{ID: "a", Price: 1}}, "r", state.ErrNotFound},
	} {
		_, _, err := s.Charge(c.org, "key_1", c.req, c.ds, T0)
		wantErr(t, err, c.kind, fmt.Sprintf("Charge(%s, %v)", c.org, c.ds))
	}
	if got := checkLedger(t, s, "acme"); len(got) != 3 {
		t.Fatalf("a refused charge wrote the ledger: %+v", got)
	}
}

func testAnswers(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	r, err := s.ReserveAnswer("acme", "key_1", "req-1", 2, T0)
	must(t, err)
	if r.ID == 0 || r.Source != state.SourceAllowance || r.Credits != 0 || r.Month != "2026-11" || r.Day != "2026-11-22" || !r.Time.Equal(T0) {
		t.Fatalf("ReserveAnswer: %+v", r)
	}
	must(t, s.CommitAnswer(r))
	must(t, s.CommitAnswer(r)) // again: nothing
	wantErr(t, s.RefundAnswer(r, T0), state.ErrNotFound, "RefundAnswer after CommitAnswer")

	r2, err := s.ReserveAnswer("acme", "key_1", "req-2", 2, T0)
	must(t, err)
	if r2.ID <= r.ID {
		t.Fatalf("reservation ids %d then %d", r.ID, r2.ID)
	}
	u, _ := s.Usage("acme", T0)
	if u.AnswersThisMonth != 2 || u.AnswersToday != 2 {
		t.Fatalf("Usage after two answers: %+v", u)
	}
	must(t, s.RefundAnswer(r2, T0))
	wantErr(t, s.RefundAnswer(r2, T0), state.ErrNotFound, "RefundAnswer twice")
	wantErr(t, s.CommitAnswer(r2), state.ErrNotFound, "CommitAnswer after RefundAnswer")
	u, _ = s.Usage("acme", T0)
	if u.AnswersThisMonth != 1 || u.AnswersToday != 1 {
		t.Fatalf("Usage after a refund: %+v", u)
	}
	wantErr(t, s.CommitAnswer(state.Reservation{OrgID: "acme"}), state.ErrInvalid, "CommitAnswer without an id")
	wantErr(t, s.CommitAnswer(state.Reservation{ID: r2.ID + 1000, OrgID: "acme"}), state.ErrNotFound, "CommitAnswer of an unknown id")
	addOrg(t, s, "other")
	r3, err := s.ReserveAnswer("acme", "key_1", "req-3", 1, T0)
	must(t, err)
	wantErr(t, s.CommitAnswer(state.Reservation{ID: r3.ID, OrgID: "other"}), state.ErrNotFound, "CommitAnswer for another organisation")
	_, err = s.ReserveAnswer("nobody", "key_1", "r", 1, T0)
	wantErr(t, err, state.ErrNotFound, "ReserveAnswer for an unknown organisation")
	_, err = s.ReserveAnswer("acme", strings.Repeat("k", 201), "r", 1, T0)
	wantErr(t, err, state.ErrInvalid, "ReserveAnswer with an over-long key id")

	// Left pending by a process that stopped: recovered later.
	n, err := s.RecoverPending(T0.Add(5 * time.Minute))
	must(t, err)
	if n != 1 {
		t.Fatalf("RecoverPending refunded %d, want 1", n)
	}
	wantErr(t, s.RefundAnswer(r3, T0), state.ErrNotFound, "RefundAnswer after RecoverPending")
	if n, err = s.RecoverPending(T0.Add(10 * time.Minute)); err != nil || n != 0 {
		t.Fatalf("RecoverPending again: %d %v", n, err)
	}
	u, _ = s.Usage("acme", T0)
	if u.AnswersThisMonth != 1 || u.AnswersToday != 1 {
		t.Fatalf("Usage after recovery: %+v", u)
	}
}

func testAnswersFromCredits(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	grant(t, s, "acme", 3)
	allowance := state.PlanAllowance[state.PlanTrial]
	for i := range allowance {
		r, err := s.ReserveAnswer("acme", "key_1", fmt.Sprint("a", i), 2, T0)
		must(t, err)
		if r.Source != state.SourceAllowance {
			t.Fatalf("answer %d from %s", i, r.Source)
		}
		must(t, s.CommitAnswer(r))
	}
	r, err := s.ReserveAnswer("acme", "key_1", "paid", 2, T0)
	must(t, err)
	if r.Source != state.SourceCredits || r.Credits != 2 {
		t.Fatalf("answer beyond the allowance: %+v", r)
	}
	_, err = s.ReserveAnswer("acme", "key_1", "broke", 2, T0)
	wantErr(t, err, state.ErrNoAllowance, "ReserveAnswer without credits")
	must(t, s.RefundAnswer(r, T0.Add(time.Second)))
	entries := checkLedger(t, s, "acme")
	if n := len(entries); n != 3 || entries[1].Kind != state.LedgerAnswer || entries[2].Kind != state.LedgerRefund || entries[2].Credits != 2 || entries[2].RequestID != "paid" {
		t.Fatalf("ledger: %+v", entries)
	}
	u, _ := s.Usage("acme", T0)
	if u.AnswersThisMonth != allowance || u.Credits != 3 {
		t.Fatalf("Usage: %+v", u)
	}
	// The next day is a new day, not a new month.
	r, err = s.ReserveAnswer("acme", "key_1", "next-day", 1, T0.Add(24*time.Hour))
	must(t, err)
	if r.Source != state.SourceCredits || r.Day != "2026-11-23" {
		t.Fatalf("next day: %+v", r)
	}
	// A new month has its allowance again.
	r, err = s.ReserveAnswer("acme", "key_1", "next-month", 1, T0.AddDate(0, 1, 0))
	must(t, err)
	if r.Source != state.SourceAllowance {
		t.Fatalf("next month: %+v", r)
	}
}

func testDailyCeiling(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	_, err := s.SetPlan("acme", state.PlanScale)
	must(t, err)
	for i := range state.DailyCeiling {
		_, err := s.ReserveAnswer("acme", "key_1", fmt.Sprint("r", i), 1, T0)
		must(t, err)
	}
	_, err = s.ReserveAnswer("acme", "key_1", "one-more", 1, T0)
	wantErr(t, err, state.ErrNoAllowance, "ReserveAnswer past the daily ceiling")
	if !strings.Contains(err.Error(), "daily ceiling") {
		t.Fatalf("the error does not name the daily ceiling: %v", err)
	}
	r, err := s.ReserveAnswer("acme", "key_1", "tomorrow", 1, T0.Add(24*time.Hour))
	must(t, err)
	if r.Source != state.SourceAllowance {
		t.Fatalf("the next day: %+v", r)
	}
	u, _ := s.Usage("acme", T0)
	if u.AnswersToday != state.DailyCeiling || u.AnswersThisMonth != state.DailyCeiling+1 {
		t.Fatalf("Usage: %+v", u)
	}
}

// testConcurrentAnswers: with the allowance spent, 50 reservations at once
// against credits for 10 reserve exactly 10.
func testConcurrentAnswers(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	for i := range state.PlanAllowance[state.PlanTrial] {
		r, err := s.ReserveAnswer("acme", "key_1", fmt.Sprint("a", i), 1, T0)
		must(t, err)
		must(t, s.CommitAnswer(r))
	}
	grant(t, s, "acme", 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []state.Reservation
	refused := 0
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			r, err := s.ReserveAnswer("acme", "key_1", fmt.Sprint("c", i), 1, T0)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, state.ErrNoAllowance):
				refused++
			case err != nil:
				errs <- err
			default:
				got = append(got, r)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(got) != 10 || refused != 40 {
		t.Fatalf("%d reserved, %d refused; want 10 and 40", len(got), refused)
	}
	ids := map[uint64]bool{}
	for _, r := range got {
		if r.Source != state.SourceCredits || ids[r.ID] {
			t.Fatalf("reservation %+v (ids must differ)", r)
		}
		ids[r.ID] = true
	}
	// Half are refunded at once, concurrently: the balance comes back
	// by exactly 5.
	for _, r := range got[:5] {
		wg.Go(func() { must(t, s.RefundAnswer(r, T0)) })
	}
	wg.Wait()
	o, err := s.Org("acme")
	must(t, err)
	if o.Credits != 5 {
		t.Fatalf("balance %d after 10 paid answers and 5 refunds, want 5", o.Credits)
	}
	checkLedger(t, s, "acme")
}

func testAudit(t *testing.T, e Env) {
	s := e.Store
	a, err := s.AppendAudit(state.AuditEntry{Time: T0, Actor: "operator", Org: "acme", Action: "key.mint", Target: "key_1", Outcome: state.AuditOK, Detail: "line\nbreak"})
	must(t, err)
	if a.Seq == 0 || a.Detail != "line break" || !a.Time.Equal(T0) {
		t.Fatalf("AppendAudit: %+v", a)
	}
	b, err := s.AppendAudit(state.AuditEntry{Time: T0, Actor: "ada", Org: "other", Action: "signin", Outcome: state.AuditRefused, Reason: "bad password"})
	must(t, err)
	if b.Seq <= a.Seq {
		t.Fatalf("audit numbers %d then %d", a.Seq, b.Seq)
	}
	_, err = s.AppendAudit(state.AuditEntry{Actor: "x", Outcome: state.AuditOK})
	wantErr(t, err, state.ErrInvalid, "AppendAudit without an action")
	all, err := s.AuditLog("", 0)
	must(t, err)
	if len(all) != 2 || all[0] != b || all[1] != a {
		t.Fatalf("AuditLog: %+v", all)
	}
	one, err := s.AuditLog("acme", 0)
	must(t, err)
	if len(one) != 1 || one[0] != a {
		t.Fatalf("AuditLog(acme): %+v", one)
	}
	if last, _ := s.AuditLog("", 1); len(last) != 1 || last[0] != b {
		t.Fatalf("AuditLog(limit 1): %+v", last)
	}
}

// testAuditedChange: a change made through Audited and its audit
// entry are committed together or not at all. The fault between them is
// an entry the store refuses (no actor), which it finds only after the
// change, in the same transaction.
func testAuditedChange(t *testing.T, e Env) {
	s := e.Store
	ok := func(action, org, target string) *state.AuditEntry {
		return &state.AuditEntry{Time: T0, Actor: "operator", Org: org, Action: action, Target: target, Outcome: state.AuditOK}
	}
	add := ok("org.add", "acme", "acme")
	if _, err := s.Audited(add).AddOrg(state.Org{ID: "acme", Created: T0}); err != nil {
		t.Fatal(err)
	}
	if add.Seq == 0 {
		t.Fatalf("AddOrg through Audited: entry not set as stored: %+v", add)
	}
	mint := ok("key.mint", "acme", "dashboard")
	k, _, err := s.Audited(mint).MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Name: "dashboard", Now: T0})
	must(t, err)
	if mint.Target != k.ID || mint.Seq <= add.Seq {
		t.Fatalf("MintKey through Audited: entry %+v, key %s", mint, k.ID)
	}

	// The fault: the change is made, then its entry cannot be written.
	bad := ok("org.credits", "acme", "acme")
	bad.Actor = ""
	_, _, err = s.Audited(bad).AddCredits("acme", 50, "invoice 1", T0)
	wantErr(t, err, state.ErrInvalid, "AddCredits with an entry the log refuses")
	if o, err := s.Org("acme"); err != nil || o.Credits != 0 {
		t.Fatalf("the change stayed without its entry: %+v, %v", o, err)
	}
	// A change that fails writes no entry.
	dup := ok("org.add", "acme", "acme")
	_, err = s.Audited(dup).AddOrg(state.Org{ID: "acme", Created: T0})
	wantErr(t, err, state.ErrExists, "AddOrg of an existing organisation")
	if dup.Seq != 0 {
		t.Fatalf("a refused change wrote its entry: %+v", dup)
	}
	log, err := s.AuditLog("", 0)
	must(t, err)
	if len(log) != 2 || log[0] != *mint || log[1] != *add {
		t.Fatalf("audit log %+v, want the mint and the org.add", log)
	}
	// The handle writes its entry once; the store itself writes none.
	grant(t, s, "acme", 5)
	if log, _ := s.AuditLog("", 0); len(log) != 2 {
		t.Fatalf("a change without Audited wrote an entry: %+v", log)
	}
}

// testConcurrentCharges: 50 requests at once against credits for 10 charge
// exactly 10 and leave the other 40 out.
func testConcurrentCharges(t *testing.T, e Env) {
	s := e.Store
	addOrg(t, s, "acme")
	grant(t, s, "acme", 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	charged, left := 0, 0
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			c, l, err := s.Charge("acme", "key_1", fmt.Sprint("req-", i), []state.DatasetPrice{{ID: "pop", Price: 1}}, T0)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			charged += len(c)
			left += len(l)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if charged != 10 || left != 40 {
		t.Fatalf("charged %d, left out %d; want 10 and 40", charged, left)
	}
	entries := checkLedger(t, s, "acme")
	if len(entries) != 11 {
		t.Fatalf("ledger has %d entries, want 11", len(entries))
	}
	u, err := s.Usage("acme", T0)
	must(t, err)
	if u.Credits != 0 || len(u.Charges) != 1 || u.Charges[0].Requests != 10 || u.Charges[0].Credits != 10 {
		t.Fatalf("Usage: %+v", u)
	}
}
