package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// Bucket names of datasets; see the package comment for the layout.
var (
	bucketDatasets = []byte("datasets")
	bucketLicences = []byte("licences")
	bucketVersions = []byte("dsv")

	// Nested buckets of one dataset version.
	bucketVFrames = []byte("frames")
	bucketVFeats  = []byte("feats")
)

// Limits of what a dataset may hold.
const (
	maxAttributes   = 1000     // declared attributes per dataset
	maxAliases      = 50       // aliases per attribute
	maxAttrsBytes   = 1 << 20  // one frame's attributes object
	maxFeatureBytes = 64 << 20 // one GeoJSON feature
	maxTextLen      = 4000     // a dataset's description or source, in bytes
	maxRequestIDLen = 200      // a charged request's id or key id, in bytes

	minYear = 1000
	maxYear = 9999
)

// attrNamePattern is the syntax of attribute names.
var attrNamePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// checkDataset validates and normalises a dataset description given to
// ImportDataset: the id rule, the name (defaulting to the id), texts, the
// price and every attribute. It returns the attribute index the record
// checks use.
func checkDataset(d *state.Dataset) (map[string]int, error) {
	if !state.ValidID(d.ID) {
		return nil, state.Errorf(state.ErrInvalid, "invalid dataset id %q: must match %s (lowercase letters, digits, '_' and '-', up to 64)", d.ID, state.IDRule)
	}
	if d.Name == "" {
		d.Name = d.ID
	}
	if err := state.CheckName("dataset", d.Name); err != nil {
		return nil, err
	}
	if err := state.CheckText("description of dataset "+d.ID, d.Description, maxTextLen, true); err != nil {
		return nil, err
	}
	if err := state.CheckText("source of dataset "+d.ID, d.Source, maxTextLen, true); err != nil {
		return nil, err
	}
	if d.Owner == "" {
		return nil, state.Errorf(state.ErrInvalid, "invalid dataset %s: no owner organisation", d.ID)
	}
	if err := state.CheckPrice(d.ID, d.Price); err != nil {
		return nil, err
	}
	if len(d.Attributes) > maxAttributes {
		return nil, state.Errorf(state.ErrInvalid, "invalid dataset %s: %d attributes, at most %d", d.ID, len(d.Attributes), maxAttributes)
	}
	names := make(map[string]int, len(d.Attributes))
	attrs := make([]state.Attribute, len(d.Attributes))
	for i, a := range d.Attributes {
		if err := checkAttribute(d.ID, &a); err != nil {
			return nil, err
		}
		if _, dup := names[a.Name]; dup {
			return nil, state.Errorf(state.ErrInvalid, "invalid dataset %s: attribute %q is declared twice", d.ID, a.Name)
		}
		names[a.Name] = i
		attrs[i] = a
	}
	if len(attrs) > 0 {
		d.Attributes = attrs // normalised copy; the caller's slice is not changed
	} else {
		d.Attributes = nil
	}
	return names, nil
}

