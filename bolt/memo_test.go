package bolt

import (
	"errors"
	"testing"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// A remembered description is served only while the stored one is
// unchanged: a new price, a new version by re-import and a removal are
// read at once, and a caller changing what it was given changes nothing
// stored or remembered.
func TestMemo_DatasetDescriptions(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	d := popDataset()
	d.Owner = "acme"
	mustImport(t, s, d, []FrameRecord{{Frame: 1, Attrs: []byte(`{"class":"a"}`)}})
	got, err := s.Dataset(d.ID)
	if err != nil || got.Version != 1 {
		t.Fatalf("Dataset: %+v %v", got, err)
	}
	// Mutating what was handed out reaches neither the memo nor the file.
	got.Attributes[0].Name = "changed"
	if len(got.Attributes[0].Aliases) > 0 {
		got.Attributes[0].Aliases[0] = "changed"
	}
	again, err := s.Dataset(d.ID)
	if err != nil || again.Attributes[0].Name == "changed" || len(again.Attributes[0].Aliases) > 0 && again.Attributes[0].Aliases[0] == "changed" {
		t.Errorf("a caller's change to its copy was seen again: %+v %v", again.Attributes, err)
	}

	if _, err := s.SetPrice(d.ID, 7); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Dataset(d.ID); got.Price != 7 {
		t.Errorf("price %d after SetPrice(7)", got.Price)
	}
	mustImport(t, s, d, []FrameRecord{{Frame: 2, Attrs: []byte(`{"class":"b"}`)}})
	if got, _ := s.Dataset(d.ID); got.Version != 2 {
		t.Errorf("version %d after a re-import, want 2", got.Version)
	}
	// Reads follow the live version, through the remembered description.
	frames, err := s.ReadFrames([]string{d.ID}, []uint64{1, 2}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames[0].Datasets) != 0 || len(frames[1].Datasets) != 1 {
		t.Errorf("read %+v, want frame 2 only (version 2)", frames)
	}
	if err := s.RemoveDataset(d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dataset(d.ID); err == nil {
		t.Error("a removed dataset was still found")
	}
}

// An organisation's remembered record follows its balance through
// charges, and a group that failed leaves the stored balance, not the one
// it wrote before failing.
func TestMemo_Orgs(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 10)
	for i := range 3 {
		if _, _, err := s.Charge("acme", "key_abc", "req", []state.DatasetPrice{{ID: "a", Price: 2}}, testNow); err != nil {
			t.Fatal(err)
		}
		if o, _ := mustOrgLedger(t, s, "acme"); o.Credits != int64(10-2*(i+1)) {
			t.Fatalf("balance %d after %d charges of 2", o.Credits, i+1)
		}
	}
	boom := errors.New("disk on fire")
	group := queued(debitOp(s, 1, "a"), func(*bbolt.Tx) (func() error, error) {
		return func() error { return boom }, nil
	})
	s.applyGroup(group)
	if o, _ := mustOrgLedger(t, s, "acme"); o.Credits != 4 {
		t.Errorf("balance %d after a failed group, want 4", o.Credits)
	}
}

// A remembered licence is served only while its record is unchanged: a
// licence granted again in another mode, revoked, or granted to another
// organisation reads as stored.
func TestMemo_Licences(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	mustAddOrg(t, s, "beta", "pro", 0)
	d := popDataset()
	d.Owner = "acme"
	mustImport(t, s, d, []FrameRecord{{Frame: 1, Attrs: []byte(`{"class":"a"}`)}})
	readable := func() []state.Access {
		t.Helper()
		a, err := s.Readable(state.Key{OrgID: "beta"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if _, err := s.GrantLicence("beta", d.ID, state.LicenceSubscription, testNow); err != nil {
		t.Fatal(err)
	}
	if a := readable(); len(a) != 1 || a[0].PerQuery {
		t.Fatalf("with a subscription: %+v", a)
	}
	readable() // served from the memo
	if _, err := s.SetPrice(d.ID, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GrantLicence("beta", d.ID, state.LicencePerQuery, testNow); err != nil {
		t.Fatal(err)
	}
	if a := readable(); len(a) != 1 || !a[0].PerQuery {
		t.Fatalf("after a per-query grant over the subscription: %+v", a)
	}
	if err := s.RevokeLicence("beta", d.ID); err != nil {
		t.Fatal(err)
	}
	if a := readable(); len(a) != 0 {
		t.Fatalf("after the revocation: %+v", a)
	}
}
