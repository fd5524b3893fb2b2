package bolt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	bbolt "go.etcd.io/bbolt"
)

// Attribute types and aggregations (contract §7).
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

// FrameRecord is what one dataset records on one frame: an attributes JSON
// object (stored and returned byte for byte; nil when none) and GeoJSON
// Feature objects (each one JSON object, compact by preference, also
// stored and returned byte for byte).
type FrameRecord struct {
	Frame    uint64
	Attrs    []byte
	Features [][]byte
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

// DatasetFrame is what one dataset records on one frame, as ReadFrames
// returns it.
type DatasetFrame struct {
	Dataset           string
	Attrs             []byte   // nil when the dataset records no attributes there
	FeatureCount      int      // features the dataset holds on the frame
	Features          [][]byte // at most what the cap left; nil without features
	FeaturesTruncated bool
}

// FrameData is what every asked dataset records on one frame; datasets that
// record nothing there are absent.
type FrameData struct {
	Frame    uint64
	Datasets []DatasetFrame
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

// Sizes of an import's staging transactions: a transaction ends after
// stageFrames frames, stageFeatures features or stageBytes bytes of
// records, whichever comes first, so that the single bbolt writer is never
// held for long and other writes (charges, administration) run in between.
const (
	stageFrames   = 50_000
	stageFeatures = 100_000
	stageBytes    = 32 << 20
)

// afterStage, when set (by tests), runs after each staging transaction of
// an import with the dataset id and the number of frames staged so far.
var afterStage func(dataset string, staged int)

// attrNamePattern is the syntax of attribute names.
var attrNamePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// importLocks serialises the imports of one data file (by path) within this
// process, so that an import may treat any staging bucket it finds as left
// behind by a crash: bbolt's file lock keeps every other process out, and
// only one Store of a process can have the file open at a time.
var importLocks sync.Map // Store.path -> *sync.Mutex

func (s *Store) importLock() *sync.Mutex {
	m, _ := importLocks.LoadOrStore(s.path, new(sync.Mutex))
	return m.(*sync.Mutex)
}

// versionBucketName is the name, in bucketVersions, of one version of a
// dataset's records: "<id>@<version>". Dataset ids hold no '@', so the
// prefix "<id>@" names exactly that dataset's versions.
func versionBucketName(id string, version int) []byte {
	return strconv.AppendInt(versionPrefix(id), int64(version), 10)
}

func versionPrefix(id string) []byte { return append([]byte(id), '@') }

// frameValue appends the stored value of a frame record: the feature count
// as an unsigned varint, then the attributes object (nothing when none).
func frameValue(dst []byte, features int, attrs []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(features))
	return append(dst, attrs...)
}

// featKey is the key of a frame's seq-th feature: frame BE8, seq BE4.
func featKey(dst []byte, frame uint64, seq uint32) []byte {
	dst = binary.BigEndian.AppendUint64(dst, frame)
	return binary.BigEndian.AppendUint32(dst, seq)
}

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
	if d.Price < 0 {
		return nil, errorf(ErrInvalid, nil, "invalid price %d for dataset %s: must be 0 (free) or more credits", d.Price, d.ID)
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

// recordPlan is what an import stores for one record, after checking it.
type recordPlan struct {
	rec   int  // index into the records
	attrs bool // the record has an attributes object with members
}

// checkRecords checks every record against the dataset's attributes and
// returns the ones that record something, in ascending frame order.
// Errors name the frame (and the feature, counted from 1) and the reason.
func checkRecords(d *Dataset, names map[string]int, records []FrameRecord) ([]recordPlan, error) {
	if int64(len(records)) > math.MaxInt32 {
		return nil, errorf(ErrInvalid, nil, "dataset %s: %d records, at most %d", d.ID, len(records), math.MaxInt32)
	}
	order := make([]int32, len(records))
	for i := range order {
		order[i] = int32(i)
	}
	byFrame := func(a, b int32) int { return cmp.Compare(records[a].Frame, records[b].Frame) }
	if !slices.IsSortedFunc(order, byFrame) {
		slices.SortFunc(order, byFrame)
	}
	sc := attrScanner{attrs: d.Attributes, names: names, seen: make([]uint32, len(d.Attributes))}
	plan := make([]recordPlan, 0, len(records))
	for k, i := range order {
		r := &records[i]
		if k > 0 && records[order[k-1]].Frame == r.Frame {
			return nil, errorf(ErrInvalid, nil, "dataset %s: frame %d has two records; each frame may have one", d.ID, r.Frame)
		}
		members := 0
		if len(r.Attrs) > 0 {
			if len(r.Attrs) > maxAttrsBytes {
				return nil, errorf(ErrInvalid, nil, "dataset %s, frame %d: attributes of %d bytes, at most %d", d.ID, r.Frame, len(r.Attrs), maxAttrsBytes)
			}
			n, err := sc.scan(r.Attrs)
			if err != nil {
				return nil, errorf(ErrInvalid, err, "dataset %s, frame %d: attributes: %v", d.ID, r.Frame, err)
			}
			members = n
		}
		if uint64(len(r.Features)) > math.MaxUint32 {
			return nil, errorf(ErrInvalid, nil, "dataset %s, frame %d: %d features, at most %d", d.ID, r.Frame, len(r.Features), uint32(math.MaxUint32))
		}
		for j, f := range r.Features {
			if err := checkFeature(f); err != nil {
				return nil, errorf(ErrInvalid, err, "dataset %s, frame %d, feature %d: %v", d.ID, r.Frame, j+1, err)
			}
		}
		if members == 0 && len(r.Features) == 0 {
			continue // records nothing: not stored
		}
		plan = append(plan, recordPlan{rec: int(i), attrs: members > 0})
	}
	return plan, nil
}

// ImportDataset stores records as a new version of dataset d, replacing
// the previous version atomically: readers see the old version or the new
// one, never a mix. Records may be in any order; frames must be unique.
//
// d.ID follows the organisation id rule; d.Name defaults to the id;
// d.Owner must be an existing organisation and, when the dataset exists,
// its owner. d.Price is stored as given (0 is free; the caller passes the
// price it wants, including on a re-import, which replaces an earlier
// SetPrice). Attributes: unique names (^[A-Za-z0-9_]{1,64}$), type number,
// category or text, aggregation sum, mean or mode (sum and mean only for
// numbers; categories and texts default to mode), label defaulting to the
// name, year 1000..9999 or none. d.Version, Frames, Features and
// ImportedAt are set here (version one more than the stored one; now, zero
// meaning the current time) and returned with the stored description.
//
// Each record's Attrs, when not empty, must be a JSON object whose members
// are declared attributes, each once, with a finite number for a number
// attribute and a string for a category or text (null is refused); it is
// stored byte for byte. Each feature must be a JSON object with "type":
// "Feature"; it is stored byte for byte. Frame ids are not checked against
// the grid. A record with no attributes (none, or an object without
// members) and no features records nothing and is not stored.
//
// Everything is checked before anything is written. The records are then
// written into a staging bucket in transactions of bounded size (at most
// 50,000 frames each), so that other writes run between them, and the new
// version is switched in, and the old one deleted, in one final
// transaction. Imports of one file run one at a time; a staging bucket left
// by an import that crashed is removed by the next import of that dataset
// (or by RemoveDataset). If the dataset is removed or changed by another
// import while this one runs, the import fails and leaves nothing.
//
// Errors: ErrInvalid naming the dataset, frame, feature and reason;
// ErrNotFound for an unknown owner organisation; ErrCorrupt; file errors.
// records are read, never modified or retained.
func (s *Store) ImportDataset(d Dataset, records []FrameRecord, now time.Time) (Dataset, error) {
	names, err := checkDataset(&d)
	if err != nil {
		return Dataset{}, err
	}
	plan, err := checkRecords(&d, names, records)
	if err != nil {
		return Dataset{}, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	d.ImportedAt = now.Round(0).UTC()
	d.Frames, d.Features = len(plan), 0
	for _, p := range plan {
		d.Features += len(records[p.rec].Features)
	}

	mu := s.importLock()
	mu.Lock()
	defer mu.Unlock()

	// First transaction: check the owner, note the version being replaced,
	// remove what crashed imports left and make the staging bucket.
	prev := 0
	err = s.update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, d.Owner); err != nil {
			return err
		}
		old, found, err := s.getDataset(tx, d.ID)
		if err != nil {
			return err
		}
		if found {
			if old.Owner != d.Owner {
				return errorf(ErrInvalid, nil, "dataset %s is owned by %s", d.ID, old.Owner)
			}
			prev = old.Version
		}
		versions, err := tx.CreateBucketIfNotExists(bucketVersions)
		if err != nil {
			return err
		}
		if err := deleteVersions(versions, d.ID, prev); err != nil {
			return err
		}
		v, err := versions.CreateBucket(versionBucketName(d.ID, prev+1))
		if err != nil {
			return err
		}
		if _, err := v.CreateBucket(bucketVFrames); err != nil {
			return err
		}
		_, err = v.CreateBucket(bucketVFeats)
		return err
	})
	if err != nil {
		return Dataset{}, err
	}
	d.Version = prev + 1
	staging := versionBucketName(d.ID, d.Version)

	fail := func(err error) (Dataset, error) {
		// Best effort: the next import removes it otherwise.
		_ = s.update(func(tx *bbolt.Tx) error {
			if versions := tx.Bucket(bucketVersions); versions != nil && versions.Bucket(staging) != nil {
				return versions.DeleteBucket(staging)
			}
			return nil
		})
		return Dataset{}, err
	}

	for start := 0; start < len(plan); {
		end := start
		err := s.update(func(tx *bbolt.Tx) error {
			v := stagingBucket(tx, staging)
			if v == nil {
				return errorf(ErrInvalid, nil, "dataset %s was removed while it was being imported", d.ID)
			}
			frames, feats := v.Bucket(bucketVFrames), v.Bucket(bucketVFeats)
			if frames == nil || feats == nil {
				return errorf(ErrCorrupt, nil, "data file %q is corrupt: staging bucket %q lacks its frames or feats bucket", s.path, staging)
			}
			// Frames arrive in ascending order: fill pages completely.
			frames.FillPercent, feats.FillPercent = 1, 1
			// bbolt keeps the keys and values put until the transaction
			// ends: each gets bytes of its own, carved from large blocks.
			var arena byteArena
			nFeat, nBytes := 0, 0
			for end < len(plan) && end-start < stageFrames && nFeat < stageFeatures && nBytes < stageBytes {
				r := &records[plan[end].rec]
				var attrs []byte
				if plan[end].attrs {
					attrs = r.Attrs
				}
				kv := arena.alloc(8 + binary.MaxVarintLen64 + len(attrs))
				kv = frameKey(kv, r.Frame)
				kv = frameValue(kv, len(r.Features), attrs)
				if err := frames.Put(kv[:8], kv[8:]); err != nil {
					return err
				}
				nBytes += len(kv)
				for j, f := range r.Features {
					if err := feats.Put(featKey(arena.alloc(12), r.Frame, uint32(j)), f); err != nil {
						return err
					}
					nBytes += len(f)
				}
				nFeat += len(r.Features)
				end++
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		start = end
		if afterStage != nil {
			afterStage(d.ID, end)
		}
	}

	value, err := json.Marshal(d)
	if err != nil {
		return fail(errorf(ErrInvalid, err, "invalid dataset %s: %v", d.ID, err))
	}
	// Final transaction: switch to the new version and drop the old one.
	err = s.update(func(tx *bbolt.Tx) error {
		if stagingBucket(tx, staging) == nil {
			return errorf(ErrInvalid, nil, "dataset %s was removed while it was being imported", d.ID)
		}
		if _, err := s.getOrg(tx, d.Owner); err != nil {
			return err
		}
		old, found, err := s.getDataset(tx, d.ID)
		switch {
		case err != nil:
			return err
		case found && old.Version != prev, !found && prev != 0:
			return errorf(ErrInvalid, nil, "dataset %s was removed or replaced while it was being imported", d.ID)
		}
		b, err := tx.CreateBucketIfNotExists(bucketDatasets)
		if err != nil {
			return err
		}
		if err := b.Put([]byte(d.ID), value); err != nil {
			return err
		}
		if !found {
			return nil
		}
		versions := tx.Bucket(bucketVersions)
		if versions.Bucket(versionBucketName(d.ID, prev)) == nil {
			return nil
		}
		return versions.DeleteBucket(versionBucketName(d.ID, prev))
	})
	if err != nil {
		return fail(err)
	}
	return d, nil
}

func stagingBucket(tx *bbolt.Tx, name []byte) *bbolt.Bucket {
	versions := tx.Bucket(bucketVersions)
	if versions == nil {
		return nil
	}
	return versions.Bucket(name)
}

// deleteVersions deletes every version bucket of dataset id except the
// version keep (none when keep is 0).
func deleteVersions(versions *bbolt.Bucket, id string, keep int) error {
	prefix := versionPrefix(id)
	var live []byte
	if keep > 0 {
		live = versionBucketName(id, keep)
	}
	var names [][]byte
	c := versions.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if !bytes.Equal(k, live) {
			names = append(names, bytes.Clone(k))
		}
	}
	for _, n := range names {
		if versions.Bucket(n) == nil {
			if err := versions.Delete(n); err != nil {
				return err
			}
			continue
		}
		if err := versions.DeleteBucket(n); err != nil {
			return err
		}
	}
	return nil
}

// getDataset reads a dataset description inside tx; found is false when
// there is none.
func (s *Store) getDataset(tx *bbolt.Tx, id string) (Dataset, bool, error) {
	b := tx.Bucket(bucketDatasets)
	if b == nil || id == "" {
		return Dataset{}, false, nil
	}
	v := b.Get([]byte(id))
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
	var d Dataset
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		d, err = s.mustDataset(tx, id)
		return err
	})
	return d, err
}