// checkAttribute validates one attribute declaration, filling in the
// label (the name) and, for categories and texts, the aggregation (mode).
func checkAttribute(dataset string, a *state.Attribute) error {
	if !attrNamePattern.MatchString(a.Name) {
		return state.Errorf(state.ErrInvalid, "invalid attribute name %q in dataset %s: must match ^[A-Za-z0-9_]{1,64}$", a.Name, dataset)
	}
	where := fmt.Sprintf("attribute %s of dataset %s", a.Name, dataset)
	if a.Label == "" {
		a.Label = a.Name
	}
	if err := state.CheckName(where, a.Label); err != nil {
		return err
	}
	if err := state.CheckText("unit of "+where, a.Unit, state.MaxNameLen, false); err != nil {
		return err
	}
	switch a.Type {
	case state.TypeNumber:
		if a.Aggregation == "" {
			return state.Errorf(state.ErrInvalid, "invalid %s: a number needs an aggregation, sum or mean (or mode)", where)
		}
	case state.TypeCategory, state.TypeText:
		if a.Aggregation == "" {
			a.Aggregation = state.AggMode
		}
		if a.Aggregation != state.AggMode {
			return state.Errorf(state.ErrInvalid, "invalid %s: aggregation %q is only for numbers; a %s aggregates by mode", where, a.Aggregation, a.Type)
		}
	default:
		return state.Errorf(state.ErrInvalid, "invalid %s: type %q must be number, category or text", where, a.Type)
	}
	switch a.Aggregation {
	case state.AggSum, state.AggMean, state.AggMode:
	default:
		return state.Errorf(state.ErrInvalid, "invalid %s: aggregation %q must be sum, mean or mode", where, a.Aggregation)
	}
	if a.Year != 0 && (a.Year < minYear || a.Year > maxYear) {
		return state.Errorf(state.ErrInvalid, "invalid %s: year %d must be between %d and %d (or none)", where, a.Year, minYear, maxYear)
	}
	if len(a.Aliases) > maxAliases {
		return state.Errorf(state.ErrInvalid, "invalid %s: %d aliases, at most %d", where, len(a.Aliases), maxAliases)
	}
	for _, al := range a.Aliases {
		if al == "" {
			return state.Errorf(state.ErrInvalid, "invalid %s: an empty alias", where)
		}
		if err := state.CheckText("alias of "+where, al, state.MaxNameLen, false); err != nil {
			return err
		}
	}
	a.Aliases = slices.Clip(slices.Clone(a.Aliases))
	if len(a.Aliases) == 0 {
		a.Aliases = nil
	}
	return nil
}

// getDataset reads a dataset description inside tx; found is false when
// there is none.
func (s *Store) getDataset(tx *bbolt.Tx, id string) (state.Dataset, bool, error) {
	v := lookup(tx, bucketDatasets, id)
	if v == nil {
		return state.Dataset{}, false, nil
	}
	d, err := s.decodeDataset(id, v)
	return d, err == nil, err
}

// cloneDataset copies d's slices, so that no caller shares them.
func cloneDataset(d state.Dataset) state.Dataset {
	if d.Attributes != nil {
		d.Attributes = slices.Clone(d.Attributes)
		for i := range d.Attributes {
			d.Attributes[i].Aliases = slices.Clone(d.Attributes[i].Aliases)
		}
	}
	return d
}

// decodeDataset decodes a stored dataset description, checking that it is
// one this package could have written under that id.
func (s *Store) decodeDataset(id string, v []byte) (state.Dataset, error) {
	if d, ok := s.memo.datasets.get(id, v); ok {
		return cloneDataset(d), nil
	}
	d, err := s.decodeDescription(id, v)
	if err == nil {
		s.memo.datasets.put(id, v, cloneDataset(d))
	}
	return d, err
}

// decodeDescription is decodeDataset without the cache.
func (s *Store) decodeDescription(id string, v []byte) (state.Dataset, error) {
	var d state.Dataset
	err := decodeStrict(v, &d)
	switch {
	case err != nil:
	case d.ID != id:
		err = fmt.Errorf("record holds id %q", d.ID)
	case d.Version < 1:
		err = fmt.Errorf("version %d", d.Version)
	case d.Price < 0:
		err = fmt.Errorf("negative price %d", d.Price)
	case d.Owner == "":
		err = errors.New("no owner")
	}
	if err != nil {
		return state.Dataset{}, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: dataset %q: %v", s.path, id, err)
	}
	return d, nil
}

// mustDataset is getDataset with ErrNotFound for a dataset that does not
// exist.
func (s *Store) mustDataset(tx *bbolt.Tx, id string) (state.Dataset, error) {
	d, found, err := s.getDataset(tx, id)
	if err == nil && !found {
		err = state.Errorf(state.ErrNotFound, "dataset %q not found", id)
	}
	return d, err
}

// Dataset returns a dataset's description. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Dataset(id string) (state.Dataset, error) {
	return viewValue(s, func(tx *bbolt.Tx) (state.Dataset, error) { return s.mustDataset(tx, id) })
}

