package bolt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// Org is an organisation.
type Org struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Plan    string    `json:"plan"`
	Created time.Time `json:"created"`
	// Credits is the balance: the sum of the changes in the organisation's
	// ledger, never below zero. It changes only in the transaction that
	// appends the ledger entry recording the change (AddCredits).
	Credits int64 `json:"credits"`
}

// Plans an organisation can be on (docs/contract.md §6).
const (
	PlanTrial = "trial"
	PlanPro   = "pro"
	PlanScale = "scale"
)

// PlanAllowance is the number of worded answers a month (calendar month,
// UTC) each plan includes (spec, Allowances); beyond it answers draw on the
// organisation's credits. Its keys are the only plans there are. Treat as
// read-only.
var PlanAllowance = map[string]int{PlanTrial: 100, PlanPro: 2000, PlanScale: 20000}

// DailyCeiling is the most worded answers an organisation gets in one UTC
// day, whatever its plan and credits (spec, Allowances).
const DailyCeiling = 1000

// checkPlan refuses a plan that is not a key of PlanAllowance, listing the
// plans from the smallest allowance up: `must be trial, pro or scale`.
func checkPlan(plan string) error {
	if _, ok := PlanAllowance[plan]; ok {
		return nil
	}
	names := make([]string, 0, len(PlanAllowance))
	for n := range PlanAllowance {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(PlanAllowance[a], PlanAllowance[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " or " + list
	}
	return errorf(ErrInvalid, nil, "invalid plan %q: must be %s", plan, list)
}

// idRule is the syntax of organisation and dataset ids: lowercase ASCII
// letters, digits, '_' and '-', starting with a letter or digit, 1 to 64
// characters. Ids appear in URLs, file names and logs unescaped.
const idRule = `^[a-z0-9][a-z0-9_-]{0,63}$`

var idPattern = regexp.MustCompile(idRule)

// maxNameLen bounds the display names of organisations and keys, in bytes.
const maxNameLen = 200

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

// checkName checks a display name: at most maxNameLen bytes of UTF-8
// without control characters (names are printed in one-line listings).
func checkName(what, name string) error {
	if len(name) > maxNameLen || !utf8.ValidString(name) {
		return errorf(ErrInvalid, nil, "invalid %s name: must be UTF-8 text of at most %d bytes", what, maxNameLen)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return errorf(ErrInvalid, nil, "invalid %s name: control character %U", what, r)
		}
	}
	return nil
}

// AddOrg stores a new organisation and returns it as stored. o.ID must
// match ^[a-z0-9][a-z0-9_-]{0,63}$; o.Name defaults to the id; o.Plan to
// "trial" and must be one of trial, pro, scale; o.Created defaults to now and
// is stored in UTC. o.Credits must be zero: credits come only through
// AddCredits, so that the ledger accounts for every one. Errors: ErrInvalid
// naming the rule broken; ErrExists when the id is taken.
func (s *Store) AddOrg(o Org) (Org, error) {
	o, err := CheckNewOrg(o, s.clock())
	if err != nil {
		return Org{}, err
	}

	v, err := json.Marshal(orgRecord(o))
	if err != nil {
		return Org{}, errorf(ErrInvalid, err, "invalid organisation %q: %v", o.ID, err)
	}
	err = s.update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketOrgs)
		if err != nil {
			return err
		}
		if b.Get([]byte(o.ID)) != nil {
			return errorf(ErrExists, nil, "organisation %q already exists", o.ID)
		}
		return b.Put([]byte(o.ID), v)
	})
	if err != nil {
		return Org{}, err
	}
	return o, nil
}

// Org returns the organisation with the given id. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Org(id string) (Org, error) {
	return viewValue(s, func(tx *bbolt.Tx) (Org, error) { return s.getOrg(tx, id) })
}

func (s *Store) getOrg(tx *bbolt.Tx, id string) (Org, error) {
	v := lookup(tx, bucketOrgs, id)
	if v == nil {
		return Org{}, errorf(ErrNotFound, nil, "organisation %q not found", id)
	}
	return s.decodeOrg(id, v)
}

// decodeOrg decodes a stored organisation record, checking that it is one
// this package could have written under that id.
func (s *Store) decodeOrg(id string, v []byte) (Org, error) {
	var r orgRecord
	err := decodeStrict(v, &r)
	switch {
	case err != nil:
	case r.ID != id:
		err = fmt.Errorf("record holds id %q", r.ID)
	case r.Credits < 0:
		err = fmt.Errorf("negative balance %d", r.Credits)
	case checkPlan(r.Plan) != nil:
		err = fmt.Errorf("unknown plan %q", r.Plan)
	}
	if err != nil {
		return Org{}, errorf(ErrCorrupt, err, "data file %q is corrupt: organisation %q: %v", s.path, id, err)
	}
	return Org(r), nil
}

// putOrg stores o, which must have been read in tx, back under its id.
func putOrg(tx *bbolt.Tx, o Org) error {
	return putJSON(tx.Bucket(bucketOrgs), []byte(o.ID), orgRecord(o))
}

// SetPlan moves the organisation to plan, one of trial, pro and scale, and
// returns it as stored. The new allowance applies from the next worded
// answer; answers already given this month still count against it. Setting
// the plan it is on changes nothing. Errors: ErrInvalid listing the plans;
// ErrNotFound; ErrCorrupt.
func (s *Store) SetPlan(orgID, plan string) (Org, error) {
	if err := checkPlan(plan); err != nil {
		return Org{}, err
	}
	var o Org
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if o, err = s.getOrg(tx, orgID); err != nil || o.Plan == plan {
			return err
		}
		o.Plan = plan
		return putOrg(tx, o)
	})
	if err != nil {
		return Org{}, err
	}
	return o, nil
}

// Orgs returns every organisation, sorted by id. Errors: ErrCorrupt.
func (s *Store) Orgs() ([]Org, error) {
	var orgs []Org
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
