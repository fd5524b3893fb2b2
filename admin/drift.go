package admin

import (
	"strconv"

	"frameindex/state"
)

// Drift is one way the node's data file disagrees with the shared state
// on a dataset's terms. The shared state's are the ones used; the file's
// are left over from before it shared its state, or copied from another
// node's file.
type Drift struct {
	Dataset string `json:"dataset"`
	What    string `json:"what"` // "price" or "offer"
	File    string `json:"file"`
	Shared  string `json:"shared"`
}

// PriceAdopter is a shared state that gives a price to the node's
// datasets it has none for (pgstate's): the first node to serve a dataset
// sets it from its file, and the shared price is its one home from then
// on.
type PriceAdopter interface {
	AdoptPrices(ds []state.Dataset) error
}

// TermsDrift makes the shared state the one home of the prices of the
// node's datasets (PriceAdopter), then lists where the data file
// disagrees with it: a dataset's price, or its offer (mode, price,
// licence text). Without a shared state apart from the file there is
// nothing to disagree with: nil.
func (o *Ops) TermsDrift() ([]Drift, error) {
	if !o.shared() || o.Store == nil {
		return nil, nil
	}
	ds, err := o.Store.Datasets()
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	if a, ok := o.State.(PriceAdopter); ok {
		if err := a.AdoptPrices(ds); err != nil {
			return nil, err
		}
	}
	shared := make([]state.Dataset, len(ds))
	copy(shared, ds)
	if err := o.sharedPrices(shared); err != nil {
		return nil, err
	}
	var out []Drift
	for i, d := range ds {
		if d.Price != shared[i].Price {
			out = append(out, Drift{Dataset: d.ID, What: "price", File: strconv.FormatInt(d.Price, 10), Shared: strconv.FormatInt(shared[i].Price, 10)})
		}
	}
	fileOffers, err := o.Store.Offers()
	if err != nil {
		return nil, err
	}
	sharedOffers, err := o.State.Offers()
	if err != nil {
		return nil, err
	}
	theirs := map[string]state.Offer{}
	for _, l := range sharedOffers {
		theirs[l.Dataset] = l.Offer
	}
	for _, l := range fileOffers {
		if sh, ok := theirs[l.Dataset]; !ok || offerText(sh) != offerText(l.Offer) {
			d := Drift{Dataset: l.Dataset, What: "offer", File: offerText(l.Offer), Shared: "none"}
			if ok {
				d.Shared = offerText(sh)
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// offerText is an offer's terms in words, for Drift. A per-query offer's
// price is the dataset's, compared as a price.
func offerText(o state.Offer) string {
	t := o.Mode
	if o.Mode == state.OfferSubscription {
		t += " at " + strconv.FormatInt(o.Price, 10) + " credits"
	}
	return t + ", licence text of " + strconv.Itoa(len(o.LicenceText)) + " bytes " + strconv.Quote(state.Clip(o.LicenceText, 40))
}
