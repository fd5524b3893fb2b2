package bolt

import (
	"encoding/binary"
	"errors"
	"testing"

	"frameindex/grid"
	"frameindex/state"

	bolt "go.etcd.io/bbolt"
)

// TestStore_AuditedFault injects a write failure between a change and its
// audit entry: a bucket where the next entry's key goes makes bbolt
// refuse the entry's Put, after the change was made in the same
// transaction. Neither may stay; without the handle the change succeeds.
func TestStore_AuditedFault(t *testing.T) {
	s := MustOpenStore(t)
	e := state.AuditEntry{Actor: "operator", Org: "acme", Action: "org.add", Target: "acme", Outcome: state.AuditOK}
	if _, err := s.Audited(&e).AddOrg(state.Org{ID: "acme"}); err != nil || e.Seq != 1 {
		t.Fatalf("AddOrg through Audited: %v, entry %+v", err, e)
	}
	next := binary.BigEndian.AppendUint64(nil, 2)
	fault := func(tx *bolt.Tx) error {
		_, err := tx.Bucket(bucketAudit).CreateBucket(next)
		return err
	}
	if err := s.update(fault); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		change func(s *Store) error
		undone func() bool
	}{
		{"AddCredits", func(s *Store) error { _, _, err := s.AddCredits("acme", 50, "invoice 1", testNow); return err },
			func() bool { o, err := s.Org("acme"); return err == nil && o.Credits == 0 }},
		{"MintKey", func(s *Store) error {
			_, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: testNow})
			return err
		}, func() bool { ks, err := s.Keys("acme"); return err == nil && len(ks) == 0 }},
		{"PutLattice", func(s *Store) error {
			_, err := s.PutLattice([]grid.Run{{Row: 5, Col0: 1, Col1: 3}}, "test")
			return err
		},
			func() bool { _, err := s.GridInfo(); return errors.Is(err, ErrNoGrid) }},
	} {
		e := state.AuditEntry{Actor: "operator", Org: "acme", Action: tc.name, Outcome: state.AuditOK}
		err := tc.change(s.Audited(&e).(*Store))
		if !errors.Is(err, bolt.ErrIncompatibleValue) {
			t.Errorf("%s through Audited with the log failing: %v", tc.name, err)
		}
		if !tc.undone() || e.Seq != 0 {
			t.Errorf("%s: the change stayed without its entry (entry %+v)", tc.name, e)
		}
		if err := tc.change(s); err != nil {
			t.Errorf("%s without the audit entry: %v", tc.name, err)
		}
	}
	if err := s.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketAudit).DeleteBucket(next) }); err != nil {
		t.Fatal(err)
	}
	if log, err := s.AuditLog("", 0); err != nil || len(log) != 1 || log[0] != e {
		t.Fatalf("audit log %+v, %v; want the org.add alone", log, err)
	}
}