// Datasets returns every dataset, sorted by id. Errors: ErrCorrupt.
func (s *Store) Datasets() ([]state.Dataset, error) {
	return viewValue(s, s.allDatasets)
}

// allDatasets reads every dataset description in tx, in id order (bbolt's
// byte order is id order for ids of ASCII letters, digits, '_' and '-').
func (s *Store) allDatasets(tx *bbolt.Tx) ([]state.Dataset, error) {
	b := tx.Bucket(bucketDatasets)
	if b == nil {
		return nil, nil
	}
	var out []state.Dataset
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: datasets bucket holds a bucket %q", s.path, k)
		}
		d, err := s.decodeDataset(string(k), v)
		if err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

// RemoveDataset deletes a dataset, its records and its licences, in one
// transaction. An import of it that is running fails. Usage counters of
// its past charges and ledger entries naming it stay. Keys narrowed to it
// keep its id (and read nothing of it). Errors: ErrNotFound; ErrCorrupt.
func (s *Store) RemoveDataset(id string) error {
	return s.update(func(tx *bbolt.Tx) error { return s.removeDataset(tx, id) })
}

// removeDataset is RemoveDataset inside tx (SyncDatasets removes datasets
// too).
func (s *Store) removeDataset(tx *bbolt.Tx, id string) error {
	if _, err := s.mustDataset(tx, id); err != nil {
		return err
	}
	if err := tx.Bucket(bucketDatasets).Delete([]byte(id)); err != nil {
		return err
	}
	if versions := tx.Bucket(bucketVersions); versions != nil {
		if err := deleteVersions(versions, id, 0); err != nil {
			return err
		}
	}
	// Its marketplace offer goes too: a dataset imported later under the
	// same id starts private.
	if offers := tx.Bucket(bucketOffers); offers != nil {
		if err := offers.Delete([]byte(id)); err != nil {
			return err
		}
	}
	lic := tx.Bucket(bucketLicences)
	if lic == nil {
		return nil
	}
	suffix := append([]byte{'/'}, id...)
	var gone [][]byte
	if err := lic.ForEach(func(k, _ []byte) error {
		if bytes.HasSuffix(k, suffix) {
			gone = append(gone, bytes.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range gone {
		if err := lic.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// SetPrice sets the credits a per-query licensee pays per contributing
// request (0 = free) and returns the dataset as stored. It applies from
// the next request that reads the dataset. Errors: ErrInvalid for a
// negative price; ErrNotFound; ErrCorrupt.
func (s *Store) SetPrice(id string, credits int64) (state.Dataset, error) {
	if err := state.CheckPrice(id, credits); err != nil {
		return state.Dataset{}, err
	}
	var d state.Dataset
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if d, err = s.mustDataset(tx, id); err != nil || d.Price == credits {
			return err
		}
		d.Price = credits
		return putJSON(tx.Bucket(bucketDatasets), []byte(id), d)
	})
	if err != nil {
		return state.Dataset{}, err
	}
	return d, nil
}

// liveVersion returns the version of dataset id that readers see, or 0
// when there is no such dataset: from the cached description when the
// stored one is unchanged, and otherwise from the "version" member of the
// stored description alone.
func (s *Store) liveVersion(datasets *bbolt.Bucket, id string) (int, error) {
	v := datasets.Get([]byte(id))
	if v == nil {
		return 0, nil
	}
	if d, ok := s.memo.datasets.get(id, v); ok {
		return d.Version, nil
	}
	return liveVersion(datasets, id)
}

// liveVersion is Store.liveVersion without the cache (Compact's copy has
// no Store).
func liveVersion(datasets *bbolt.Bucket, id string) (int, error) {
	v := datasets.Get([]byte(id))
	if v == nil {
		return 0, nil
	}
	var r struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return 0, err
	}
	if r.Version < 1 {
		return 0, fmt.Errorf("version %d", r.Version)
	}
	return r.Version, nil
}
