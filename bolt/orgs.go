package bolt

import (
	"encoding/json"
	"fmt"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// orgRecord is an Org as stored (JSON) in the orgs bucket under its id.
// Credits is left out while it is zero, so a record is byte for byte what
// builds before credits wrote until the organisation is first granted some
// (and those builds, which decode strictly, refuse a record that has them
// rather than misread it).
type orgRecord struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Plan    string    `json:"plan"`
	Created time.Time `json:"created"`
	Credits int64     `json:"credits,omitempty"`
}

// AddOrg stores a new organisation and returns it as stored. o.ID must
// match ^[a-z0-9][a-z0-9_-]{0,63}$; o.Name defaults to the id; o.Plan to
// "trial" and must be one of trial, pro, scale; o.Created defaults to now and
// is stored in UTC. o.Credits must be zero: credits come only through
// AddCredits, so that the ledger accounts for every one. Errors: ErrInvalid
// naming the rule broken; ErrExists when the id is taken.
func (s *Store) AddOrg(o state.Org) (state.Org, error) {
	o, err := state.CheckNewOrg(o, s.clock())
	if err != nil {
		return state.Org{}, err
	}

	v, err := json.Marshal(orgRecord(o))
	if err != nil {
		return state.Org{}, state.Wrapf(state.ErrInvalid, err, "invalid organisation %q: %v", o.ID, err)
	}
	err = s.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketOrgs)
		if err != nil {
			return err
		}
		if b.Get([]byte(o.ID)) != nil {
			return state.Errorf(state.ErrExists, "organisation %q already exists", o.ID)
		}
		return b.Put([]byte(o.ID), v)
	})
	if err != nil {
		return state.Org{}, err
	}
	return o, nil
}

// Org returns the organisation with the given id. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Org(id string) (state.Org, error) {
	s.settled()
	return viewValue(s, func(tx *bbolt.Tx) (state.Org, error) { return s.getOrg(tx, id) })
}

func (s *Store) getOrg(tx *bbolt.Tx, id string) (state.Org, error) {
	if o, ok := s.pendingFor(tx).org(id); ok {
		return o, nil
	}
	v := lookup(tx, bucketOrgs, id)
	if v == nil {
		return state.Org{}, state.Errorf(state.ErrNotFound, "organisation %q not found", id)
	}
	if o, ok := s.memo.orgs.get(id, v); ok {
		return o, nil
	}
	o, err := s.decodeOrg(id, v)
	if err == nil {
		s.memo.orgs.put(id, v, o)
	}
	return o, err
}

// decodeOrg decodes a stored organisation record, checking that it is one
// this package could have written under that id.
func (s *Store) decodeOrg(id string, v []byte) (state.Org, error) {
	var r orgRecord
	err := decodeStrict(v, &r)
	switch {
	case err != nil:
	case r.ID != id:
		err = fmt.Errorf("record holds id %q", r.ID)
	case r.Credits < 0:
		err = fmt.Errorf("negative balance %d", r.Credits)
	case state.CheckPlan(r.Plan) != nil:
		err = fmt.Errorf("unknown plan %q", r.Plan)
	}
	if err != nil {
		return state.Org{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: organisation %q: %v", s.path, id, err)
	}
	return state.Org(r), nil
}

// putOrg stores o, which must have been read in tx, back under its id. In
// the committer's open transaction it is kept pending and written once
// per group (pending.go).
func (s *Store) putOrg(tx *bbolt.Tx, o state.Org) error {
	if p := s.pendingFor(tx); p != nil {
		if p.orgs == nil {
			p.orgs = make(map[string]state.Org)
		}
		p.orgs[o.ID] = o
		return nil
	}
	return s.writeOrg(tx, o)
}

// writeOrg writes o's record in tx and remembers it, so that the next
// reader of the same bytes does not decode them.
func (s *Store) writeOrg(tx *bbolt.Tx, o state.Org) error {
	data, err := encodeOrg(o)
	if err != nil {
		return err
	}
	b, err := s.writeBucket(tx, bucketOrgs)
	if err != nil {
		return err
	}
	if err := b.Put([]byte(o.ID), data); err != nil {
		return err
	}
	s.memo.orgs.put(o.ID, data, o)
	return nil
}

// SetPlan moves the organisation to plan, one of trial, pro and scale, and
// returns it as stored. The new allowance applies from the next worded
// answer; answers already given this month still count against it. Setting
// the plan it is on changes nothing. Errors: ErrInvalid listing the plans;
// ErrNotFound; ErrCorrupt.
func (s *Store) SetPlan(orgID, plan string) (state.Org, error) {
	if err := state.CheckPlan(plan); err != nil {
		return state.Org{}, err
	}
	var o state.Org
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil || o.Plan == plan {
			return err
		}
		o.Plan = plan
		return s.putOrg(tx, o)
	})
	if err != nil {
		return state.Org{}, err
	}
	return o, nil
}

// Orgs returns every organisation, sorted by id. Errors: ErrCorrupt.
func (s *Store) Orgs() ([]state.Org, error) {
	s.settled()
	var orgs []state.Org
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrgs)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			o, err := s.decodeOrg(string(k), v)
			if err != nil {
				return err
			}
			orgs = append(orgs, o)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return orgs, nil // bbolt iterates in key order, which is id order
}
