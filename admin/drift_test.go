package admin

import (
	"context"
	"testing"
	"time"

	"frameindex/state"
)

// adoptingState is a shared state that adopts prices, recording what it
// was given.
type adoptingState struct {
	sharedState
	adopted []string
}

func (a *adoptingState) AdoptPrices(ds []state.Dataset) error {
	for _, d := range ds {
		a.adopted = append(a.adopted, d.ID)
	}
	return nil
}

// TestOps_TermsDrift: the data file's price and offer of a dataset are
// compared with the shared state's, after the state adopted the file's
// prices; nothing is reported without a shared state.
func TestOps_TermsDrift(t *testing.T) {
	ops, data, st := twoFiles(t)
	ctx := context.Background()
	ad := &adoptingState{sharedState: sharedState{st}}
	ops.State = ad
	if drift, err := ops.TermsDrift(); err != nil || len(drift) != 0 {
		t.Fatalf("the same terms: %+v %v", drift, err)
	}
	if len(ad.adopted) != 1 || ad.adopted[0] != "pop" {
		t.Fatalf("prices adopted for %v, want the file's pop", ad.adopted)
	}
	// The price is set for every node; the file keeps its own. An offer
	// lingers in the file from before it shared its state.
	if _, err := ops.PriceDataset(ctx, DatasetPrice{ID: "pop", Credits: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := data.SetOffer(state.Offer{Dataset: "pop", Mode: state.OfferSubscription, Price: 6, LicenceText: "old terms"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	drift, err := ops.TermsDrift()
	if err != nil {
		t.Fatal(err)
	}
	want := []Drift{
		{Dataset: "pop", What: "price", File: "1", Shared: "4"},
		{Dataset: "pop", What: "offer", File: `subscription at 6 credits, licence text of 9 bytes "old terms"`, Shared: "none"},
	}
	if len(drift) != len(want) || drift[0] != want[0] || drift[1] != want[1] {
		t.Fatalf("drift %+v, want %+v", drift, want)
	}
	// The same offer in the shared state agrees.
	if _, err := st.SetOffer(state.Offer{Dataset: "pop", Mode: state.OfferSubscription, Price: 6, LicenceText: "old terms"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if drift, _ := ops.TermsDrift(); len(drift) != 1 || drift[0].What != "price" {
		t.Fatalf("with the same offer: %+v", drift)
	}
	// One node, one file: nothing to disagree with.
	ops.State = nil
	if drift, err := ops.TermsDrift(); err != nil || drift != nil {
		t.Fatalf("without a shared state: %+v %v", drift, err)
	}
}
