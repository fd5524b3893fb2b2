package bolt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"

	"frameindex/internal/jsonscan"
	"frameindex/state"
)

// FrameRecord is what one dataset records on one frame: an attributes JSON
// object (stored and returned byte for byte; nil when none) and GeoJSON
// Feature objects (each one JSON object, compact by preference, also
// stored and returned byte for byte).
type FrameRecord struct {
	Frame    uint64
	Attrs    []byte
	Features [][]byte
}

// Sizes of an import's staging transactions: a transaction ends after
// stageFrames frames, stageFeatures features or stageBytes bytes of
// records, whichever comes first, so that the single bbolt writer is never
// held for long and other writes (charges, administration) run in between.
const (
	stageFrames   = 50_000
	stageFeatures = 50_000
	stageBytes    = 16 << 20
)

// afterStage, when set (by tests), runs after each staging transaction of
// an import with the dataset id and the number of frames staged so far.
var afterStage func(dataset string, staged int)

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

// recordPlan is what an import stores for one record, after checking it.
type recordPlan struct {
	rec   int  // index into the records
	attrs bool // the record has an attributes object with members
}

// checkRecords checks every record against the dataset's attributes and
// returns the ones that record something, in ascending frame order.
// Errors name the frame (and the feature, counted from 1) and the reason.
func checkRecords(d *state.Dataset, records []FrameRecord) ([]recordPlan, error) {
	if int64(len(records)) > math.MaxInt32 {
		return nil, state.Errorf(state.ErrInvalid, "dataset %s: %d records, at most %d", d.ID, len(records), math.MaxInt32)
	}
	order := make([]int32, len(records))
	for i := range order {
		order[i] = int32(i)
	}
	byFrame := func(a, b int32) int { return cmp.Compare(records[a].Frame, records[b].Frame) }
	if !slices.IsSortedFunc(order, byFrame) {
		slices.SortFunc(order, byFrame)
	}
	sc := attrChecker(d.Attributes)
	plan := make([]recordPlan, 0, len(records))
	for k, i := range order {
		r := &records[i]
		if k > 0 && records[order[k-1]].Frame == r.Frame {
			return nil, state.Errorf(state.ErrInvalid, "dataset %s: frame %d has two records; each frame may have one", d.ID, r.Frame)
		}
		members := 0
		if len(r.Attrs) > 0 {
			if len(r.Attrs) > maxAttrsBytes {
				return nil, state.Errorf(state.ErrInvalid, "dataset %s, frame %d: attributes of %d bytes, at most %d", d.ID, r.Frame, len(r.Attrs), maxAttrsBytes)
			}
			n, err := sc.Check(r.Attrs)
			if err != nil {
				return nil, state.Wrapf(state.ErrInvalid, err, "dataset %s, frame %d: attributes: %v", d.ID, r.Frame, err)
			}
			members = n
		}
		if uint64(len(r.Features)) > math.MaxUint32 {
			return nil, state.Errorf(state.ErrInvalid, "dataset %s, frame %d: %d features, at most %d", d.ID, r.Frame, len(r.Features), uint32(math.MaxUint32))
		}
		for j, f := range r.Features {
			if err := jsonscan.CheckFeature(f, maxFeatureBytes); err != nil {
				return nil, state.Wrapf(state.ErrInvalid, err, "dataset %s, frame %d, feature %d: %v", d.ID, r.Frame, j+1, err)
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
func (s *Store) ImportDataset(d state.Dataset, records []FrameRecord, now time.Time) (state.Dataset, error) {
	// Check everything before anything is written; BeginImport checks d
	// again, and Put each record again, which costs little beside a write.
	probe := d
	_, err := checkDataset(&probe)
	if err != nil {
		return state.Dataset{}, err
	}
	plan, err := checkRecords(&probe, records)
	if err != nil {
		return state.Dataset{}, err
	}
	w, err := s.BeginImport(d, now)
	if err != nil {
		return state.Dataset{}, err
	}
	for _, p := range plan {
		r := &records[p.rec]
		if err := w.Put(r.Frame, r.Attrs, r.Features); err != nil {
			return state.Dataset{}, err
		}
	}
	return w.Commit()
}

// versionBucket returns the version bucket name (see versionBucketName),
// or nil when there is none.
func versionBucket(tx *bbolt.Tx, name []byte) *bbolt.Bucket {
	versions := tx.Bucket(bucketVersions)
	if versions == nil {
		return nil
	}
	return versions.Bucket(name)
}

// dropVersion deletes the version bucket name when there is one.
func dropVersion(tx *bbolt.Tx, name []byte) error {
	if versionBucket(tx, name) == nil {
		return nil
	}
	return tx.Bucket(bucketVersions).DeleteBucket(name)
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
