package bolt

import (
	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// The one-node implementation of the shared state.
var _ state.Store = (*Store)(nil)

// UsageCounters returns every usage counter of the organisation, of every
// period, in name order: for copying the file elsewhere (`frameindex state
// import`). Errors: ErrNotFound; ErrCorrupt.
func (s *Store) UsageCounters(orgID string) ([]state.UsageCounter, error) {
	s.settled()
	var out []state.UsageCounter
	err := s.view(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, orgID); err != nil {
			return err
		}
		b := usageBucket(tx, orgID)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			c, err := decodeCounter(v)
			if err != nil {
				return s.corruptCounter(orgID, string(k), err)
			}
			out = append(out, state.UsageCounter{Name: string(k), Count: c.Count, Credits: c.Credits})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PendingAnswers returns the worded-answer reservations neither committed
// nor refunded, by id, and the highest reservation id made so far: for
// copying the file elsewhere. Errors: ErrCorrupt.
func (s *Store) PendingAnswers() (pending []state.Reservation, lastID uint64, err error) {
	s.settled()
	err = s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPending)
		if b == nil {
			return nil
		}
		lastID = b.Sequence()
		return b.ForEach(func(k, v []byte) error {
			r, err := decodeReservation(k, v)
			if err != nil {
				return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: pending worded answer %x: %v", s.path, k, err)
			}
			pending = append(pending, r)
			return nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return pending, lastID, nil
}
