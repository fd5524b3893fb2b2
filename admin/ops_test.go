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
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/index"
	"frameindex/state"
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
	res, err := ops.run(context.Background(), OpGridBuild, mustJSON(t, GridBuild{Boundary: path}))
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
	res, err := (&Ops{Store: s}).run(context.Background(), OpGridImport, mustJSON(t, GridImport{Path: path}))
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
	_, err := (&Ops{Store: s}).run(context.Background(), OpGridImport, mustJSON(t, GridImport{Path: path}))
	if !errors.Is(err, state.ErrInvalid) {
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

	if o, err := Call(ctx, path, AddOrgOp, OrgAdd{ID: "acme"}); err != nil || o.ID != "acme" || o.Plan != "trial" {
		t.Fatalf("org.add: %+v %v", o, err)
	}
	m, err := Call(ctx, path, MintKeyOp, KeyMint{OrgID: "acme", Preset: "analyst", TTL: "30d"})
	if err != nil {
		t.Fatal(err)
	}
	if c := <-changes; c != ChangeKeys {
		t.Fatalf("change %v after mint", c)
	}
	if want := ops.Now().Add(30 * 24 * time.Hour); !m.Key.Expires.Equal(want) || len(m.Secret) < 40 {
		t.Fatalf("minted %+v", m.Key)
	}
	if keys, err := Call(ctx, path, KeysOp, KeyList{OrgID: "acme"}); err != nil || len(keys) != 1 || keys[0].ID != m.Key.ID {
		t.Fatalf("key.list: %+v %v", keys, err)
	}
	err = call(ctx, path, OpKeyMint, KeyMint{OrgID: "nope", Preset: "full"}, nil)
	if !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("mint for a missing org: %v (want not found)", err)
	}
	err = call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, nil)
	if !errors.Is(err, state.ErrExists) {
		t.Fatalf("duplicate org: %v", err)
	}
	if err := call(ctx, path, "drop.everything", struct{}{}, nil); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("unknown op: %v", err)
	}
	if err := call(ctx, path+".other", OpOrgList, struct{}{}, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no server: %v", err)
	}
}

