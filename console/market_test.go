package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"frameindex/state"
)

// marketFixture adds dataset "pop" owned by acme and "roads" owned by
// rival to the fixture.
func marketFixture(t *testing.T) *fixture {
	f := newFixture(t, false, Config{})
	for _, d := range []state.Dataset{
		{ID: "pop", Owner: "acme", Name: "Population", Description: "People per frame", Source: "census 2026",
			Attributes: []state.Attribute{{Name: "pop", Label: "Estimated population", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2026}}},
		{ID: "roads", Owner: "rival", Name: "Roads"},
	} {
		if _, err := f.store.ImportDataset(d, nil, fixtureStart); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestServer_MarketRoles(t *testing.T) {
	f := marketFixture(t)
	if _, err := f.store.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 2}, fixtureStart); err != nil {
		t.Fatal(err)
	}
	offer := url.Values{"mode": {state.OfferSubscription}, "price": {"3"}, "licence": {"CC BY"}}
	tests := []struct {
		user       string
		wantChange int // status of a change
	}{
		{"olu", http.StatusSeeOther},
		{"ada", http.StatusSeeOther},
		{"mo", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			c := f.signedIn(tt.user)
			res, body := c.get("/console/market")
			if res.StatusCode != http.StatusOK || !strings.Contains(body, "roads") {
				t.Fatalf("catalogue: %d\n%s", res.StatusCode, body)
			}
			if hasForm := strings.Contains(body, `action="/console/market/offers/pop"`); hasForm != (tt.wantChange == http.StatusSeeOther) {
				t.Errorf("offer form shown: %v", hasForm)
			}
			for _, ch := range []struct {
				path string
				form url.Values
			}{
				{"/console/market/offers/pop", offer},
				{"/console/market/offers/pop/withdraw", nil},
			} {
				if res, body := c.change("/console/market", ch.path, ch.form); res.StatusCode != tt.wantChange {
					t.Errorf("POST %s: %d, want %d\n%s", ch.path, res.StatusCode, tt.wantChange, body)
				}
			}
			for _, p := range []string{"/console/market/license/roads", "/console/market/offers/pop/withdraw"} {
				want := http.StatusOK
				if tt.wantChange == http.StatusForbidden {
					want = http.StatusForbidden
				}
				if res, _ := c.get(p); res.StatusCode != want {
					t.Errorf("GET %s: %d, want %d", p, res.StatusCode, want)
				}
			}
		})
	}
	// A member's crafted licensing request is refused and changes nothing.
	mo := f.signedIn("mo")
	if res, _ := mo.change("/console/market", "/console/market/license/roads", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("member licensing: %d", res.StatusCode)
	}
	if ls, _ := f.store.Licences("acme"); len(ls) != 0 {
		t.Errorf("licences after refusals: %v", ls)
	}
	log, _ := f.store.AuditLog("acme", 0)
	refused := 0
	for _, e := range log {
		if e.Outcome == state.AuditRefused {
			refused++
		}
	}
	if refused < 3 {
		t.Errorf("%d refusals in the audit log, want at least 3", refused)
	}
}

func TestServer_MarketCSRF(t *testing.T) {
	f := marketFixture(t)
	olu := f.signedIn("olu")
	for _, form := range []url.Values{
		{"mode": {state.OfferSubscription}, "price": {"3"}},
		{"mode": {state.OfferSubscription}, "price": {"3"}, "csrf": {strings.Repeat("A", 43)}},
	} {
		if res, _ := olu.post("/console/market/offers/pop", form); res.StatusCode != http.StatusForbidden {
			t.Errorf("offer without a valid token: %d", res.StatusCode)
		}
	}
	if ls, _ := f.store.Offers(); len(ls) != 0 {
		t.Errorf("offers after refused posts: %+v", ls)
	}
}

