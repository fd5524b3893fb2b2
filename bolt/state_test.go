package bolt_test

import (
	"errors"
	"testing"

	"frameindex/bolt"
	"frameindex/state"
	"frameindex/state/statetest"
)

// TestConformance runs the shared state's conformance suite against an
// empty data file in a temporary directory: the one-node implementation.
func TestConformance(t *testing.T) {
	statetest.Run(t, func(t *testing.T) statetest.Env {
		s, err := bolt.Open(t.TempDir()+"/state.db", bolt.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return statetest.Env{Store: s, AddDataset: func(t *testing.T, d state.Dataset) { importDataset(t, s, d) }}
	})
}

// importDataset stores d in the data file s with one frame recorded, for
// Env.AddDataset; the owner is added to s when missing.
func importDataset(t *testing.T, s *bolt.Store, d state.Dataset) {
	t.Helper()
	if _, err := s.Org(d.Owner); errors.Is(err, state.ErrNotFound) {
		if _, err := s.AddOrg(state.Org{ID: d.Owner, Created: statetest.T0}); err != nil {
			t.Fatal(err)
		}
	}
	d.Attributes = []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}
	if _, err := s.ImportDataset(d, []bolt.FrameRecord{{Frame: 1, Attrs: []byte(`{"v":1}`)}}, statetest.T0); err != nil {
		t.Fatal(err)
	}
}
