package pgstate_test

import (
	"context"
	"os"
	"testing"

	"frameindex/bolt"
	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
	"frameindex/state/statetest"
)

// openPG migrates a fresh database and opens it with a data file of its
// own as the catalogue.
func openPG(t *testing.T, c *pgtest.Cluster) (*pgstate.Store, *bolt.Store, string) {
	return openPGB(t, c)
}

func openPGB(t testing.TB, c *pgtest.Cluster) (*pgstate.Store, *bolt.Store, string) {
	t.Helper()
	url := c.NewDatabase(t)
	if _, err := pgstate.Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	cat, err := bolt.Open(t.TempDir()+"/node.db", bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	s, err := pgstate.Open(context.Background(), url, pgstate.Options{Catalogue: cat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, cat, url
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

func TestConformance(t *testing.T) {
	c := pgtest.Shared(t)
	statetest.Run(t, func(t *testing.T) statetest.Env {
		s, cat, _ := openPG(t, c)
		return statetest.Env{Store: s, AddDataset: func(t *testing.T, d state.Dataset) { statetest.ImportDataset(t, cat, d) }}
	})
}

// importB stores d in the catalogue cat with one frame, for benchmarks.
func importB(b *testing.B, cat *bolt.Store, d state.Dataset) {
	if _, err := cat.AddOrg(state.Org{ID: d.Owner}); err != nil {
		b.Fatal(err)
	}
	d.Attributes = []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}
	if _, err := cat.ImportDataset(d, []bolt.FrameRecord{{Frame: 1, Attrs: []byte(`{"v":1}`)}}, statetest.T0); err != nil {
		b.Fatal(err)
	}
}
