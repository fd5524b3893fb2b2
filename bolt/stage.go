package bolt

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"

	"frameindex/internal/jsonscan"
	"frameindex/state"
)

// ImportWriter stages a new version of a dataset frame by frame, for
// imports too large to hold in memory. Frames must come in strictly
// ascending order; what Put is given is checked, copied and written in
// transactions of bounded size (at most stageFrames frames, stageFeatures
// features or stageBytes bytes), so that other writes run in between.
// Nothing is visible to readers until Commit switches to the new version in
// one transaction; Abort (or a failed Put or Commit) removes the staged
// records. A writer holds the file's import lock from BeginImport until
// Commit or Abort, so imports of one file run one at a time. It is not safe
// for concurrent use.
type ImportWriter struct {
	s        *Store
	d        state.Dataset
	prev     int
	staging  []byte
	mu       *sync.Mutex
	sc       *jsonscan.Checker
	last     uint64
	any      bool
	finished bool
	failed   error

	// The batch not yet written: keys and values carved from arena.
	arena  byteArena
	frames []kvPair
	feats  []kvPair
	bytes  int
	staged int // frames written so far
}

type kvPair struct{ k, v []byte }

// BeginImport checks d as ImportDataset does, takes the file's import lock,
// removes what crashed imports of the dataset left and makes the staging
// bucket of its next version. now stamps ImportedAt (zero means the current
// time). Errors: ErrInvalid for a bad description or a dataset owned by
// another organisation; ErrNotFound for an unknown owner; file errors.
func (s *Store) BeginImport(d state.Dataset, now time.Time) (*ImportWriter, error) {
	_, err := checkDataset(&d)
	if err != nil {
		return nil, err
	}
	if now.IsZero() {
		now = s.clock()
	}
	d.ImportedAt = now.Round(0).UTC()
	d.Frames, d.Features = 0, 0
	mu := s.importLock()
	mu.Lock()
	prev := 0
	err = s.unaudited().update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, d.Owner); err != nil {
			return err
		}
		old, found, err := s.getDataset(tx, d.ID)
		if err != nil {
			return err
		}
		if found {
			if old.Owner != d.Owner {
				return state.Errorf(state.ErrInvalid, "dataset %s is owned by %s", d.ID, old.Owner)
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
		return createVersion(versions, versionBucketName(d.ID, prev+1))
	})
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	d.Version = prev + 1
	w := &ImportWriter{s: s, d: d, prev: prev, staging: versionBucketName(d.ID, d.Version), mu: mu,
		sc: attrChecker(d.Attributes)}
	return w, nil
}

// Put stages what the dataset records on frame: attrs, a JSON object whose
// members are declared attributes (see ImportDataset; nil or empty for
// none), and features, GeoJSON Feature objects. A frame that records
// nothing is skipped. Frames must be strictly ascending. attrs and features
// are copied; the caller may reuse them. Errors: ErrInvalid naming the
// dataset, frame, feature and reason (the import is then aborted); file
// errors.
func (w *ImportWriter) Put(frame uint64, attrs []byte, features [][]byte) error {
	if w.finished {
		return state.Errorf(state.ErrInvalid, "dataset %s: the import has ended", w.d.ID)
	}
	if w.any && frame <= w.last {
		return w.fail(state.Errorf(state.ErrInvalid, "dataset %s: frame %d comes after frame %d; frames must be put in ascending order, once each", w.d.ID, frame, w.last))
	}
	w.last, w.any = frame, true
	members := 0
	if len(attrs) > 0 {
		if len(attrs) > maxAttrsBytes {
			return w.fail(state.Errorf(state.ErrInvalid, "dataset %s, frame %d: attributes of %d bytes, at most %d", w.d.ID, frame, len(attrs), maxAttrsBytes))
		}
		n, err := w.sc.Check(attrs)
		if err != nil {
			return w.fail(state.Wrapf(state.ErrInvalid, err, "dataset %s, frame %d: attributes: %v", w.d.ID, frame, err))
		}
		members = n
	}
	if uint64(len(features)) > math.MaxUint32 {
		return w.fail(state.Errorf(state.ErrInvalid, "dataset %s, frame %d: %d features, at most %d", w.d.ID, frame, len(features), uint32(math.MaxUint32)))
	}
	for j, f := range features {
		if err := jsonscan.CheckFeature(f, maxFeatureBytes); err != nil {
			return w.fail(state.Wrapf(state.ErrInvalid, err, "dataset %s, frame %d, feature %d: %v", w.d.ID, frame, j+1, err))
		}
	}
	if members == 0 && len(features) == 0 {
		return nil // records nothing: not stored
	}
	if members == 0 {
		attrs = nil
	}
	kv := w.arena.alloc(8 + binary.MaxVarintLen64 + len(attrs))
	kv = frameKey(kv, frame)
	kv = frameValue(kv, len(features), attrs)
	w.frames = append(w.frames, kvPair{kv[:8], kv[8:]})
	w.bytes += len(kv)
	for j, f := range features {
		w.feats = append(w.feats, kvPair{featKey(w.arena.alloc(12), frame, uint32(j)), w.arena.copy(f)})
		w.bytes += 12 + len(f)
	}
	w.d.Frames++
	w.d.Features += len(features)
	if len(w.frames) >= stageFrames || len(w.feats) >= stageFeatures || w.bytes >= stageBytes {
		return w.flush()
	}
	return nil
}

