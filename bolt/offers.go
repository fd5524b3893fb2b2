package bolt

import (
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// bucketOffers holds one Offer per offered dataset, keyed by dataset id.
// A dataset without a record is private.
var bucketOffers = []byte("offers")

// SetOffer offers dataset o.Dataset in o.Mode at o.Price with o.LicenceText
// (replacing an earlier offer) and returns the offer as stored. For
// per_query the price is also the dataset's per-request Price, set in the
// same transaction. Mode private withdraws the offer (see WithdrawOffer).
// Licences already granted keep their terms until revoked. now is the
// offer's time (zero means the current time).
//
// Errors: ErrInvalid for an unknown mode, a negative price or a licence
// text that is too long or holds control characters; ErrNotFound for an
// unknown dataset; ErrCorrupt.
func (s *Store) SetOffer(o state.Offer, now time.Time) (state.Offer, error) {
	if err := state.CheckOffer(o); err != nil {
		return state.Offer{}, err
	}
	if o.Mode == state.OfferPrivate {
		return state.Offer{Dataset: o.Dataset, Mode: state.OfferPrivate}, s.WithdrawOffer(o.Dataset)
	}
	if now.IsZero() {
		now = s.clock()
	}
	o.Updated = now.Round(0).UTC()
	err := s.update(func(tx *bbolt.Tx) error {
		d, err := s.mustDataset(tx, o.Dataset)
		if err != nil {
			return err
		}
		if o.Mode == state.OfferPerQuery && d.Price != o.Price {
			d.Price = o.Price
			if err := putJSON(tx.Bucket(bucketDatasets), []byte(d.ID), d); err != nil {
				return err
			}
		}
		b, err := tx.CreateBucketIfNotExists(bucketOffers)
		if err != nil {
			return err
		}
		return putJSON(b, []byte(o.Dataset), o)
	})
	if err != nil {
		return state.Offer{}, err
	}
	return o, nil
}

// WithdrawOffer makes a dataset private: nobody can license it from the
// marketplace any more. Licences already granted keep their terms until
// revoked. Withdrawing a private dataset does nothing. Errors: ErrNotFound
// for an unknown dataset; ErrCorrupt.
func (s *Store) WithdrawOffer(dataset string) error {
	return s.update(func(tx *bbolt.Tx) error {
		if _, err := s.mustDataset(tx, dataset); err != nil {
			return err
		}
		if b := tx.Bucket(bucketOffers); b != nil {
			return b.Delete([]byte(dataset))
		}
		return nil
	})
}

// getOffer reads the offer of dataset in tx; ok is false when it is
// private.
func (s *Store) getOffer(tx *bbolt.Tx, dataset string) (o state.Offer, ok bool, err error) {
	b := tx.Bucket(bucketOffers)
	if b == nil {
		return state.Offer{}, false, nil
	}
	v := b.Get([]byte(dataset))
	if v == nil {
		return state.Offer{}, false, nil
	}
	err = decodeStrict(v, &o)
	switch {
	case err != nil:
	case o.Dataset != dataset:
		err = fmt.Errorf("record is for %s", o.Dataset)
	case o.Mode != state.OfferSubscription && o.Mode != state.OfferPerQuery:
		err = fmt.Errorf("unknown mode %q", o.Mode)
	case o.Price < 0:
		err = fmt.Errorf("negative price %d", o.Price)
	}
	if err != nil {
		return state.Offer{}, false, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: offer %q: %v", s.path, dataset, err)
	}
	return o, true, nil
}

// Offers lists the offered datasets with their descriptions, in dataset
// id order; a per_query offer shows the dataset's current Price. Offers of
// datasets since removed are left out. One read transaction. Errors:
// ErrCorrupt.
func (s *Store) Offers() ([]state.Listing, error) {
	var out []state.Listing
	err := s.view(func(tx *bbolt.Tx) error {
		all, err := s.allDatasets(tx)
		if err != nil {
			return err
		}
		for _, d := range all {
			o, ok, err := s.getOffer(tx, d.ID)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if o.Mode == state.OfferPerQuery {
				o.Price = d.Price
			}
			out = append(out, state.Listing{Offer: o, Info: d})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// LicenseOffer licenses an offered dataset to orgID on the offer's terms,
// in one transaction: the licence (in the offer's mode, with its price
// recorded: later price changes do not reach it) and, for a
// subscription with a price, the debit of that price from the
// organisation's balance with the ledger entry (kind LedgerLicence) that
// records it. A crash leaves all or nothing: a licence never exists
// without its ledger entry. now is the licence's time (zero means the
// current time).
//
// Errors: ErrNotFound for an unknown organisation or dataset, or a dataset
// that is not offered (private); ErrInvalid when orgID owns the dataset or
// has fewer credits than the price (nothing is written); ErrExists when
// orgID already holds a licence for the dataset (revoke it first to change
// its terms); ErrTermsChanged when seen, the terms the buyer saw (nil:
// whatever they are now), are not the offer's (nothing is written);
// ErrCorrupt.
func (s *Store) LicenseOffer(orgID, dataset string, seen *state.Terms, now time.Time) (state.Licence, *state.LedgerEntry, error) {
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	var l state.Licence
	var entry *state.LedgerEntry
	err := s.update(func(tx *bbolt.Tx) error {
		org, err := s.getOrg(tx, orgID)
		if err != nil {
			return err
		}
		d, err := s.mustDataset(tx, dataset)
		if err != nil {
			return err
		}
		if err := state.CheckNotOwner(orgID, d); err != nil {
			return err
		}
		o, ok, err := s.getOffer(tx, dataset)
		if err != nil {
			return err
		}
		if !ok {
			return state.Errorf(state.ErrNotFound, "dataset %s is not offered in the marketplace", dataset)
		}
		lb, err := tx.CreateBucketIfNotExists(bucketLicences)
		if err != nil {
			return err
		}
		k := licenceKey(orgID, dataset)
		if lb.Get(k) != nil {
			return state.Errorf(state.ErrExists, "organisation %s already holds a licence for dataset %s", orgID, dataset)
		}
		if o.Mode == state.OfferPerQuery {
			o.Price = d.Price // as Offers shows it
		}
		var e *state.LedgerEntry
		if l, org, e, err = state.DecideLicence(org, dataset, o, seen, now); err != nil {
			return err
		}
		if e != nil {
			if e.Seq, err = s.appendLedger(tx, org.ID, *e); err != nil {
				return err
			}
			if err := s.putOrg(tx, org); err != nil {
				return err
			}
			entry = e
		}
		return putJSON(lb, k, l)
	})
	if err != nil {
		return state.Licence{}, nil, err
	}
	return l, entry, nil
}