func TestServer_MarketLicensing(t *testing.T) {
	f := marketFixture(t)
	olu, rivo := f.signedIn("olu"), f.signedIn("rivo")
	steps := []struct {
		name  string
		c     *client
		path  string
		form  url.Values
		want  int
		check func(t *testing.T)
	}{
		{name: "another organisation cannot offer acme's dataset", c: rivo, path: "/console/market/offers/pop",
			form: url.Values{"mode": {state.OfferPerQuery}, "price": {"0"}}, want: http.StatusNotFound},
		{name: "a private dataset cannot be licensed", c: rivo, path: "/console/market/license/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}}, want: http.StatusNotFound},
		{name: "bad price", c: olu, path: "/console/market/offers/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"-1"}}, want: http.StatusBadRequest},
		{name: "bad mode", c: olu, path: "/console/market/offers/pop", form: url.Values{"mode": {"free"}}, want: http.StatusBadRequest},
		{name: "owner offers", c: olu, path: "/console/market/offers/pop",
			form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}, "licence": {"Attribution required"}}, want: http.StatusSeeOther},
		{name: "an owner cannot license its own", c: olu, path: "/console/market/license/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}}, want: http.StatusBadRequest},
		{name: "too few credits", c: rivo, path: "/console/market/license/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}}, want: http.StatusBadRequest, check: func(t *testing.T) {
			if ls, _ := f.store.Licences("rival"); len(ls) != 0 {
				t.Errorf("licence without payment: %v", ls)
			}
			if _, _, err := f.store.AddCredits("rival", 8, "test", fixtureStart); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "without the terms seen", c: rivo, path: "/console/market/license/pop", want: http.StatusBadRequest},
		{name: "licensed", c: rivo, path: "/console/market/license/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}}, want: http.StatusSeeOther, check: func(t *testing.T) {
			o, entries, _ := f.store.OrgLedger("rival", 0)
			if ls, _ := f.store.Licences("rival"); len(ls) != 1 || ls[0].Mode != state.LicenceSubscription {
				t.Errorf("licences: %v", ls)
			}
			if last := entries[len(entries)-1]; o.Credits != 3 || last.Kind != state.LedgerLicence || last.Credits != -5 {
				t.Errorf("balance %d, last entry %+v", o.Credits, last)
			}
		}},
		{name: "twice", c: rivo, path: "/console/market/license/pop", form: url.Values{"mode": {state.OfferSubscription}, "price": {"5"}}, want: http.StatusConflict},
		{name: "another organisation cannot withdraw", c: rivo, path: "/console/market/offers/pop/withdraw", want: http.StatusNotFound},
		{name: "owner withdraws", c: olu, path: "/console/market/offers/pop/withdraw", want: http.StatusSeeOther, check: func(t *testing.T) {
			if ls, _ := f.store.Licences("rival"); len(ls) != 1 {
				t.Errorf("withdrawal ended licences: %v", ls)
			}
			if _, body := rivo.get("/console/market"); strings.Contains(body, "Attribution required") {
				t.Errorf("withdrawn offer still in the catalogue")
			}
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res, body := st.c.change("/console/market", st.path, st.form)
			if res.StatusCode != st.want {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, st.want, body)
			}
			if st.check != nil {
				st.check(t)
			}
		})
		if st.name == "owner offers" {
			_, body := rivo.get("/console/market")
			for _, want := range []string{"Population", "People per frame", "census 2026", "Attribution required", "Estimated population", "2026", "5 credits once"} {
				if !strings.Contains(body, want) {
					t.Errorf("catalogue lacks %q", want)
				}
			}
			if _, body := olu.get("/console/market"); strings.Contains(body, "/console/market/license/pop") {
				t.Errorf("acme's catalogue offers its own dataset")
			}
			if _, body := rivo.get("/console/market/license/pop"); !strings.Contains(body, "5 credits will be taken") {
				t.Errorf("confirmation lacks the price:\n%s", body)
			}
		}
	}
	_, body := olu.get("/console/market")
	if !strings.Contains(body, "pop to rival: subscription") {
		t.Errorf("licences given not listed")
	}
	_, body = rivo.get("/console/market")
	if !strings.Contains(body, "pop: subscription") {
		t.Errorf("licences held not listed")
	}
}

var hiddenRe = regexp.MustCompile(`<input type="hidden" name="(mode|price)" value="([^"]*)">`)

// termsForm returns the terms the licence confirmation at path carries.
func termsForm(t *testing.T, body string) url.Values {
	t.Helper()
	form := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], m[2])
	}
	if form.Get("mode") == "" || form.Get("price") == "" {
		t.Fatalf("the licence confirmation carries no terms:\n%s", body)
	}
	return form
}

// TestServer_MarketTermsChanged: the seller turns a 1-credit per-query
// offer into a 900-credit subscription between the buyer's confirmation
// page and its confirming: nothing is licensed or charged, and the page
// says the terms changed, with the old and the new.
func TestServer_MarketTermsChanged(t *testing.T) {
	f := marketFixture(t)
	olu := f.signedIn("olu")
	if _, err := f.store.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 1}, fixtureStart); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.AddCredits("acme", 1000, "test", fixtureStart); err != nil {
		t.Fatal(err)
	}
	_, page := olu.get("/console/market/license/roads")
	form := termsForm(t, page)
	if form.Get("mode") != state.OfferPerQuery || form.Get("price") != "1" {
		t.Fatalf("terms on the page: %v", form)
	}
	if _, err := f.store.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 900}, fixtureStart); err != nil {
		t.Fatal(err)
	}
	res, body := olu.change("/console/market/license/roads", "/console/market/license/roads", form)
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("status %d, want 409\n%s", res.StatusCode, body)
	}
	for _, want := range []string{"The terms changed", "You agreed to 1 credit per query", "a subscription for 900 credits", "Nothing was licensed or charged"} {
		if !strings.Contains(body, want) {
			t.Errorf("the terms-changed page lacks %q:\n%s", want, body)
		}
	}
	if ls, _ := f.store.Licences("acme"); len(ls) != 0 {
		t.Fatalf("licensed on changed terms: %+v", ls)
	}
	o, entries, _ := f.store.OrgLedger("acme", 0)
	if o.Credits != 1000 || len(entries) != 1 {
		t.Fatalf("the terms race moved credits: balance %d, ledger %+v", o.Credits, entries)
	}
	// The page offers the new terms; confirming them licenses at 900.
	res, body = olu.change("/console/market/license/roads", "/console/market/license/roads", termsForm(t, body))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirming the new terms: %d\n%s", res.StatusCode, body)
	}
	if o, _ := f.store.Org("acme"); o.Credits != 100 {
		t.Fatalf("balance after the subscription: %d", o.Credits)
	}
	if ls, _ := f.store.Licences("acme"); len(ls) != 1 || ls[0].Mode != state.LicenceSubscription || ls[0].Price != 900 {
		t.Fatalf("licence: %+v", ls)
	}
}
