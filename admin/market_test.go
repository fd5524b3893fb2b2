package admin

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"frameindex/ingest"
	"frameindex/state"
)

func TestOps_Market(t *testing.T) {
	ops, s, _ := datasetOps(t)
	mustOrg(t, s, "buyer", "trial", 10)
	p := writeFile(t, t.TempDir(), "pop.csv", fmt.Sprintf("frame_id,pop\n%d,10\n", cell(9700, 22480)))
	ctx := WithActor(context.Background(), Actor{User: "ada", Org: "buyer"})
	if _, err := ops.run(ctx, OpDatasetImport, mustJSON(t, DatasetImport{Manifest: ingest.Manifest{ID: "pop", Owner: "agency",
		Attributes: []state.Attribute{attrPop}, Inputs: []ingest.Input{{CSV: p}}}})); err != nil {
		t.Fatal(err)
	}
	do := func(op string, args any) (any, error) {
		t.Helper()
		return ops.run(ctx, op, mustJSON(t, args))
	}
	tests := []struct {
		name    string
		op      string
		args    any
		wantErr error
	}{
		{"another organisation cannot offer", OpDatasetOffer, DatasetOffer{ID: "pop", Mode: state.OfferSubscription, Org: "buyer"}, state.ErrNotFound},
		{"another organisation cannot withdraw", OpDatasetWithdraw, DatasetWithdraw{ID: "pop", Org: "buyer"}, state.ErrNotFound},
		{"private cannot be licensed", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "pop"}, state.ErrNotFound},
		{"bad mode", OpDatasetOffer, DatasetOffer{ID: "pop", Mode: "free", Org: "agency"}, state.ErrInvalid},
		{"too dear", OpDatasetOffer, DatasetOffer{ID: "pop", Mode: state.OfferSubscription, Credits: 11, Org: "agency"}, nil},
		{"insufficient credits", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "pop"}, state.ErrInvalid},
		{"owner offers", OpDatasetOffer, DatasetOffer{ID: "pop", Mode: state.OfferSubscription, Credits: 4, LicenceText: "CC BY", Org: "agency"}, nil},
		{"licensed", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "pop"}, nil},
		{"twice", OpLicenceAcquire, LicenceAcquire{OrgID: "buyer", Dataset: "pop"}, state.ErrExists},
		{"operator withdraws", OpDatasetWithdraw, DatasetWithdraw{ID: "pop"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := do(tt.op, tt.args)
			if (tt.wantErr == nil) != (err == nil) || (err != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
		})
	}
	o, _ := s.Org("buyer")
	if o.Credits != 6 {
		t.Errorf("buyer has %d credits, want 6", o.Credits)
	}
	if ls, _ := s.Licences("buyer"); len(ls) != 1 || ls[0].Mode != state.LicenceSubscription {
		t.Errorf("licences after withdrawal: %v", ls)
	}
	res, err := do(OpMarketList, MarketList{Exclude: "buyer"})
	if err != nil || len(res.([]state.Listing)) != 0 {
		t.Errorf("market after withdrawal: %v, %v", res, err)
	}
	log, err := s.AuditLog("", 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range log {
		seen[e.Action+" "+e.Outcome] = true
	}
	for _, want := range []string{OpDatasetOffer + " " + state.AuditOK, OpLicenceAcquire + " " + state.AuditOK,
		OpLicenceAcquire + " " + state.AuditRefused, OpDatasetWithdraw + " " + state.AuditOK} {
		if !seen[want] {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
}
