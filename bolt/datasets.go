package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// Attribute types and aggregations (docs/contract.md §7).
const (
	TypeNumber   = "number"
	TypeCategory = "category"
	TypeText     = "text"

	AggSum  = "sum"
	AggMean = "mean"
	AggMode = "mode"
)

// Attribute declares one attribute a dataset records per frame.
type Attribute struct {
	Name        string   `json:"name"`  // key in the frame's attributes object; ^[A-Za-z0-9_]{1,64}$
	Label       string   `json:"label"` // display text, e.g. "Estimated population"
	Unit        string   `json:"unit,omitempty"`
	Type        string   `json:"type"`        // number | category | text
	Aggregation string   `json:"aggregation"` // sum | mean | mode (sum and mean only for numbers)
	Year        int      `json:"year,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
}

// Dataset is a dataset's description. Its frame records live in a bucket
// of their own, one bucket per version.
type Dataset struct {
	ID          string      `json:"id"` // same rule as organisation ids
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Owner       string      `json:"owner"` // organisation id
	Attributes  []Attribute `json:"attributes,omitempty"`
	Price       int64       `json:"price"` // credits a per-query licensee pays per contributing request (0 = free; the CLI defaults to 1)
	Source      string      `json:"source,omitempty"`
	Version     int         `json:"version"`  // set by ImportDataset
	Frames      int         `json:"frames"`   // frames with a record, set by ImportDataset
	Features    int         `json:"features"` // features in all, set by ImportDataset
	ImportedAt  time.Time   `json:"importedAt"`
}

// Licence modes.
const (
	LicenceSubscription = "subscription"
	LicencePerQuery     = "per_query"
)

// Licence lets an organisation read another's dataset.
type Licence struct {
	OrgID   string    `json:"org"`
	Dataset string    `json:"dataset"`
	Mode    string    `json:"mode"`
	Granted time.Time `json:"granted"`
}

// Access is a dataset a key may read, and whether reading it is charged
// per query.
type Access struct {
	Dataset  Dataset
	PerQuery bool
}

// DatasetPrice names a per-query dataset and its price for Charge.
type DatasetPrice struct {
	ID    string
	Price int64
}

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

// checkText checks a free text (description, source, unit, alias): UTF-8
// of at most max bytes; control characters other than newline and tab
// only where multiline allows them.
func checkText(what, text string, max int, multiline bool) error {
	if len(text) > max || !utf8.ValidString(text) {
		return errorf(ErrInvalid, nil, "invalid %s: must be UTF-8 text of at most %d bytes", what, max)
	}
	for _, r := range text {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) {
			return errorf(ErrInvalid, nil, "invalid %s: control character %U", what, r)
		}
	}
	return nil
}

// checkDataset validates and normalises a dataset description given to
// ImportDataset: the id rule, the name (defaulting to the id), texts, the
// price and every attribute. It returns the attribute index the record
// checks use.
func checkDataset(d *Dataset) (map[string]int, error) {
	if !idPattern.MatchString(d.ID) {
		return nil, errorf(ErrInvalid, nil, "invalid dataset id %q: must match %s (lowercase letters, digits, '_' and '-', up to 64)", d.ID, idRule)
	}
	if d.Name == "" {
		d.Name = d.ID
	}
	if err := checkName("dataset", d.Name); err != nil {
		return nil, err
	}
	if err := checkText("description of dataset "+d.ID, d.Description, maxTextLen, true); err != nil {
		return nil, err
	}
	if err := checkText("source of dataset "+d.ID, d.Source, maxTextLen, true); err != nil {
		return nil, err
	}
	if d.Owner == "" {
		return nil, errorf(ErrInvalid, nil, "invalid dataset %s: no owner organisation", d.ID)
	}
	if err := checkPrice(d.ID, d.Price); err != nil {
		return nil, err
	}
	if len(d.Attributes) > maxAttributes {
		return nil, errorf(ErrInvalid, nil, "invalid dataset %s: %d attributes, at most %d", d.ID, len(d.Attributes), maxAttributes)
	}
	names := make(map[string]int, len(d.Attributes))
	attrs := make([]Attribute, len(d.Attributes))
	for i, a := range d.Attributes {
		if err := checkAttribute(d.ID, &a); err != nil {
			return nil, err
		}
		if _, dup := names[a.Name]; dup {
			return nil, errorf(ErrInvalid, nil, "invalid dataset %s: attribute %q is declared twice", d.ID, a.Name)
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

// checkPrice checks the credits a per-query licensee pays per request.
func checkPrice(dataset string, credits int64) error {
	if credits < 0 {
		return errorf(ErrInvalid, nil, "invalid price %d for dataset %s: must be 0 (free) or more credits", credits, dataset)
	}
	return nil
}

// checkAttribute validates one attribute declaration, filling in the
// label (the name) and, for categories and texts, the aggregation (mode).
func checkAttribute(dataset string, a *Attribute) error {
	if !attrNamePattern.MatchString(a.Name) {
		return errorf(ErrInvalid, nil, "invalid attribute name %q in dataset %s: must match ^[A-Za-z0-9_]{1,64}$", a.Name, dataset)
	}
	where := fmt.Sprintf("attribute %s of dataset %s", a.Name, dataset)
	if a.Label == "" {
		a.Label = a.Name
	}
	if err := checkName(where, a.Label); err != nil {
		return err
	}
	if err := checkText("unit of "+where, a.Unit, maxNameLen, false); err != nil {
		return err
	}
	switch a.Type {
	case TypeNumber:
		if a.Aggregation == "" {
			return errorf(ErrInvalid, nil, "invalid %s: a number needs an aggregation, sum or mean (or mode)", where)
		}
	case TypeCategory, TypeText:
		if a.Aggregation == "" {
			a.Aggregation = AggMode
		}
		if a.Aggregation != AggMode {
			return errorf(ErrInvalid, nil, "invalid %s: aggregation %q is only for numbers; a %s aggregates by mode", where, a.Aggregation, a.Type)
		}
	default:
		return errorf(ErrInvalid, nil, "invalid %s: type %q must be number, category or text", where, a.Type)
	}
	switch a.Aggregation {
	case AggSum, AggMean, AggMode:
	default:
		return errorf(ErrInvalid, nil, "invalid %s: aggregation %q must be sum, mean or mode", where, a.Aggregation)
	}
	if a.Year != 0 && (a.Year < minYear || a.Year > maxYear) {
		return errorf(ErrInvalid, nil, "invalid %s: year %d must be between %d and %d (or none)", where, a.Year, minYear, maxYear)
	}
	if len(a.Aliases) > maxAliases {
		return errorf(ErrInvalid, nil, "invalid %s: %d aliases, at most %d", where, len(a.Aliases), maxAliases)
	}
	for _, al := range a.Aliases {
		if al == "" {
			return errorf(ErrInvalid, nil, "invalid %s: an empty alias", where)
		}
		if err := checkText("alias of "+where, al, maxNameLen, false); err != nil {
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
func (s *Store) getDataset(tx *bbolt.Tx, id string) (Dataset, bool, error) {
	v := lookup(tx, bucketDatasets, id)
	if v == nil {
		return Dataset{}, false, nil
	}
	d, err := s.decodeDataset(id, v)
	return d, err == nil, err
}

// decodeDataset decodes a stored dataset description, checking that it is
// one this package could have written under that id.
func (s *Store) decodeDataset(id string, v []byte) (Dataset, error) {
	var d Dataset
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
		return Dataset{}, errorf(ErrCorrupt, err, "data file %q is corrupt: dataset %q: %v", s.path, id, err)
	}
	return d, nil
}

// mustDataset is getDataset with ErrNotFound for a dataset that does not
// exist.
func (s *Store) mustDataset(tx *bbolt.Tx, id string) (Dataset, error) {
	d, found, err := s.getDataset(tx, id)
	if err == nil && !found {
		err = errorf(ErrNotFound, nil, "dataset %q not found", id)
	}
	return d, err
}

// Dataset returns a dataset's description. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Dataset(id string) (Dataset, error) {
	return viewValue(s, func(tx *bbolt.Tx) (Dataset, error) { return s.mustDataset(tx, id) })
}

// Datasets returns every dataset, sorted by id. Errors: ErrCorrupt.
func (s *Store) Datasets() ([]Dataset, error) {
	return viewValue(s, s.allDatasets)
}

// allDatasets reads every dataset description in tx, in id order (bbolt's
// byte order is id order for ids of ASCII letters, digits, '_' and '-').
func (s *Store) allDatasets(tx *bbolt.Tx) ([]Dataset, error) {
	b := tx.Bucket(bucketDatasets)
	if b == nil {
		return nil, nil
	}
	var out []Dataset
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			return errorf(ErrCorrupt, nil, "data file %q is corrupt: datasets bucket holds a bucket %q", s.path, k)
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
func (s *Store) SetPrice(id string, credits int64) (Dataset, error) {
	if err := checkPrice(id, credits); err != nil {
		return Dataset{}, err
	}
	var d Dataset
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if d, err = s.mustDataset(tx, id); err != nil || d.Price == credits {
			return err
		}
		d.Price = credits
		return putJSON(tx.Bucket(bucketDatasets), []byte(id), d)
	})
	if err != nil {
		return Dataset{}, err
	}
	return d, nil
}

// liveVersion returns the version of dataset id that readers see, or 0
// when there is no such dataset. It reads only the "version" member of the
// stored description.
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
