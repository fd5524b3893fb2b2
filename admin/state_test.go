package admin

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/ingest"
	"frameindex/state"
)

// sharedState stands in for a shared state engine: a bbolt file of its
// own, behind a type that is not *bolt.Store, so that Ops tells it apart
// from the data file as it would tell PostgreSQL.
type sharedState struct{ *bolt.Store }

// twoFiles returns Ops on a data file (the small lattice, organisation
// "agency" and its dataset "pop" at the default price of 1 credit) with
// State on a second file holding organisations "agency" and "buyer" (10
// credits) and its own copy of "pop" plus "ghost", a dataset the data file
// lacks (a bbolt state checks datasets against its own file, where
// PostgreSQL asks the catalogue).
func twoFiles(t *testing.T) (ops *Ops, data, st *bolt.Store) {
	t.Helper()
	ops, data, _ = datasetOps(t)
	st, _ = openStore(t)
	var runs []grid.Run
	for r := row0; r <= row1; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: col0, Col1: col1})
	}
	if _, err := st.PutLattice(runs, "test block"); err != nil {
		t.Fatal(err)
	}
	mustOrg(t, st, "agency", "pro", 0)
	mustOrg(t, st, "buyer", "trial", 10)
	p := writeFile(t, t.TempDir(), "pop.csv", fmt.Sprintf("frame_id,pop\n%d,10\n", cell(row0, col0)))
	m := ingest.Manifest{ID: "pop", Owner: "agency", Attributes: []state.Attribute{attrPop}, Inputs: []ingest.Input{{CSV: p}}}
	ops.State = sharedState{st} // the import's audit entry goes to the state
	if _, err := ops.ImportDataset(context.Background(), DatasetImport{Manifest: m}); err != nil {
		t.Fatal(err)
	}
	onState := &Ops{Store: st, Now: ops.Now}
	for _, id := range []string{"pop", "ghost"} {
		m.ID = id
		if _, err := onState.ImportDataset(context.Background(), DatasetImport{Manifest: m}); err != nil {
			t.Fatal(err)
		}
	}
	return ops, data, st
}

