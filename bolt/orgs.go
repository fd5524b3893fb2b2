package bolt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// Org is an organisation.
type Org struct {
	ID, Name, Plan string
	Created        time.Time
}

// Plans an organisation can be on (contract §6). The allowances they carry
// belong to the metering code, not to the store.
const (
	PlanTrial = "trial"
	PlanPro   = "pro"
	PlanScale = "scale"
)

// idRule is the syntax of organisation and dataset ids: lowercase ASCII
// letters, digits, '_' and '-', starting with a letter or digit, 1 to 64
// characters. Ids appear in URLs, file names and logs unescaped.
const idRule = `^[a-z0-9][a-z0-9_-]{0,63}$`

var idPattern = regexp.MustCompile(idRule)

// maxNameLen bounds the display names of organisations and keys, in bytes.
const maxNameLen = 200

// orgRecord is an Org as stored (JSON) in the orgs bucket under its id.
type orgRecord struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Plan    string    `json:"plan"`
	Created time.Time `json:"created"`
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
// is stored in UTC. Errors: ErrInvalid naming the rule broken; ErrExists
// when the id is taken.
func (s *Store) AddOrg(o Org) (Org, error) {
	if !idPattern.MatchString(o.ID) {
		return Org{}, errorf(ErrInvalid, nil, "invalid organisation id %q: must match %s (lowercase letters, digits, '_' and '-', up to 64)", o.ID, idRule)
	}
	if o.Name == "" {
		o.Name = o.ID
	}
	if err := checkName("organisation", o.Name); err != nil {
		return Org{}, err
	}
	switch o.Plan {
	case "":
		o.Plan = PlanTrial
	case PlanTrial, PlanPro, PlanScale:
	default:
		return Org{}, errorf(ErrInvalid, nil, "invalid plan %q: must be trial, pro or scale", o.Plan)
	}
	if o.Created.IsZero() {
		o.Created = s.clock()
	}
	o.Created = o.Created.Round(0).UTC()

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
	var o Org
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		o, err = s.getOrg(tx, id)
		return err
	})
	return o, err
}

func (s *Store) getOrg(tx *bbolt.Tx, id string) (Org, error) {
	var v []byte
	if b := tx.Bucket(bucketOrgs); b != nil && id != "" {
		v = b.Get([]byte(id))
	}
	if v == nil {
		return Org{}, errorf(ErrNotFound, nil, "organisation %q not found", id)
	}
	return s.decodeOrg(id, v)
}

func (s *Store) decodeOrg(id string, v []byte) (Org, error) {
	var r orgRecord
	if err := decodeStrict(v, &r); err != nil || r.ID != id {
		if err == nil {
			err = fmt.Errorf("record holds id %q", r.ID)
		}
		return Org{}, errorf(ErrCorrupt, err, "data file %q is corrupt: organisation %q: %v", s.path, id, err)
	}
	return Org(r), nil
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
