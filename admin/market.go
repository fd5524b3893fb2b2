package admin

import (
	"context"
	"fmt"
	"strconv"

	"frameindex/state"
)

// Marketplace operation names.
const (
	OpDatasetOffer    = "dataset.offer"
	OpDatasetWithdraw = "dataset.withdraw"
	OpMarketList      = "market.list"
	OpLicenceAcquire  = "licence.acquire"
)

// DatasetOffer offers a dataset in the marketplace: Mode private (not
// offered), subscription (Credits debited once when licensed) or per_query
// (Credits per contributing request, the dataset's price). Org, when set,
// is the organisation making the offer and must own the dataset (the web
// application sets it; the command line acts for any organisation).
type DatasetOffer struct {
	ID          string `json:"id"`
	Mode        string `json:"mode"`
	Credits     int64  `json:"credits"`
	LicenceText string `json:"licenceText,omitempty"`
	Org         string `json:"org,omitempty"`
}

// DatasetWithdraw makes a dataset private; licences already granted keep
// their terms until revoked. Org as in DatasetOffer.
type DatasetWithdraw struct {
	ID  string `json:"id"`
	Org string `json:"org,omitempty"`
}

// MarketList lists the offered datasets. Exclude, when set, leaves out
// the datasets that organisation owns (the catalogue of what others
// offer).
type MarketList struct {
	Exclude string `json:"exclude,omitempty"`
}

// LicenceAcquire licenses an offered dataset to Org on the offer's terms.
type LicenceAcquire struct {
	OrgID   string `json:"org"`
	Dataset string `json:"dataset"`
	// Terms are the terms the buyer saw; when they are not the offer's
	// any more, nothing is licensed or charged (state.ErrTermsChanged).
	// Nil accepts the offer as it is.
	Terms *state.Terms `json:"terms,omitempty"`
}

// Acquired is the result of LicenceAcquire: the licence and, for a
// subscription with a price, the ledger entry that debited it.
type Acquired struct {
	Licence state.Licence      `json:"licence"`
	Debit   *state.LedgerEntry `json:"debit,omitempty"`
}

// ownedBy checks that org (when set) owns dataset id, one of this node's
// datasets.
func (o *Ops) ownedBy(id, org string) error {
	c, err := o.catalogue()
	if err != nil {
		return err
	}
	d, err := c.Dataset(id)
	if err != nil {
		return err
	}
	if org != "" && d.Owner != org {
		// Another organisation's dataset is not named as existing.
		return fmt.Errorf("%w: organisation %s has no dataset %q", state.ErrNotFound, org, id)
	}
	return nil
}

// OfferDataset offers a dataset in the marketplace.
func (o *Ops) OfferDataset(ctx context.Context, a DatasetOffer) (_ state.Offer, err error) {
	au := o.audit(ctx, OpDatasetOffer, "", a.ID, "mode", text(a.Mode), "credits", strconv.FormatInt(a.Credits, 10))
	defer au.done(&err)
	if err := o.ownedBy(a.ID, a.Org); err != nil {
		return state.Offer{}, err
	}
	off, err := au.state().SetOffer(state.Offer{Dataset: a.ID, Mode: a.Mode, Price: a.Credits, LicenceText: a.LicenceText}, o.now())
	if err != nil {
		return state.Offer{}, err
	}
	o.changed(ChangeDatasets)
	return off, nil
}

// WithdrawOffer makes a dataset private.
func (o *Ops) WithdrawOffer(ctx context.Context, a DatasetWithdraw) (_ state.Offer, err error) {
	au := o.audit(ctx, OpDatasetWithdraw, "", a.ID)
	defer au.done(&err)
	if err := o.ownedBy(a.ID, a.Org); err != nil {
		return state.Offer{}, err
	}
	if err := au.state().WithdrawOffer(a.ID); err != nil {
		return state.Offer{}, err
	}
	o.changed(ChangeDatasets)
	return state.Offer{Dataset: a.ID, Mode: state.OfferPrivate}, nil
}

// Market lists the offered datasets.
func (o *Ops) Market(_ context.Context, a MarketList) ([]state.Listing, error) {
	all, err := o.state().Offers()
	if err != nil {
		return nil, err
	}
	out := []state.Listing{}
	for _, l := range all {
		if a.Exclude == "" || l.Info.Owner != a.Exclude {
			out = append(out, l)
		}
	}
	return out, nil
}

// AcquireLicence licenses an offered dataset on the offer's terms.
func (o *Ops) AcquireLicence(ctx context.Context, a LicenceAcquire) (_ Acquired, err error) {
	au := o.audit(ctx, OpLicenceAcquire, a.OrgID, a.Dataset)
	defer au.done(&err)
	if _, err := o.catalogue(); err != nil {
		return Acquired{}, err
	}
	if err := o.inCatalogue(a.Dataset); err != nil {
		return Acquired{}, err
	}
	l, e, err := au.state().LicenseOffer(a.OrgID, a.Dataset, a.Terms, o.now())
	if err != nil {
		return Acquired{}, err
	}
	o.changed(ChangeDatasets)
	return Acquired{Licence: l, Debit: e}, nil
}
