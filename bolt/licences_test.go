package bolt

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"frameindex/state"
)

// licenceStore has organisations acme, beta and gamma; acme owns "pop" and
// "roads", beta owns "health" and "zones".
func licenceStore(t *testing.T) *Store {
	t.Helper()
	s := MustOpenStore(t)
	for _, o := range []string{"acme", "beta", "gamma"} {
		mustAddOrg(t, s, o, "pro", 0)
	}
	for _, d := range []state.Dataset{
		{ID: "pop", Owner: "acme", Price: 1},
		{ID: "roads", Owner: "acme", Price: 3},
		{ID: "health", Owner: "beta", Price: 2},
		{ID: "zones", Owner: "beta"},
	} {
		mustImport(t, s, d, nil)
	}
	return s
}

func TestStore_GrantLicence(t *testing.T) {
	later := testNow.Add(time.Hour)
	tests := []struct {
		name      string
		org, ds   string
		mode      string
		wantErr   error
		text      string
		wantAfter []state.Licence // beta's licences after the call
	}{
		{name: "per query", org: "beta", ds: "pop", mode: state.LicencePerQuery,
			wantAfter: []state.Licence{{OrgID: "beta", Dataset: "pop", Mode: state.LicencePerQuery, Granted: later, Price: 1, Priced: true}, {OrgID: "beta", Dataset: "roads", Mode: state.LicenceSubscription, Granted: testNow.Round(0), Priced: true}}},
		{name: "replace", org: "beta", ds: "roads", mode: state.LicencePerQuery,
			wantAfter: []state.Licence{{OrgID: "beta", Dataset: "roads", Mode: state.LicencePerQuery, Granted: later, Price: 3, Priced: true}}},
		{name: "own dataset", org: "beta", ds: "health", mode: state.LicenceSubscription, wantErr: state.ErrInvalid,
			text: "organisation beta owns dataset health"},
		{name: "unknown mode", org: "beta", ds: "pop", mode: "flat", wantErr: state.ErrInvalid,
			text: `invalid licence mode "flat": must be subscription or per_query`},
		{name: "unknown org", org: "nope", ds: "pop", mode: state.LicencePerQuery, wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{name: "unknown dataset", org: "beta", ds: "nope", mode: state.LicencePerQuery, wantErr: state.ErrNotFound, text: `dataset "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := licenceStore(t)
			if _, err := s.GrantLicence("beta", "roads", state.LicenceSubscription, testNow); err != nil {
				t.Fatal(err)
			}
			l, err := s.GrantLicence(tt.org, tt.ds, tt.mode, later)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("GrantLicence error = %v, want %v", err, tt.wantErr)
				}
				assertErrText(t, err, tt.text)
				tt.wantAfter = []state.Licence{{OrgID: "beta", Dataset: "roads", Mode: state.LicenceSubscription, Granted: testNow.Round(0), Priced: true}}
			} else if err != nil {
				t.Fatal(err)
			} else if want := tt.wantAfter[0]; l != want {
				t.Errorf("GrantLicence = %+v, want %+v", l, want)
			}
			got, err := s.Licences("beta")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.wantAfter) {
				t.Errorf("Licences(beta) = %+v, want %+v", got, tt.wantAfter)
			}
		})
	}
}

func TestStore_LicencesAndRevoke(t *testing.T) {
	s := licenceStore(t)
	// Org ids "a" < "a-b" in id order, but "a-b/" < "a/" in byte order.
	mustAddOrg(t, s, "a", "pro", 0)
	mustAddOrg(t, s, "a-b", "pro", 0)
	for _, l := range [][2]string{{"gamma", "pop"}, {"a-b", "pop"}, {"a", "zones"}, {"a", "health"}, {"beta", "pop"}} {
		if _, err := s.GrantLicence(l[0], l[1], state.LicenceSubscription, testNow); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Licences("")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, l := range all {
		got = append(got, [2]string{l.OrgID, l.Dataset})
	}
	want := [][2]string{{"a", "health"}, {"a", "zones"}, {"a-b", "pop"}, {"beta", "pop"}, {"gamma", "pop"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Licences() = %v, want %v", got, want)
	}
	if l, err := s.Licences("a"); err != nil || len(l) != 2 {
		t.Errorf("Licences(a) = %v, %v; want 2 (not a-b's)", l, err)
	}
	if l, err := s.Licences("acme"); err != nil || l != nil {
		t.Errorf("Licences(acme) = %v, %v; want none", l, err)
	}
	if _, err := s.Licences("nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Licences(nope) = %v, want ErrNotFound", err)
	}

	if err := s.RevokeLicence("a", "zones"); err != nil {
		t.Fatal(err)
	}
	err = s.RevokeLicence("a", "zones")
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("second RevokeLicence = %v, want ErrNotFound", err)
	}
	assertErrText(t, err, `organisation "a" holds no licence for dataset "zones"`)
	if l, _ := s.Licences("a"); len(l) != 1 || l[0].Dataset != "health" {
		t.Errorf("after revoke Licences(a) = %v", l)
	}
}

func TestStore_Readable(t *testing.T) {
	s := licenceStore(t)
	grant := func(org, ds, mode string) {
		t.Helper()
		if _, err := s.GrantLicence(org, ds, mode, testNow); err != nil {
			t.Fatal(err)
		}
	}
	grant("acme", "health", state.LicencePerQuery)
	grant("acme", "zones", state.LicenceSubscription)
	grant("gamma", "pop", state.LicencePerQuery)

	type access struct {
		id       string
		perQuery bool
	}
	tests := []struct {
		name string
		key  state.Key
		want []access
	}{
		{name: "own and licensed", key: state.Key{OrgID: "acme"},
			want: []access{{"health", true}, {"pop", false}, {"roads", false}, {"zones", false}}},
		{name: "narrowed", key: state.Key{OrgID: "acme", Datasets: []string{"zones", "health", "missing"}},
			want: []access{{"health", true}, {"zones", false}}},
		{name: "narrowed to another's unlicensed dataset", key: state.Key{OrgID: "gamma", Datasets: []string{"health"}}},
		{name: "licensee only", key: state.Key{OrgID: "gamma"}, want: []access{{"pop", true}}},
		{name: "owner only", key: state.Key{OrgID: "beta"}, want: []access{{"health", false}, {"zones", false}}},
		{name: "unknown organisation", key: state.Key{OrgID: "nope"}},
		{name: "no organisation", key: state.Key{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc, err := s.Readable(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			var got []access
			for _, a := range acc {
				got = append(got, access{a.Dataset.ID, a.PerQuery})
				if a.Dataset.Version != 1 || a.Dataset.Owner == "" {
					t.Errorf("access to %+v: the description is not the stored one", a.Dataset)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Readable = %v, want %v", got, tt.want)
			}
		})
	}

	// Revoking and removing take effect on the next call.
	if err := s.RevokeLicence("acme", "health"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("zones"); err != nil {
		t.Fatal(err)
	}
	acc, err := s.Readable(state.Key{OrgID: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(acc) != 2 || acc[0].Dataset.ID != "pop" || acc[1].Dataset.ID != "roads" {
		t.Errorf("after revoke and removal Readable = %+v", acc)
	}
}

func BenchmarkStore_Readable(b *testing.B) {
	s, _ := dataStore(b, 10)
	mustAddOrg(b, s, "beta", "pro", 0)
	for _, id := range []string{"health", "roads"} {
		if _, err := s.GrantLicence("beta", id, state.LicencePerQuery, testNow); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		acc, err := s.Readable(state.Key{OrgID: "beta"})
		if err != nil || len(acc) != 2 {
			b.Fatal(acc, err)
		}
	}
}