// flush writes the batch in one transaction.
func (w *ImportWriter) flush() error {
	if len(w.frames) == 0 {
		return nil
	}
	err := w.s.unaudited().update(func(tx *bbolt.Tx) error {
		v := versionBucket(tx, w.staging)
		if v == nil {
			return state.Errorf(state.ErrInvalid, "dataset %s was removed while it was being imported", w.d.ID)
		}
		frames, feats := v.Bucket(bucketVFrames), v.Bucket(bucketVFeats)
		if frames == nil || feats == nil {
			return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: staging bucket %q lacks its frames or feats bucket", w.s.path, w.staging)
		}
		// Frames arrive in ascending order: fill pages completely.
		frames.FillPercent, feats.FillPercent = 1, 1
		for _, p := range w.frames {
			if err := frames.Put(p.k, p.v); err != nil {
				return err
			}
		}
		for _, p := range w.feats {
			if err := feats.Put(p.k, p.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return w.fail(err)
	}
	w.staged += len(w.frames)
	// bbolt is done with the batch's bytes once the transaction ended.
	w.frames, w.feats, w.bytes, w.arena = w.frames[:0], w.feats[:0], 0, byteArena{}
	if afterStage != nil {
		afterStage(w.d.ID, w.staged)
	}
	return nil
}

// Commit writes what is left and switches the dataset to the new version
// in one transaction, deleting the old one, and returns the stored
// description (Version, Frames, Features and ImportedAt set). If the
// dataset was removed or replaced meanwhile, the import fails and leaves
// nothing. The writer is finished either way.
func (w *ImportWriter) Commit() (state.Dataset, error) {
	if w.finished {
		if w.failed != nil {
			return state.Dataset{}, w.failed
		}
		return state.Dataset{}, state.Errorf(state.ErrInvalid, "dataset %s: the import has ended", w.d.ID)
	}
	if err := w.flush(); err != nil {
		return state.Dataset{}, err
	}
	d := w.d
	value, err := json.Marshal(d)
	if err != nil {
		return state.Dataset{}, w.fail(state.Wrapf(state.ErrInvalid, err, "invalid dataset %s: %v", d.ID, err))
	}
	err = w.s.update(func(tx *bbolt.Tx) error {
		if versionBucket(tx, w.staging) == nil {
			return state.Errorf(state.ErrInvalid, "dataset %s was removed while it was being imported", d.ID)
		}
		if _, err := w.s.getOrg(tx, d.Owner); err != nil {
			return err
		}
		old, found, err := w.s.getDataset(tx, d.ID)
		switch {
		case err != nil:
			return err
		case found && old.Version != w.prev, !found && w.prev != 0:
			return state.Errorf(state.ErrInvalid, "dataset %s was removed or replaced while it was being imported", d.ID)
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
		return dropVersion(tx, versionBucketName(d.ID, w.prev))
	})
	if err != nil {
		return state.Dataset{}, w.fail(err)
	}
	w.finished = true
	w.mu.Unlock()
	return d, nil
}

// Abort removes the staged records and ends the import; the dataset's
// current version is untouched. It is safe to call after Commit or a
// failure (it then does nothing).
func (w *ImportWriter) Abort() {
	if !w.finished {
		w.fail(nil)
	}
}

// fail ends the import, removing the staged records (best effort: the next
// import of the dataset removes them otherwise), and returns err.
func (w *ImportWriter) fail(err error) error {
	if w.finished {
		return err
	}
	w.finished, w.failed = true, err
	_ = w.s.unaudited().update(func(tx *bbolt.Tx) error { return dropVersion(tx, w.staging) })
	w.mu.Unlock()
	return err
}

// createVersion creates, in parent, the empty bucket name of one dataset
// version with its frames and features buckets.
func createVersion(parent *bbolt.Bucket, name []byte) error {
	v, err := parent.CreateBucket(name)
	if err != nil {
		return err
	}
	if _, err := v.CreateBucket(bucketVFrames); err != nil {
		return err
	}
	_, err = v.CreateBucket(bucketVFeats)
	return err
}