// TestOps_RoutesToState runs every operation on the shared state through
// Ops with State on another file: each write lands in the state file and
// not in the data file, each read answers from the state file (the data
// file lacks organisation "buyer", so a read there would fail), and the
// audit log is the state's.
func TestOps_RoutesToState(t *testing.T) {
	ops, data, st := twoFiles(t)
	ctx := context.Background()
	var keyID string
	count := func(s *bolt.Store, what string) int {
		switch what {
		case "orgs":
			os, _ := s.Orgs()
			return len(os)
		case "keys":
			ks, _ := s.Keys("")
			return len(ks)
		case "revoked":
			n := 0
			ks, _ := s.Keys("")
			for _, k := range ks {
				if !k.Revoked.IsZero() {
					n++
				}
			}
			return n
		case "licences":
			ls, _ := s.Licences("")
			return len(ls)
		case "offers":
			os, _ := s.Offers()
			return len(os)
		case "price":
			d, _ := s.Dataset("pop")
			return int(d.Price)
		case "buyer credits":
			o, _ := s.Org("buyer")
			return int(o.Credits)
		case "buyer plan scale":
			if o, _ := s.Org("buyer"); o.Plan == "scale" {
				return 1
			}
			return 0
		case "users":
			us, _ := s.Users("")
			return len(us)
		}
		t.Fatalf("unknown count %q", what)
		return 0
	}
	tests := []struct {
		name      string
		op        string
		args      any
		what      string // the count the operation changes
		dataWant  int    // in the data file after the operation
		stateWant int    // in the state file after the operation
		check     func(t *testing.T, res any)
	}{
		{"org add", OpOrgAdd, OrgAdd{ID: "newcomer"}, "orgs", 1, 3, nil},
		{"org list", OpOrgList, nil, "orgs", 1, 3, func(t *testing.T, res any) {
			if n := len(res.([]state.Org)); n != 3 {
				t.Errorf("%d organisations listed, want the state's 3", n)
			}
		}},
		{"org show", OpOrgShow, OrgShow{ID: "buyer"}, "buyer credits", 0, 10, nil},
		{"org plan", OpOrgPlan, OrgPlan{ID: "buyer", Plan: "scale"}, "buyer plan scale", 0, 1, nil},
		{"org credits", OpOrgCredits, OrgCredits{ID: "buyer", Add: 50, Note: "invoice"}, "buyer credits", 0, 60, nil},
		{"usage", OpUsage, UsageReq{OrgID: "buyer"}, "buyer credits", 0, 60, func(t *testing.T, res any) {
			if u := res.(state.Usage); u.Credits != 60 {
				t.Errorf("usage shows %d credits, want 60", u.Credits)
			}
		}},
		{"key mint", OpKeyMint, KeyMint{OrgID: "buyer", Preset: "analyst"}, "keys", 0, 1, func(t *testing.T, res any) {
			keyID = res.(Minted).Key.ID
		}},
		{"key list", OpKeyList, KeyList{OrgID: "buyer"}, "keys", 0, 1, func(t *testing.T, res any) {
			if n := len(res.([]KeyView)); n != 1 {
				t.Errorf("%d keys listed, want 1", n)
			}
		}},
		{"key revoke", OpKeyRevoke, nil, "revoked", 0, 1, nil}, // args: the minted key, below
		{"dataset price", OpDatasetPrice, DatasetPrice{ID: "pop", Credits: 7}, "price", 1, 7, func(t *testing.T, res any) {
			if d := res.(state.Dataset); d.Price != 7 {
				t.Errorf("price %d, want 7", d.Price)
			}
		}},
		{"licence grant", OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: state.LicencePerQuery}, "licences", 0, 1, nil},
		{"licence list", OpLicenceList, LicenceList{OrgID: "buyer"}, "licences", 0, 1, func(t *testing.T, res any) {
			if n := len(res.([]state.Licence)); n != 1 {
				t.Errorf("%d licences listed, want 1", n)
			}
		}},
		{"dataset show", OpDatasetShow, DatasetShow{ID: "pop"}, "licences", 0, 1, func(t *testing.T, res any) {
			d := res.(DatasetDetail)
			if len(d.Licences) != 1 || d.Price != 7 {
				t.Errorf("dataset shown with licences %v and price %d, want the state's licence and price 7", d.Licences, d.Price)
			}
		}},
		{"dataset list", OpDatasetList, nil, "price", 1, 7, func(t *testing.T, res any) {
			if ds := res.([]state.Dataset); len(ds) != 1 || ds[0].Price != 7 {
				t.Errorf("datasets listed %v, want the data file's pop at the state's price 7", ds)
			}
		}},
		{"licence revoke", OpLicenceRevoke, LicenceRevoke{OrgID: "buyer", Dataset: "pop"}, "licences", 0, 0, nil},
		{"dataset offer", OpDatasetOffer, DatasetOffer{ID: "pop", Mode: state.OfferSubscription, Credits: 4, Org: "agency"}, "offers", 0, 1, nil},
		{"market list", OpMarketList, MarketList{}, "offers", 0, 1, func(t *testing.T, res any) {
			if n := len(res.([]state.Listing)); n != 1 {
				t.Errorf("%d offers listed, want 1", n)
			}
		}},
		{"licence acquire", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "pop"}, "buyer credits", 0, 56, nil},
		{"dataset withdraw", OpDatasetWithdraw, DatasetWithdraw{ID: "pop", Org: "agency"}, "offers", 0, 0, nil},
		// People live in the shared state too.
		{"user add", OpUserAdd, UserAdd{Name: "ada", OrgID: "agency", Role: "owner"}, "users", 0, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.op == OpKeyRevoke {
				args = KeyRevoke{ID: keyID}
			}
			res, err := ops.run(ctx, tt.op, mustJSON(t, args))
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
			if got := count(data, tt.what); got != tt.dataWant {
				t.Errorf("data file: %s = %d, want %d", tt.what, got, tt.dataWant)
			}
			if got := count(st, tt.what); got != tt.stateWant {
				t.Errorf("state file: %s = %d, want %d", tt.what, got, tt.stateWant)
			}
		})
	}

	t.Run("audit in state", func(t *testing.T) {
		if log, _ := data.AuditLog("", 0); len(log) != 0 {
			t.Errorf("data file holds %d audit entries, want none: %v", len(log), log)
		}
		log, err := st.AuditLog("", 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, e := range log {
			seen[e.Action] = true
		}
		for _, op := range []string{OpOrgAdd, OpOrgPlan, OpOrgCredits, OpKeyMint, OpKeyRevoke, OpDatasetPrice,
			OpLicenceGrant, OpLicenceRevoke, OpDatasetOffer, OpLicenceAcquire, OpDatasetWithdraw, OpUserAdd} {
			if !seen[op] {
				t.Errorf("state's audit log lacks %s", op)
			}
		}
		res, err := ops.run(ctx, OpAuditList, mustJSON(t, AuditList{}))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(res.([]state.AuditEntry)); n != len(log) {
			t.Errorf("audit list shows %d entries, want the state's %d", n, len(log))
		}
	})
}