func TestListen_RemovesStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	if err := os.WriteFile(SocketPath(path), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := call(context.Background(), path, OpOrgList, struct{}{}, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("stale socket file: %v, want ErrNoServer", err)
	}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

// TestOps_OrgPlansAndCredits runs the organisation operations locally, as
// the CLI does when no server runs: each case on a new file holding "acme"
// (trial, 30 credits) and "idle" (pro, no ledger).
func TestOps_OrgPlansAndCredits(t *testing.T) {
	now := time.Date(2026, 11, 30, 23, 59, 59, 0, time.FixedZone("WAT", 3600)) // 22:59:59 UTC
	tests := []struct {
		name    string
		op      string
		args    string
		want    any // the result, when wantErr is nil
		change  Change
		wantErr error
		text    string
	}{
		{
			name: "grant", op: OpOrgCredits, args: `{"id":"acme","add":70,"note":"invoice 117"}`,
			want: Credited{
				Org:   state.Org{ID: "acme", Name: "acme", Plan: "trial", Created: created, Credits: 100},
				Entry: state.LedgerEntry{Seq: 2, Time: now.UTC(), Kind: "grant", Credits: 70, Balance: 100, Note: "invoice 117"},
			},
			change: ChangeOrgs,
		},
		{
			name: "take back", op: OpOrgCredits, args: `{"id":"acme","add":-30,"note":"duplicate"}`,
			want: Credited{
				Org:   state.Org{ID: "acme", Name: "acme", Plan: "trial", Created: created, Credits: 0},
				Entry: state.LedgerEntry{Seq: 2, Time: now.UTC(), Kind: "adjust", Credits: -30, Balance: 0, Note: "duplicate"},
			},
			change: ChangeOrgs,
		},
		{name: "below zero", op: OpOrgCredits, args: `{"id":"acme","add":-31,"note":"x"}`, wantErr: state.ErrInvalid, text: "organisation acme has 30 credits; cannot remove 31"},
		{name: "no note", op: OpOrgCredits, args: `{"id":"acme","add":5}`, wantErr: state.ErrInvalid, text: "a note is required"},
		{name: "zero credits", op: OpOrgCredits, args: `{"id":"acme","add":0,"note":"x"}`, wantErr: state.ErrInvalid, text: "0 credits"},
		{name: "credits as text", op: OpOrgCredits, args: `{"id":"acme","add":"5","note":"x"}`, wantErr: state.ErrInvalid, text: "arguments"},
		{name: "credits for nobody", op: OpOrgCredits, args: `{"id":"nope","add":5,"note":"x"}`, wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{
			name: "plan", op: OpOrgPlan, args: `{"id":"acme","plan":"scale"}`,
			want:   state.Org{ID: "acme", Name: "acme", Plan: "scale", Created: created, Credits: 30},
			change: ChangeOrgs,
		},
		{name: "unknown plan", op: OpOrgPlan, args: `{"id":"acme","plan":"gold"}`, wantErr: state.ErrInvalid, text: `invalid plan "gold": must be trial, pro or scale`},
		{name: "plan for nobody", op: OpOrgPlan, args: `{"id":"nope","plan":"pro"}`, wantErr: state.ErrNotFound, text: "not found"},
		{name: "unknown argument", op: OpOrgPlan, args: `{"id":"acme","plan":"pro","tier":1}`, wantErr: state.ErrInvalid, text: "unknown field"},
		{
			name: "show", op: OpOrgShow, args: `{"id":"acme"}`,
			want: OrgDetail{Org: state.Org{ID: "acme", Name: "acme", Plan: "trial", Created: created, Credits: 30}, Allowance: 100,
				Ledger: []state.LedgerEntry{{Seq: 1, Time: created, Kind: "grant", Credits: 30, Balance: 30, Note: "opening balance"}}},
		},
		{
			name: "show without a ledger", op: OpOrgShow, args: `{"id":"idle","limit":5}`,
			want: OrgDetail{Org: state.Org{ID: "idle", Name: "idle", Plan: "pro", Created: created}, Allowance: 2000, Ledger: []state.LedgerEntry{}},
		},
		{name: "show nobody", op: OpOrgShow, args: `{"id":"nope"}`, wantErr: state.ErrNotFound, text: "not found"},
		{
			name: "usage", op: OpUsage, args: `{"org":"acme"}`,
			want: state.Usage{OrgID: "acme", Plan: "trial", Month: "2026-11", Day: "2026-11-30", Allowance: 100, DailyCeiling: 1000, Credits: 30},
		},
		{name: "usage of nobody", op: OpUsage, args: `{"org":"nope"}`, wantErr: state.ErrNotFound, text: "not found"},
		{name: "usage without arguments", op: OpUsage, args: ``, wantErr: state.ErrNotFound, text: `organisation "" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openStore(t)
			var changes []Change
			ops := &Ops{Store: s, Now: func() time.Time { return now }, Changed: func(c Change) { changes = append(changes, c) }}
			mustOrg(t, s, "acme", "trial", 30)
			mustOrg(t, s, "idle", "pro", 0)
			got, err := ops.run(context.Background(), tt.op, json.RawMessage(tt.args))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("%s error = %v, want %v", tt.op, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.text) {
					t.Errorf("error %q does not contain %q", err, tt.text)
				}
				if len(changes) != 0 {
					t.Errorf("a failed %s reported changes %v", tt.op, changes)
				}
				if o, _ := s.Org("acme"); o.Credits != 30 || o.Plan != "trial" {
					t.Errorf("a failed %s changed acme: %+v", tt.op, o)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %+v\nwant %+v", tt.op, got, tt.want)
			}
			if want := []Change(nil); tt.change != ChangeNone {
				want = []Change{tt.change}
				if !reflect.DeepEqual(changes, want) {
					t.Errorf("changes %v, want %v", changes, want)
				}
			} else if len(changes) != 0 {
				t.Errorf("a read reported changes %v", changes)
			}
		})
	}
}

// created is the creation time of the organisations mustOrg adds.
var created = time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)

// mustOrg adds an organisation on plan with balance credits, granted at
// created with the note "opening balance".
func mustOrg(t testing.TB, s *bolt.Store, id, plan string, balance int64) {
	t.Helper()
	if _, err := s.AddOrg(state.Org{ID: id, Plan: plan, Created: created}); err != nil {
		t.Fatal(err)
	}
	if balance != 0 {
		if _, _, err := s.AddCredits(id, balance, "opening balance", created); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOrgDetail_JSON pins the shape `org show --json` prints: the
// organisation's members inline, then the allowance and the ledger.
func TestOrgDetail_JSON(t *testing.T) {
	d := OrgDetail{Org: state.Org{ID: "acme", Name: "Acme", Plan: "pro", Created: created, Credits: 5}, Allowance: 2000,
		Ledger: []state.LedgerEntry{{Seq: 1, Time: created, Kind: "grant", Credits: 5, Balance: 5, Note: "n"}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"acme","name":"Acme","plan":"pro","created":"2026-01-05T08:00:00Z","credits":5,"allowance":2000,` +
		`"ledger":[{"seq":1,"time":"2026-01-05T08:00:00Z","kind":"grant","credits":5,"balance":5,"note":"n"}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

// TestSocket_OrgsAndCredits runs plan, credit and usage operations through
// the admin socket, as the CLI does while a server runs.
func TestSocket_OrgsAndCredits(t *testing.T) {
	s, path := openStore(t)
	changes := make(chan Change, 8)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ops := &Ops{Store: s, Now: func() time.Time { return now }, Changed: func(c Change) { changes <- c }}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, ops, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })
	nextChange := func() Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		default:
			t.Fatal("no change reported")
			return ChangeNone
		}
	}

	if err := call(ctx, path, OpOrgAdd, OrgAdd{ID: "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	var cr Credited
	if err := call(ctx, path, OpOrgCredits, OrgCredits{ID: "acme", Add: 100, Note: "invoice 117"}, &cr); err != nil {
		t.Fatal(err)
	}
	wantEntry := state.LedgerEntry{Seq: 1, Time: now, Kind: "grant", Credits: 100, Balance: 100, Note: "invoice 117"}
	if cr.Org.Credits != 100 || cr.Entry != wantEntry {
		t.Fatalf("org.credits = %+v, want balance 100 and %+v", cr, wantEntry)
	}
	if c := nextChange(); c != ChangeOrgs {
		t.Fatalf("change %v after org.credits", c)
	}

	err = call(ctx, path, OpOrgCredits, OrgCredits{ID: "acme", Add: -150, Note: "too much"}, nil)
	if !errors.Is(err, state.ErrInvalid) || err.Error() != "organisation acme has 100 credits; cannot remove 150" {
		t.Fatalf("removing more than the balance: %v", err)
	}
	if err := call(ctx, path, OpOrgCredits, OrgCredits{ID: "acme", Add: 5}, nil); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("no note: %v", err)
	}
	if err := call(ctx, path, OpOrgCredits, OrgCredits{ID: "acme", Add: -40, Note: "correction"}, &cr); err != nil || cr.Org.Credits != 60 {
		t.Fatalf("org.credits -40: %+v %v", cr, err)
	}
	if c := nextChange(); c != ChangeOrgs {
		t.Fatalf("change %v after org.credits", c)
	}

	var o state.Org
	if err := call(ctx, path, OpOrgPlan, OrgPlan{ID: "acme", Plan: "pro"}, &o); err != nil || o.Plan != "pro" || o.Credits != 60 {
		t.Fatalf("org.plan: %+v %v", o, err)
	}
	if c := nextChange(); c != ChangeOrgs {
		t.Fatalf("change %v after org.plan", c)
	}
	if err := call(ctx, path, OpOrgPlan, OrgPlan{ID: "acme", Plan: "gold"}, nil); !errors.Is(err, state.ErrInvalid) {
		t.Fatalf("unknown plan: %v", err)
	}

	var d OrgDetail
	if err := call(ctx, path, OpOrgShow, OrgShow{ID: "acme", Limit: 1}, &d); err != nil {
		t.Fatal(err)
	}
	if d.ID != "acme" || d.Plan != "pro" || d.Credits != 60 || d.Allowance != 2000 || len(d.Ledger) != 1 ||
		d.Ledger[0].Seq != 2 || d.Ledger[0].Credits != -40 || d.Ledger[0].Kind != "adjust" || d.Ledger[0].Balance != 60 {
		t.Fatalf("org.show limit 1 = %+v", d)
	}
	if err := call(ctx, path, OpOrgShow, OrgShow{ID: "acme"}, &d); err != nil || len(d.Ledger) != 2 || d.Ledger[0].Seq != 1 {
		t.Fatalf("org.show = %+v %v", d, err)
	}

	var u state.Usage
	if err := call(ctx, path, OpUsage, UsageReq{OrgID: "acme"}, &u); err != nil {
		t.Fatal(err)
	}
	wantUsage := state.Usage{OrgID: "acme", Plan: "pro", Month: "2026-11", Day: "2026-11-22", Allowance: 2000, DailyCeiling: 1000, Credits: 60}
	if !reflect.DeepEqual(u, wantUsage) {
		t.Fatalf("usage = %+v, want %+v", u, wantUsage)
	}
	if err := call(ctx, path, OpUsage, UsageReq{OrgID: "nope"}, nil); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("usage of a missing org: %v", err)
	}
	select {
	case c := <-changes:
		t.Fatalf("change %v reported by a failed operation or a read", c)
	default:
	}
}