// Datasets returns every dataset, sorted by id. Errors: ErrCorrupt.
func (s *Store) Datasets() ([]Dataset, error) {
	var out []Dataset
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		out, err = s.allDatasets(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
	return s.update(func(tx *bbolt.Tx) error {
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
	})
}

// SetPrice sets the credits a per-query licensee pays per contributing
// request (0 = free) and returns the dataset as stored. It applies from
// the next request that reads the dataset. Errors: ErrInvalid for a
// negative price; ErrNotFound; ErrCorrupt.
func (s *Store) SetPrice(id string, credits int64) (Dataset, error) {
	if credits < 0 {
		return Dataset{}, errorf(ErrInvalid, nil, "invalid price %d for dataset %s: must be 0 (free) or more credits", credits, id)
	}
	var d Dataset
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if d, err = s.mustDataset(tx, id); err != nil || d.Price == credits {
			return err
		}
		d.Price = credits
		v, err := json.Marshal(d)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketDatasets).Put([]byte(id), v)
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

// byteArena copies byte slices out of a transaction into shared blocks, so
// that a call that returns hundreds of small records allocates a few
// blocks rather than one slice per record. Each slice handed out has its
// capacity clipped to its length.
type byteArena struct{ block []byte }

const arenaBlock = 32 << 10

func (a *byteArena) copy(b []byte) []byte { return append(a.alloc(len(b)), b...) }

// alloc returns an empty slice with room for n bytes that no other slice
// of the arena shares.
func (a *byteArena) alloc(n int) []byte {
	if n > arenaBlock/4 {
		return make([]byte, 0, n)
	}
	if cap(a.block)-len(a.block) < n {
		a.block = make([]byte, 0, arenaBlock)
	}
	l := len(a.block)
	a.block = a.block[:l+n]
	return a.block[l : l : l+n]
}

// readSource is one asked dataset's buckets in a read transaction.
type readSource struct {
	id     string
	frames *bbolt.Cursor // one cursor per bucket for the whole call: a
	feats  *bbolt.Cursor // Bucket.Get would make a new one each time
	room   int           // features the cap still allows in this call
}

// ReadFrames reads, in one read transaction, what the datasets ids record
// on frames, in the order of frames.
//
// The answer has one FrameData per element of frames, in the same order;
// its Datasets are in the order of ids (callers pass ascending ids) and
// hold only the datasets that record something on the frame (attributes or
// features). Ids of datasets that do not exist are skipped; so is a
// repeated id. Attrs are the stored bytes; FeatureCount is the number of
// features the dataset holds on the frame. With withFeatures, Features
// holds them, frame by frame, while the dataset's share of featureCap (a
// cap per dataset over the whole call; below zero counts as zero) lasts,
// and FeaturesTruncated is set on an entry that got fewer than its
// FeatureCount; without it Features is nil and FeaturesTruncated false.
// Everything returned is copied out of the file and owned by the caller.
//
// Safe for concurrent use; readers never wait for writers and see each
// dataset's version as it was when the call began. Errors: ErrCorrupt.
func (s *Store) ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]FrameData, error) {
	out := make([]FrameData, len(frames))
	for i, f := range frames {
		out[i].Frame = f
	}
	if len(ids) == 0 || len(frames) == 0 {
		return out, nil
	}
	featureCap = max(featureCap, 0)
	err := s.view(func(tx *bbolt.Tx) error {
		datasets, versions := tx.Bucket(bucketDatasets), tx.Bucket(bucketVersions)
		if datasets == nil || versions == nil {
			return nil
		}
		src := make([]readSource, 0, len(ids))
		for _, id := range ids {
			if slices.ContainsFunc(src, func(r readSource) bool { return r.id == id }) {
				continue
			}
			ver, err := liveVersion(datasets, id)
			if err != nil {
				return errorf(ErrCorrupt, err, "data file %q is corrupt: dataset %q: %v", s.path, id, err)
			}
			if ver == 0 {
				continue
			}
			vb := versions.Bucket(versionBucketName(id, ver))
			var fr, fe *bbolt.Bucket
			if vb != nil {
				fr, fe = vb.Bucket(bucketVFrames), vb.Bucket(bucketVFeats)
			}
			if fr == nil || fe == nil {
				return errorf(ErrCorrupt, nil, "data file %q is corrupt: the records of dataset %q, version %d, are missing", s.path, id, ver)
			}
			src = append(src, readSource{id: id, frames: fr.Cursor(), feats: fe.Cursor(), room: featureCap})
		}
		if len(src) == 0 {
			return nil
		}
		var arena byteArena
		entries := make([]DatasetFrame, 0, len(src)*len(frames)/2+1)
		var key [12]byte
		for i := range out {
			frame := out[i].Frame
			start := len(entries)
			for j := range src {
				r := &src[j]
				fk := frameKey(key[:0], frame)
				k, v := r.frames.Seek(fk)
				if k == nil || !bytes.Equal(k, fk) || v == nil {
					continue
				}
				count, n := binary.Uvarint(v)
				if n <= 0 || count > math.MaxUint32 {
					return errorf(ErrCorrupt, nil, "data file %q is corrupt: dataset %q, frame %d: bad feature count", s.path, r.id, frame)
				}
				e := DatasetFrame{Dataset: r.id, FeatureCount: int(count)}
				if len(v) > n {
					e.Attrs = arena.copy(v[n:])
				}
				if withFeatures && count > 0 {
					take := min(int(count), r.room)
					if take > 0 {
						e.Features = make([][]byte, 0, take)
						c := r.feats
						for k, fv := c.Seek(fk); k != nil && len(e.Features) < take && bytes.HasPrefix(k, fk); k, fv = c.Next() {
							e.Features = append(e.Features, arena.copy(fv))
						}
						if len(e.Features) < take {
							return errorf(ErrCorrupt, nil, "data file %q is corrupt: dataset %q, frame %d: %d features stored, %d counted", s.path, r.id, frame, len(e.Features), count)
						}
						r.room -= take
					}
					e.FeaturesTruncated = take < int(count)
				}
				if e.Attrs == nil && e.FeatureCount == 0 {
					continue
				}
				entries = append(entries, e)
			}
			if len(entries) > start {
				out[i].Datasets = entries[start:len(entries):len(entries)]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// attrScanner checks a frame's attributes object against the declared
// attributes without decoding it: a JSON object of members that are
// declared attributes, each at most once, with a finite number for a
// number and a string for a category or text. It accepts exactly what
// encoding/json accepts of that shape, except that strings must be valid
// UTF-8 and numbers must fit a float64.
type attrScanner struct {
	attrs []Attribute
	names map[string]int
	seen  []uint32 // stamp of the object that last used each attribute
	stamp uint32
}

// scan checks b and returns the number of members.
func (sc *attrScanner) scan(b []byte) (int, error) {
	sc.stamp++
	if sc.stamp == 0 { // wrapped: forget old stamps
		clear(sc.seen)
		sc.stamp = 1
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, errors.New("not a JSON object")
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		if i = skipSpace(b, i+1); i != len(b) {
			return 0, errors.New("data after the object")
		}
		return 0, nil
	}
	members := 0
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errors.New("expected a member name")
		}
		end, escaped, err := scanString(b, i)
		if err != nil {
			return 0, fmt.Errorf("member name: %w", err)
		}
		name := b[i+1 : end-1]
		if escaped {
			var str string
			if err := json.Unmarshal(b[i:end], &str); err != nil {
				return 0, fmt.Errorf("member name: %w", err)
			}
			name = []byte(str)
		}
		idx, ok := sc.names[string(name)]
		if !ok {
			return 0, fmt.Errorf("%q is not a declared attribute", name)
		}
		if sc.seen[idx] == sc.stamp {
			return 0, fmt.Errorf("attribute %q appears twice", name)
		}
		sc.seen[idx] = sc.stamp
		a := &sc.attrs[idx]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, fmt.Errorf("attribute %q: expected ':'", a.Name)
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, fmt.Errorf("attribute %q: no value", a.Name)
		}
		if a.Type == TypeNumber {
			end, err = scanNumber(b, i)
			if err != nil {
				return 0, fmt.Errorf("attribute %q is a number: %w", a.Name, err)
			}
		} else {
			if b[i] != '"' {
				return 0, fmt.Errorf("attribute %q is a %s: got %s, want a JSON string", a.Name, a.Type, valueText(b[i:]))
			}
			if end, _, err = scanString(b, i); err != nil {
				return 0, fmt.Errorf("attribute %q: %w", a.Name, err)
			}
		}
		members++
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, errors.New("object not closed")
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return 0, fmt.Errorf("after attribute %q: expected ',' or '}'", a.Name)
		}
		i = skipSpace(b, i+1)
	}
	if i = skipSpace(b, i+1); i != len(b) {
		return 0, errors.New("data after the object")
	}
	return members, nil
}

// valueText shows the JSON value (or the bytes) starting b in an error
// message: "an object", "an array", or the token itself, at most 24 bytes
// of it, quoted when it is not printable text.
func valueText(b []byte) string {
	const n = 24
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	end := len(b)
	if b[0] == '"' {
		if e, _, err := scanString(b, 0); err == nil {
			end = e
		}
	} else if i := bytes.IndexAny(b, ",}] \t\r\n"); i > 0 {
		end = i
	}
	t := b[:end]
	more := ""
	if len(t) > n {
		t, more = t[:n], "…"
	}
	if !utf8.Valid(t) || bytes.ContainsFunc(t, unicode.IsControl) {
		return strconv.Quote(string(t)) + more
	}
	return string(t) + more
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString checks the JSON string starting at b[i] (a '"') and returns
// the index just past its closing quote and whether it holds escapes. Its
// text must be valid UTF-8 without raw control characters.
func scanString(b []byte, i int) (end int, escaped bool, err error) {
	start := i + 1
	for i = start; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(b[start:i]) {
				return 0, false, errors.New("string is not valid UTF-8")
			}
			return i + 1, escaped, nil
		case c < 0x20:
			return 0, false, errors.New("control character in a string")
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, errors.New("string not closed")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, false, errors.New(`bad \u escape`)
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, errors.New(`bad \u escape`)
					}
				}
				i += 6
			default:
				return 0, false, fmt.Errorf("bad escape \\%c", b[i+1])
			}
		default:
			i++
		}
	}
	return 0, false, errors.New("string not closed")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber checks the JSON number starting at b[i] and returns the index