// TestOps_StateChecksTheCatalogue: with State apart, operations naming a
// dataset check it against the data file, and what is not shared stays
// in the data file.
func TestOps_StateChecksTheCatalogue(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		op      string
		args    any
		wantErr error
	}{
		{"licence of a dataset only the state knows", OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "ghost", Mode: state.LicenceSubscription}, state.ErrNotFound},
		{"price of a dataset only the state knows", OpDatasetPrice, DatasetPrice{ID: "ghost", Credits: 1}, state.ErrNotFound},
		{"offer of a dataset only the state knows", OpDatasetOffer, DatasetOffer{ID: "ghost", Mode: state.OfferPerQuery, Credits: 1}, state.ErrNotFound},
		{"licensing a dataset only the state knows", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "ghost"}, state.ErrNotFound},
		{"withdrawal of a dataset only the state knows", OpDatasetWithdraw, DatasetWithdraw{ID: "ghost"}, state.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, _, _ := twoFiles(t)
			if _, err := ops.run(ctx, tt.op, mustJSON(t, tt.args)); !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
		})
	}

	t.Run("removal keeps the shared licence", func(t *testing.T) {
		ops, data, st := twoFiles(t)
		if _, err := ops.run(ctx, OpLicenceGrant, mustJSON(t, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: state.LicenceSubscription})); err != nil {
			t.Fatal(err)
		}
		if _, err := ops.run(ctx, OpDatasetRemove, mustJSON(t, DatasetRemove{ID: "pop"})); err != nil {
			t.Fatal(err)
		}
		if _, err := data.Dataset("pop"); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("data file still has pop: %v", err)
		}
		if ls, _ := st.Licences("buyer"); len(ls) != 1 {
			t.Errorf("state's licences after removal: %v, want buyer's licence kept", ls)
		}
	})
}

// TestOps_StateWithoutDataFile: Ops with State and no Store runs the
// operations on the shared state alone and refuses the others with an
// error that says what to give.
func TestOps_StateWithoutDataFile(t *testing.T) {
	_, _, st := twoFiles(t)
	ops := &Ops{State: sharedState{st}}
	ctx := context.Background()
	tests := []struct {
		name    string
		op      string
		args    any
		wantErr error
	}{
		{"org list", OpOrgList, nil, nil},
		{"usage", OpUsage, UsageReq{OrgID: "buyer"}, nil},
		{"key mint", OpKeyMint, KeyMint{OrgID: "buyer", Preset: "locality"}, nil},
		{"audit", OpAuditList, AuditList{}, nil},
		{"licence grant needs datasets", OpLicenceGrant, LicenceGrant{OrgID: "buyer", Dataset: "pop", Mode: state.LicencePerQuery}, state.ErrInvalid},
		{"dataset list needs the file", OpDatasetList, nil, state.ErrInvalid},
		{"grid info needs the file", OpGridInfo, nil, state.ErrInvalid},
		{"user list", OpUserList, UserList{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ops.run(ctx, tt.op, mustJSON(t, tt.args))
			if (tt.wantErr == nil) != (err == nil) || (err != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil && stateOnly(tt.op) {
				t.Errorf("StateOnly(%s) is true but it failed without a data file", tt.op)
			}
		})
	}
}

// TestOps_MirrorsSharedOrg: an organisation created in the shared state
// (on another node, or with --state) can get people (kept in the shared
// state) and import datasets on a node whose file has never heard of it:
// Ops copies its name and plan into the file first. One the shared state lacks is still not found.
func TestOps_MirrorsSharedOrg(t *testing.T) {
	ops, data, st := twoFiles(t)
	ctx := context.Background()
	if _, err := data.Org("buyer"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("the data file should lack buyer: %v", err)
	}
	// People live in the shared state: adding one leaves the file alone.
	if _, err := ops.run(ctx, OpUserAdd, mustJSON(t, UserAdd{Name: "bola", OrgID: "buyer", Role: state.RoleOwner})); err != nil {
		t.Fatalf("user add to an organisation of the shared state: %v", err)
	}
	if u, err := st.User("bola"); err != nil || len(u.Orgs) != 1 || u.Orgs[0].Org != "buyer" {
		t.Fatalf("the shared state's person: %+v %v", u, err)
	}
	if users, err := data.Users(""); err != nil || len(users) != 0 {
		t.Fatalf("the file's people: %v %v (want none)", users, err)
	}
	if _, err := ops.run(ctx, OpUserRole, mustJSON(t, UserRole{Name: "bola", OrgID: "buyer", Role: state.RoleAdmin})); err == nil {
		t.Fatal("demoting the only owner should be refused")
	}
	p := writeFile(t, t.TempDir(), "b.csv", fmt.Sprintf("frame_id,pop\n%d,3\n", cell(row0, col0)))
	m := ingest.Manifest{ID: "bpop", Owner: "buyer", Attributes: []state.Attribute{attrPop}, Inputs: []ingest.Input{{CSV: p}}}
	if _, err := ops.ImportDataset(ctx, DatasetImport{Manifest: m}); err != nil {
		t.Fatalf("import for an organisation of the shared state: %v", err)
	}
	mirror, err := data.Org("buyer")
	if err != nil || mirror.Plan != "trial" || mirror.Credits != 0 {
		t.Fatalf("mirrored organisation: %+v %v (want plan trial, 0 credits: money stays in the state)", mirror, err)
	}
	if o, _ := st.Org("buyer"); o.Credits != 10 {
		t.Fatalf("the state's balance changed: %+v", o)
	}
	if _, err := ops.run(ctx, OpUserAdd, mustJSON(t, UserAdd{Name: "nobody", OrgID: "nowhere", Role: state.RoleOwner})); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("user add to an organisation nobody holds: %v (want not found)", err)
	}
}
