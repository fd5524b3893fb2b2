package demo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"frameindex/grid"
)

// realData is the folder of real Nigerian boundary files (never copied
// into the repository); tests that need it skip when it is absent.
var realData = filepath.Join("..", "..", "shared", "data", "nga")

// readStates reads the real state polygons, keyed by state name, or skips.
func readStates(t *testing.T) map[string]grid.MultiPolygon {
	t.Helper()
	f, err := os.Open(filepath.Join(realData, "nga_states.geojson"))
	if err != nil {
		t.Skipf("real boundary files absent: %v", err)
	}
	defer f.Close()
	states := map[string]grid.MultiPolygon{}
	err = grid.ReadFeatures(f, func(i int, feat grid.InFeature) error {
		m, err := grid.ParseGeometry(feat.Geometry)
		if err != nil {
			return err
		}
		name, _ := feat.Properties["state_name"].(string)
		states[name] = m
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// TestPlacesInTheirStates checks every embedded place against the real
// state boundaries: it must lie in the state it names (or within a few
// kilometres of it, for towns on a border).
func TestPlacesInTheirStates(t *testing.T) {
	states := readStates(t)
	if len(states) != 37 {
		t.Fatalf("read %d states, want 37", len(states))
	}
	for _, p := range append(append([]place(nil), capitals...), towns...) {
		m, ok := states[p.State]
		if !ok {
			t.Errorf("%s: state %q is not a real state name", p.Name, p.State)
			continue
		}
		if m.ContainsPoint(p.Lon, p.Lat) {
			continue
		}
		in := ""
		for name, sm := range states {
			if sm.ContainsPoint(p.Lon, p.Lat) {
				in = name
			}
		}
		t.Errorf("%s (%.4f, %.4f) is not in %s but in %q", p.Name, p.Lat, p.Lon, p.State, in)
	}
}

// TestPlacesUnique: place names name LGAs, so each is used once.
func TestPlacesUnique(t *testing.T) {
	seen := map[string]bool{}
	states := map[string]bool{}
	for _, c := range capitals {
		if states[c.State] {
			t.Errorf("two capitals for %s", c.State)
		}
		states[c.State] = true
	}
	if len(states) != 37 {
		t.Errorf("%d states, want 36 and the FCT", len(states))
	}
	for _, p := range allPlaces() {
		if seen[p.Name] {
			t.Errorf("place %q twice", p.Name)
		}
		seen[p.Name] = true
		if !states[p.State] {
			t.Errorf("%s: unknown state %q", p.Name, p.State)
		}
		if p.Pop <= 0 || p.Lat < 4 || p.Lat > 14 || p.Lon < 2.5 || p.Lon > 15 {
			t.Errorf("%s: implausible %+v", p.Name, p)
		}
	}
}

// TestAdminAgreesWithRealStates samples the national model and compares
// each frame's approximate state with the real state boundaries: the
// nearest-town split must put at least 80% of frames in the right state
// (it puts about 85% there; the nearest-capital split only about 68%).
func TestAdminAgreesWithRealStates(t *testing.T) {
	if testing.Short() {
		t.Skip("national model and point-in-polygon over 150,000 frames")
	}
	states := readStates(t)
	l := newLattice(nationalRuns(t))
	m, err := buildModel(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	right, n := 0, 0
	known := map[string]bool{
		"Kano": false, "Lagos": false, "Federal Capital Territory": false,
	}
	err = l.each(context.Background(), func(i, row, col int, lat, lon float64) {
		if i%7 != 0 {
			return
		}
		for name, sm := range states {
			if !sm.ContainsPoint(lon, lat) {
				continue
			}
			n++
			if capitals[m.state[i]].State == name {
				right++
				if _, ok := known[name]; ok {
					known[name] = true
				}
			}
			return
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if share := float64(right) / float64(n); share < 0.8 {
		t.Errorf("%d of %d sampled frames (%.1f%%) in the right state, want at least 80%%", right, n, 100*share)
	}
	for name, ok := range known {
		if !ok {
			t.Errorf("no sampled frame of %s got its state right", name)
		}
	}
}
