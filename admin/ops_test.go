package admin

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/index"
)

var ngaDir = filepath.Join("..", "..", "shared", "data", "nga")

func ngaFile(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(ngaDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real data absent (%s): %v", p, err)
	}
	return p
}

func openStore(t testing.TB) (*bolt.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "frames.db")
	s, err := bolt.Open(path, bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func loadIndex(t testing.TB, s *bolt.Store) *index.Index {
	t.Helper()
	info, runs, frames, err := s.Grid()
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind == bolt.GridLattice {
		return index.NewLattice(runs)
	}
	return index.NewPolygons(frames)
}

// Known places, for checks on real boundaries.
var places = []struct {
	name     string
	lat, lon float64
	lga      string
}{
	{"Lagos Island", 6.4541, 3.3947, "Lagos Island"},
	{"Kano city centre", 11.9964, 8.5167, "Kano Municipal"},
	{"central Abuja", 9.0579, 7.4951, "Municipal Area Council"},
}

func TestOps_BuildGridOnNigeria(t *testing.T) {
	path := ngaFile(t, "nga_country.geojson")
	s, _ := openStore(t)
	ops := &Ops{Store: s}
	var g GridView
	res, err := ops.Do(context.Background(), OpGridBuild, mustJSON(t, GridBuild{Boundary: path}))
	if err != nil {
		t.Fatal(err)
	}
	g = res.(GridView)
	// SOURCES.md: gdal_rasterize -at (all touched) finds 1,086,885 cells.
	if d := math.Abs(float64(g.Frames-1_086_885)) / 1_086_885; d > 0.001 || g.Kind != bolt.GridLattice {
		t.Fatalf("built %d %s frames; gdal all-touched finds 1,086,885 (off by %.3f%%)", g.Frames, g.Kind, d*100)
	}
	ix := loadIndex(t, s)
	for _, p := range places {
		if _, ok := ix.At(p.lat, p.lon); !ok {
			t.Errorf("%s (%v, %v) is not on the national grid", p.name, p.lat, p.lon)
		}
	}
	for _, p := range [][2]float64{{2.0, 5.0}, {14.0, 3.0}, {12.5, 15.5}} { // lat, lon: Gulf of Guinea, Niger, Chad
		if sh, ok := ix.At(p[0], p[1]); ok {
			t.Errorf("(%v, %v) outside Nigeria resolved to frame %d", p[0], p[1], sh.ID)
		}
	}
}

// withIDs rewrites a real GeoJSON file giving each feature the id i+1 and
// returns the new file and each id's property value of key.
func withIDs(t *testing.T, path, key string) (string, map[uint64]string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Type     string           `json:"type"`
		Features []map[string]any `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	names := map[uint64]string{}
	for i, f := range fc.Features {
		f["id"] = i + 1
		names[uint64(i+1)], _ = f["properties"].(map[string]any)[key].(string)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	b, _ := json.Marshal(fc)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out, names
}

func TestOps_ImportRealLGAsAsFrames(t *testing.T) {
	path, names := withIDs(t, ngaFile(t, "nga_lgas.geojson"), "lga_name")
	s, _ := openStore(t)
	res, err := (&Ops{Store: s}).Do(context.Background(), OpGridImport, mustJSON(t, GridImport{Path: path}))
	if err != nil {
		t.Fatal(err)
	}
	if g := res.(GridView); g.Kind != bolt.GridPolygons || g.Frames != 774 {
		t.Fatalf("imported %+v, want 774 polygon frames", g)
	}
	ix := loadIndex(t, s)
	for _, p := range places {
		sh, ok := ix.At(p.lat, p.lon)
		if !ok || names[sh.ID] != p.lga {
			t.Errorf("%s: frame %d (%q), want the LGA %q", p.name, sh.ID, names[sh.ID], p.lga)
		}
	}
	// Every LGA's published interior point resolves to that LGA's frame.
	keys := map[uint64]string{}
	_, keyOf := withIDs(t, ngaFile(t, "nga_lgas.geojson"), "lga_key")
	for id, k := range keyOf {
		keys[id] = k
	}
	f, err := os.Open(ngaFile(t, "nga_lga_index.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for _, r := range rows[1:] {
		lon, _ := strconv.ParseFloat(r[6], 64)
		lat, _ := strconv.ParseFloat(r[7], 64)
		if sh, ok := ix.At(lat, lon); !ok || keys[sh.ID] != r[0] {
			wrong++
			t.Logf("interior point of %s resolved to %q (found %v)", r[0], keys[sh.ID], ok)
		}
	}
	if wrong > 0 || len(rows) != 775 {
		t.Fatalf("%d of %d LGA interior points resolved to another frame", wrong, len(rows)-1)
	}
}

func TestOps_ImportRealStatesWithoutIDsIsRefused(t *testing.T) {
	path := ngaFile(t, "nga_states.geojson")
	s, _ := openStore(t)
	_, err := (&Ops{Store: s}).Do(context.Background(), OpGridImport, mustJSON(t, GridImport{Path: path}))
	if !errors.Is(err, bolt.ErrInvalid) {
		t.Fatalf("import of features without numeric ids: %v", err)
	}
	if _, err := s.GridInfo(); !errors.Is(err, bolt.ErrNoGrid) {
		t.Fatalf("a refused import left a grid behind: %v", err)
	}
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSocket_RoundTrip runs operations through the admin socket as the CLI
// does while a server runs, and checks errors keep their kind.
func TestSocket_RoundTrip(t *testing.T) {
	s, path := openStore(t)
	changes := make(chan Change, 8)
	ops := &Ops{Store: s, Now: func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) },
		Changed: func(c Change) { changes <- c }}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(SocketPath(path))
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v mode %v", err, st.Mode())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, ops, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })

	var o bolt.Org
	if err := Call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, &o); err != nil || o.ID != "acme" || o.Plan != "trial" {
		t.Fatalf("org.add: %+v %v", o, err)
	}
	var m Minted
	if err := Call(ctx, path, OpKeyMint, KeyMint{OrgID: "acme", Preset: "analyst", TTL: "30d"}, &m); err != nil {
		t.Fatal(err)
	}
	if c := <-changes; c != ChangeKeys {
		t.Fatalf("change %v after mint", c)
	}
	if want := ops.Now().Add(30 * 24 * time.Hour); !m.Key.Expires.Equal(want) || len(m.Secret) < 40 {
		t.Fatalf("minted %+v", m.Key)
	}
	var keys []KeyView
	if err := Call(ctx, path, OpKeyList, KeyList{OrgID: "acme"}, &keys); err != nil || len(keys) != 1 || keys[0].ID != m.Key.ID {
		t.Fatalf("key.list: %+v %v", keys, err)
	}
	err = Call(ctx, path, OpKeyMint, KeyMint{OrgID: "nope", Preset: "full"}, nil)
	if !errors.Is(err, bolt.ErrNotFound) {
		t.Fatalf("mint for a missing org: %v (want not found)", err)
	}
	err = Call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, nil)
	if !errors.Is(err, bolt.ErrExists) {
		t.Fatalf("duplicate org: %v", err)
	}
	if err := Call(ctx, path, "drop.everything", struct{}{}, nil); !errors.Is(err, bolt.ErrInvalid) {
		t.Fatalf("unknown op: %v", err)
	}
	if err := Call(ctx, path+".other", OpOrgList, struct{}{}, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no server: %v", err)
	}
}

func TestListen_RemovesStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	if err := os.WriteFile(SocketPath(path), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Call(context.Background(), path, OpOrgList, struct{}{}, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("stale socket file: %v, want ErrNoServer", err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}
