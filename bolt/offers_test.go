package bolt

import (
	"errors"
	"testing"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

func TestStore_LicenseOffer(t *testing.T) {
	tests := []struct {
		name     string
		credits  int64 // gamma's balance before
		offer    *state.Offer
		org      string
		wantErr  error
		wantMode string
		wantDebt int64 // credits debited
	}{
		{name: "subscription debits", credits: 10, offer: &state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 7},
			org: "gamma", wantMode: state.LicenceSubscription, wantDebt: 7},
		{name: "free subscription writes no entry", credits: 0, offer: &state.Offer{Dataset: "roads", Mode: state.OfferSubscription},
			org: "gamma", wantMode: state.LicenceSubscription},
		{name: "per query charges nothing now", credits: 0, offer: &state.Offer{Dataset: "roads", Mode: state.OfferPerQuery, Price: 4},
			org: "gamma", wantMode: state.LicencePerQuery},
		{name: "insufficient credits refuses both", credits: 6, offer: &state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 7},
			org: "gamma", wantErr: state.ErrInvalid},
		{name: "private", credits: 10, org: "gamma", wantErr: state.ErrNotFound},
		{name: "withdrawn", credits: 10, offer: &state.Offer{Dataset: "roads", Mode: state.OfferPrivate}, org: "gamma", wantErr: state.ErrNotFound},
		{name: "own dataset", credits: 10, offer: &state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 1}, org: "acme", wantErr: state.ErrInvalid},
		{name: "unknown org", credits: 10, offer: &state.Offer{Dataset: "roads", Mode: state.OfferSubscription}, org: "nope", wantErr: state.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := licenceStore(t)
			if tt.credits > 0 {
				if _, _, err := s.AddCredits("gamma", tt.credits, "test", testNow); err != nil {
					t.Fatal(err)
				}
			}
			if tt.offer != nil {
				if _, err := s.SetOffer(*tt.offer, testNow); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := s.Ledger("gamma", 0)
			l, e, err := s.LicenseOffer(tt.org, "roads", nil, testNow)
			after, _ := s.Ledger("gamma", 0)
			lic, _ := s.Licences("gamma")
			o, _ := s.Org("gamma")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("LicenseOffer error = %v, want %v", err, tt.wantErr)
				}
				if len(lic) != 0 || len(after) != len(before) || o.Credits != tt.credits {
					t.Fatalf("after a refusal: licences %v, ledger %d -> %d entries, balance %d; want nothing written", lic, len(before), len(after), o.Credits)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Mode != tt.wantMode || len(lic) != 1 || lic[0] != l {
				t.Fatalf("licence %+v, stored %v; want mode %s", l, lic, tt.wantMode)
			}
			if o.Credits != tt.credits-tt.wantDebt {
				t.Errorf("balance %d, want %d", o.Credits, tt.credits-tt.wantDebt)
			}
			switch {
			case tt.wantDebt == 0 && (e != nil || len(after) != len(before)):
				t.Errorf("ledger entry %+v written for a free licence", e)
			case tt.wantDebt > 0 && (e == nil || len(after) != len(before)+1 || after[len(after)-1] != *e ||
				e.Kind != state.LedgerLicence || e.Credits != -tt.wantDebt || e.Dataset != "roads"):
				t.Errorf("ledger entry %+v, ledger %v; want a debit of %d for roads", e, after, tt.wantDebt)
			}
			if _, _, err := s.LicenseOffer(tt.org, "roads", nil, testNow); !errors.Is(err, state.ErrExists) {
				t.Errorf("licensing twice: error %v, want ErrExists", err)
			}
		})
	}
}

func TestStore_Offers(t *testing.T) {
	s := licenceStore(t)
	if _, err := s.SetOffer(state.Offer{Dataset: "pop", Mode: state.OfferPerQuery, Price: 5, LicenceText: "CC BY 4.0"}, testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetOffer(state.Offer{Dataset: "health", Mode: state.OfferSubscription, Price: 9}, testNow); err != nil {
		t.Fatal(err)
	}
	d, _ := s.Dataset("pop")
	if d.Price != 5 {
		t.Errorf("per-query offer left the dataset's price at %d, want 5", d.Price)
	}
	for _, bad := range []state.Offer{
		{Dataset: "pop", Mode: "flat"},
		{Dataset: "pop", Mode: state.OfferSubscription, Price: -1},
		{Dataset: "pop", Mode: state.OfferSubscription, LicenceText: "a\x00b"},
	} {
		if _, err := s.SetOffer(bad, testNow); !errors.Is(err, state.ErrInvalid) {
			t.Errorf("SetOffer(%+v) error %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := s.SetOffer(state.Offer{Dataset: "nope", Mode: state.OfferSubscription}, testNow); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("unknown dataset: error %v, want ErrNotFound", err)
	}
	ls, err := s.Offers()
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Info.ID != "health" || ls[0].Price != 9 || ls[1].Info.ID != "pop" || ls[1].LicenceText != "CC BY 4.0" {
		t.Fatalf("Offers = %+v", ls)
	}
	// Withdrawing keeps the licences already granted.
	if _, _, err := s.LicenseOffer("gamma", "pop", nil, testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.WithdrawOffer("pop"); err != nil {
		t.Fatal(err)
	}
	if ls, _ := s.Offers(); len(ls) != 1 {
		t.Errorf("after withdrawing: %+v", ls)
	}
	if lic, _ := s.Licences("gamma"); len(lic) != 1 {
		t.Errorf("withdrawing removed licences: %v", lic)
	}
	if err := s.WithdrawOffer("nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("withdrawing an unknown dataset: %v", err)
	}
}

// TestStore_RemoveDatasetDropsOffer: a removed dataset's offer goes with
// it, so a dataset imported later under the same id starts private.
func TestStore_RemoveDatasetDropsOffer(t *testing.T) {
	s := licenceStore(t)
	if _, err := s.SetOffer(state.Offer{Dataset: "roads", Mode: state.OfferSubscription, Price: 2}, testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("roads"); err != nil {
		t.Fatal(err)
	}
	ls, err := s.Offers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.Dataset == "roads" {
			t.Fatalf("the removed dataset is still offered: %+v", l)
		}
	}
	if err := s.view(func(tx *bbolt.Tx) error {
		if b := tx.Bucket(bucketOffers); b != nil && b.Get([]byte("roads")) != nil {
			t.Error("the offer record outlived its dataset")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