// just past it. The number must be finite as a float64.
func scanNumber(b []byte, i int) (int, error) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, fmt.Errorf("got %s, want a JSON number", valueText(b[start:]))
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if _, err := strconv.ParseFloat(string(b[start:i]), 64); err != nil {
		return 0, fmt.Errorf("%s is out of range", valueText(b[start:i]))
	}
	return i, nil
}

// checkFeature checks that f is a JSON object whose "type" member is
// "Feature" (matched exactly, as RFC 7946 says).
func checkFeature(f []byte) error {
	if len(f) > maxFeatureBytes {
		return fmt.Errorf("%d bytes, at most %d", len(f), maxFeatureBytes)
	}
	if !json.Valid(f) {
		var v any
		if err := json.Unmarshal(f, &v); err != nil {
			return fmt.Errorf("not valid JSON: %v", err)
		}
		return errors.New("not valid JSON")
	}
	if !utf8.Valid(f) {
		return errors.New("not valid UTF-8")
	}
	i := skipSpace(f, 0)
	if f[i] != '{' {
		return errors.New(`not a JSON object (a GeoJSON feature is {"type":"Feature", ...})`)
	}
	// f is valid JSON: walk the top-level members, skipping nested values.
	i = skipSpace(f, i+1)
	typ := ""
	for i < len(f) && f[i] == '"' {
		end, _, err := scanString(f, i)
		if err != nil {
			return err
		}
		name := f[i:end]
		i = skipSpace(f, end)
		i = skipSpace(f, i+1) // ':'
		vend := skipValue(f, i)
		if string(name) == `"type"` {
			if err := json.Unmarshal(f[i:vend], &typ); err != nil {
				return errors.New(`"type" is not a string`)
			}
			break
		}
		i = skipSpace(f, vend)
		if i < len(f) && f[i] == ',' {
			i = skipSpace(f, i+1)
		}
	}
	if typ != "Feature" {
		if typ == "" {
			return errors.New(`no "type":"Feature" member`)
		}
		return fmt.Errorf(`"type" is %q, want "Feature"`, typ)
	}
	return nil
}

// skipValue returns the index just past the JSON value starting at b[i],
// which the caller knows to be valid JSON.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, _, err := scanString(b, i)
			if err != nil {
				return len(b)
			}
			i = end
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':':
			if depth == 0 {
				return i
			}
			i++
		default:
			if depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
				return i
			}
			i++
		}
		if depth == 0 && (b[i-1] == '}' || b[i-1] == ']' || b[i-1] == '"') {
			return i
		}
		if depth < 0 {
			return i - 1
		}
	}
	return i
}
