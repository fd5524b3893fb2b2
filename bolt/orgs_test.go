package bolt

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

func TestStore_AddOrg(t *testing.T) {
	lagos := time.FixedZone("WAT", 3600)
	tests := []struct {
		name    string
		in      state.Org
		want    state.Org // when wantErr is nil
		wantErr error     // sentinel
		text    string    // in the error
	}{
		{
			name: "defaults",
			in:   state.Org{ID: "acme"},
			want: state.Org{ID: "acme", Name: "acme", Plan: "trial", Created: testNow},
		},
		{
			name: "everything given",
			in:   state.Org{ID: "ng-stats_2", Name: "Bureau of Statistics — Abuja", Plan: "scale", Created: time.Date(2024, 1, 2, 3, 4, 5, 0, lagos)},
			want: state.Org{ID: "ng-stats_2", Name: "Bureau of Statistics — Abuja", Plan: "scale", Created: time.Date(2024, 1, 2, 2, 4, 5, 0, time.UTC)},
		},
		{
			name: "pro, 64-character id",
			in:   state.Org{ID: strings.Repeat("a", 64), Plan: "pro"},
			want: state.Org{ID: strings.Repeat("a", 64), Name: strings.Repeat("a", 64), Plan: "pro", Created: testNow},
		},
		{name: "empty id", in: state.Org{}, wantErr: state.ErrInvalid, text: `invalid organisation id "": must match ^[a-z0-9][a-z0-9_-]{0,63}$`},
		{name: "uppercase", in: state.Org{ID: "Acme"}, wantErr: state.ErrInvalid, text: `organisation id "Acme"`},
		{name: "leading dash", in: state.Org{ID: "-acme"}, wantErr: state.ErrInvalid, text: "must match"},
		{name: "space", in: state.Org{ID: "ac me"}, wantErr: state.ErrInvalid, text: "must match"},
		{name: "non-ASCII", in: state.Org{ID: "ñ"}, wantErr: state.ErrInvalid, text: "must match"},
		{name: "trailing newline", in: state.Org{ID: "acme\n"}, wantErr: state.ErrInvalid, text: "must match"},
		{name: "65 characters", in: state.Org{ID: strings.Repeat("a", 65)}, wantErr: state.ErrInvalid, text: "up to 64"},
		{name: "unknown plan", in: state.Org{ID: "acme", Plan: "gold"}, wantErr: state.ErrInvalid, text: `invalid plan "gold": must be trial, pro or scale`},
		{name: "plan in capitals", in: state.Org{ID: "acme", Plan: "Pro"}, wantErr: state.ErrInvalid, text: "invalid plan"},
		{name: "control character in name", in: state.Org{ID: "acme", Name: "a\tb"}, wantErr: state.ErrInvalid, text: "control character U+0009"},
		{name: "name too long", in: state.Org{ID: "acme", Name: strings.Repeat("x", 201)}, wantErr: state.ErrInvalid, text: "at most 200 bytes"},
		{name: "name not UTF-8", in: state.Org{ID: "acme", Name: "\xff"}, wantErr: state.ErrInvalid, text: "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			got, err := s.AddOrg(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("AddOrg error = %v, want %v", err, tt.wantErr)
				}
				assertErrText(t, err, tt.text)
				if orgs, err := s.Orgs(); err != nil || len(orgs) != 0 {
					t.Errorf("after a refusal Orgs() = %v, %v; want none", orgs, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("AddOrg = %+v, want %+v", got, tt.want)
			}
			stored, err := s.Org(tt.in.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stored, tt.want) {
				t.Errorf("Org(%q) = %+v, want %+v", tt.in.ID, stored, tt.want)
			}
		})
	}
}

func TestStore_OrgsAndErrors(t *testing.T) {
	s := MustOpenStore(t)
	if orgs, err := s.Orgs(); err != nil || len(orgs) != 0 {
		t.Fatalf("Orgs() on a new file = %v, %v; want none", orgs, err)
	}
	for _, id := range []string{"zeta", "alpha", "m-1", "m_1", "0day"} {
		if _, err := s.AddOrg(state.Org{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.AddOrg(state.Org{ID: "alpha", Name: "Another"})
	if !errors.Is(err, state.ErrExists) {
		t.Fatalf("duplicate AddOrg error = %v, want ErrExists", err)
	}
	assertErrText(t, err, `organisation "alpha" already exists`)
	if o, _ := s.Org("alpha"); o.Name != "alpha" {
		t.Errorf("duplicate AddOrg changed the name to %q", o.Name)
	}

	orgs, err := s.Orgs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range orgs {
		ids = append(ids, o.ID)
	}
	if want := []string{"0day", "alpha", "m-1", "m_1", "zeta"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Orgs() ids = %v, want %v", ids, want)
	}

	for _, id := range []string{"beta", ""} {
		_, err = s.Org(id)
		if !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("Org(%q) error = %v, want ErrNotFound", id, err)
		}
		assertErrText(t, err, `organisation "`+id+`" not found`)
	}
}

func TestStore_OrgCorrupt(t *testing.T) {
	s := MustOpenStore(t)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{
		"not JSON":      `{"id":`,
		"other id":      `{"id":"other","name":"x","plan":"trial","created":"2025-01-01T00:00:00Z"}`,
		"unknown field": `{"id":"acme","name":"x","plan":"trial","created":"2025-01-01T00:00:00Z","extra":1}`,
		"trailing data": `{"id":"acme","name":"x","plan":"trial","created":"2025-01-01T00:00:00Z"} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketOrgs).Put([]byte("acme"), []byte(v))
			}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Org("acme")
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Org error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, `organisation "acme"`)
			if _, err := s.Orgs(); !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("Orgs error = %v, want ErrCorrupt", err)
			}
		})
	}
}
