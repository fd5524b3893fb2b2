package pgstate_test

import (
	"context"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
	"frameindex/state/statetest"
)

// catalogue is a node's datasets in memory, as its data file would hand
// them out (package bolt's own tests check the file).
type catalogue struct {
	mu sync.Mutex
	ds map[string]state.Dataset
}

// add stores d as a first import of one frame at statetest.T0 would.
func (c *catalogue) add(d state.Dataset) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.Name == "" {
		d.Name = d.ID
	}
	d.Attributes = []state.Attribute{{Name: "v", Label: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}
	d.Version, d.Frames, d.ImportedAt = 1, 1, statetest.T0
	c.ds[d.ID] = d
}

func (c *catalogue) Datasets() ([]state.Dataset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []state.Dataset
	for _, id := range slices.Sorted(maps.Keys(c.ds)) {
		out = append(out, c.ds[id])
	}
	return out, nil
}

func (c *catalogue) Dataset(id string) (state.Dataset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.ds[id]
	if !ok {
		return state.Dataset{}, state.Errorf(state.ErrNotFound, "dataset %q not found", id)
	}
	return d, nil
}

// openPG migrates a fresh database and opens it with a catalogue of its
// own.
func openPG(t testing.TB, c *pgtest.Cluster) (*pgstate.Store, *catalogue, string) {
	t.Helper()
	url := c.NewDatabase(t)
	if _, err := pgstate.Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	cat := &catalogue{ds: map[string]state.Dataset{}}
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
		return statetest.Env{Store: s, AddDataset: func(_ *testing.T, d state.Dataset) { cat.add(d) }}
	})
}
