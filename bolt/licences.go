package bolt

import (
	"bytes"
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// licenceKey is the key of a licence in the licences bucket:
// "<org>/<dataset>". Neither id holds '/', so "<org>/" is exactly one
// organisation's licences.
func licenceKey(orgID, dataset string) []byte {
	return []byte(orgID + "/" + dataset)
}

// decodeLicence decodes a stored licence, checking that it is one this
// package could have written under its key.
func (s *Store) decodeLicence(k, v []byte) (state.Licence, error) {
	// Every data call of a key whose organisation holds licences reads
	// them all: decoding them was a tenth of such a call's CPU.
	if l, ok := s.memo.licences.get(string(k), v); ok {
		return l, nil
	}
	var l state.Licence
	err := decodeStrict(v, &l)
	switch {
	case err != nil:
	case !bytes.Equal(k, licenceKey(l.OrgID, l.Dataset)):
		err = fmt.Errorf("record is for %s/%s", l.OrgID, l.Dataset)
	case state.CheckLicenceMode(l.Mode) != nil:
		err = fmt.Errorf("unknown mode %q", l.Mode)
	case l.Price < 0:
		err = fmt.Errorf("negative price %d", l.Price)
	}
	if err != nil {
		return state.Licence{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: licence %q: %v", s.path, k, err)
	}
	s.memo.licences.put(string(k), v, l)
	return l, nil
}

// GrantLicence lets org read dataset in mode (replacing an earlier licence).
// mode is LicenceSubscription (flat, nothing debited) or LicencePerQuery
// (the dataset's price now, recorded on the licence, per started 100
// frames read; later price changes do not reach it). now is the grant's time
// (zero means the current time). It returns the licence as stored.
//
// Errors: ErrInvalid for an unknown mode or when org owns the dataset (an
// owner reads its own datasets without a licence); ErrNotFound for an
// unknown organisation or dataset; ErrCorrupt.
func (s *Store) GrantLicence(orgID, dataset, mode string, now time.Time) (state.Licence, error) {
	if err := state.CheckLicenceMode(mode); err != nil {
		return state.Licence{}, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	l := state.Licence{OrgID: orgID, Dataset: dataset, Mode: mode, Granted: now.Round(0).UTC(), Priced: true}
	err := s.update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, orgID); err != nil {
			return err
		}
		d, err := s.mustDataset(tx, dataset)
		if err != nil {
			return err
		}
		if err := state.CheckNotOwner(orgID, d); err != nil {
			return err
		}
		if mode == state.LicencePerQuery {
			l.Price = d.Price
		}
		b, err := tx.CreateBucketIfNotExists(bucketLicences)
		if err != nil {
			return err
		}
		return putJSON(b, licenceKey(orgID, dataset), l)
	})
	if err != nil {
		return state.Licence{}, err
	}
	return l, nil
}

// RevokeLicence ends a licence; the organisation's keys stop reading the
// dataset from their next request. Errors: ErrNotFound when org holds no
// licence for dataset; ErrCorrupt.
func (s *Store) RevokeLicence(orgID, dataset string) error {
	return s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketLicences)
		k := licenceKey(orgID, dataset)
		if b == nil || b.Get(k) == nil {
			return state.Errorf(state.ErrNotFound, "organisation %q holds no licence for dataset %q", orgID, dataset)
		}
		return b.Delete(k)
	})
}

// Licences lists licences, of one organisation or all (""), sorted by
// organisation and then dataset id. Errors: ErrNotFound for an unknown
// organisation; ErrCorrupt.
func (s *Store) Licences(orgID string) ([]state.Licence, error) {
	var out []state.Licence
	err := s.view(func(tx *bbolt.Tx) error {
		if orgID != "" {
			if _, err := s.getOrg(tx, orgID); err != nil {
				return err
			}
		}
		var err error
		out, err = s.licencesOf(tx, orgID)
		return err
	})
	if err != nil {
		return nil, err
	}
	state.SortLicences(out)
	return out, nil
}

// licencesOf reads the licences of orgID (all when "") in tx, in key
// order.
func (s *Store) licencesOf(tx *bbolt.Tx, orgID string) ([]state.Licence, error) {
	b := tx.Bucket(bucketLicences)
	if b == nil {
		return nil, nil
	}
	var prefix []byte
	if orgID != "" {
		prefix = []byte(orgID + "/")
	}
	var out []state.Licence
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if v == nil {
			return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: licences bucket holds a bucket %q", s.path, k)
		}
		l, err := s.decodeLicence(k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Readable returns the datasets key may read, sorted by id: those its
// organisation owns and those it holds a licence for (PerQuery for a
// per-query licence), narrowed to k.Datasets when that is not empty. A
// dataset the organisation owns is never charged, whatever licence it may
// hold. One read transaction; the key's own state (expiry, revocation) is
// not checked here. Errors: ErrCorrupt.
//
// It reads every dataset description: fine for hundreds of datasets.
func (s *Store) Readable(k state.Key) ([]state.Access, error) {
	if k.OrgID == "" {
		return nil, nil
	}
	var out []state.Access
	err := s.view(func(tx *bbolt.Tx) error {
		lic, err := s.licencesOf(tx, k.OrgID)
		if err != nil {
			return err
		}
		mode := make(map[string]state.Licence, len(lic))
		for _, l := range lic {
			mode[l.Dataset] = l
		}
		all, err := s.allDatasets(tx)
		if err != nil {
			return err
		}
		out = state.ReadableBy(k, all, mode) // allDatasets reads in id order
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
