package bolt

import (
	"encoding/binary"
	"math"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// Reads for paging through a dataset in frame id order (the OGC API
// collections of package ogc): a cursor over a version's frame records or
// features, restricted to ranges of frame ids, so that a page after a given
// frame costs the same at any depth.

// IDRange is an inclusive range of frame ids, From <= To.
type IDRange struct{ From, To uint64 }

// AllFrames is the range of every frame id.
var AllFrames = IDRange{From: 0, To: math.MaxUint64}

// FeatureKey names one stored feature: the frame holding it and its
// sequence number among that frame's features (0, 1, 2...).
type FeatureKey struct {
	Frame uint64
	Seq   uint32
}

// versionCursor returns a cursor over the nested bucket name (bucketVFrames
// or bucketVFeats) of the version of dataset id that readers see, or nil
// when the dataset does not exist.
func (s *Store) versionCursor(tx *bbolt.Tx, id string, name []byte) (*bbolt.Cursor, error) {
	datasets, versions := tx.Bucket(bucketDatasets), tx.Bucket(bucketVersions)
	if datasets == nil || versions == nil {
		return nil, nil
	}
	ver, err := s.liveVersion(datasets, id)
	if err != nil {
		return nil, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: dataset %q: %v", s.path, id, err)
	}
	if ver == 0 {
		return nil, nil
	}
	var b *bbolt.Bucket
	if vb := versions.Bucket(versionBucketName(id, ver)); vb != nil {
		b = vb.Bucket(name)
	}
	if b == nil {
		return nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: the records of dataset %q, version %d, are missing", s.path, id, ver)
	}
	return b.Cursor(), nil
}

// ScanRecords calls fn, in one read transaction, for every frame on which
// dataset id records something (attributes or features) and whose id lies
// in one of ranges, in the order of ranges and ascending id within each,
// with the number of features it holds there and its attributes object
// (nil when none). Pass ranges ascending and apart for ascending ids
// overall. fn returning false stops the scan. attrs is valid only during
// fn (it points into the file): copy it to keep it, and do not modify it.
//
// The cost is one cursor seek per range plus one step per record met: a
// scan that starts after a given frame costs the same however many frames
// come before it. A dataset that does not exist has no records.
//
// Safe for concurrent use; the scan sees the dataset's version as it was
// when it began. Errors: ErrCorrupt.
func (s *Store) ScanRecords(id string, ranges []IDRange, fn func(frame uint64, features int, attrs []byte) bool) error {
	return s.view(func(tx *bbolt.Tx) error {
		c, err := s.versionCursor(tx, id, bucketVFrames)
		if c == nil || err != nil {
			return err
		}
		var key [8]byte
		for _, r := range ranges {
			if r.From > r.To {
				continue
			}
			for k, v := c.Seek(frameKey(key[:0], r.From)); k != nil; k, v = c.Next() {
				if len(k) != 8 || v == nil {
					return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: dataset %q: a frame record key of %d bytes", s.path, id, len(k))
				}
				frame := binary.BigEndian.Uint64(k)
				if frame > r.To {
					break
				}
				count, n := binary.Uvarint(v)
				if n <= 0 || count > math.MaxUint32 {
					return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: dataset %q, frame %d: bad feature count", s.path, id, frame)
				}
				var attrs []byte
				if len(v) > n {
					attrs = v[n:len(v):len(v)]
				}
				if !fn(frame, int(count), attrs) {
					return nil
				}
			}
		}
		return nil
	})
}

// ScanFeatures calls fn, in one read transaction, for every feature dataset
// id holds on frames whose ids lie in one of ranges, in the order of ranges
// and ascending (frame, sequence) within each, skipping the features before
// from (pass the zero FeatureKey to start at the beginning). fn returning
// false stops the scan. feature is the stored GeoJSON Feature, valid only
// during fn (copy it to keep it; do not modify it).
//
// The cost is one cursor seek per range plus one step per feature met, so
// a scan from a given feature costs the same at any depth. A dataset that
// does not exist has no features.
//
// Safe for concurrent use; the scan sees the dataset's version as it was
// when it began. Errors: ErrCorrupt.
func (s *Store) ScanFeatures(id string, ranges []IDRange, from FeatureKey, fn func(k FeatureKey, feature []byte) bool) error {
	return s.view(func(tx *bbolt.Tx) error {
		c, err := s.versionCursor(tx, id, bucketVFeats)
		if c == nil || err != nil {
			return err
		}
		var key [12]byte
		for _, r := range ranges {
			if r.To < from.Frame || r.From > r.To {
				continue
			}
			start := FeatureKey{Frame: r.From}
			if r.From <= from.Frame {
				start = from
			}
			seek := binary.BigEndian.AppendUint32(frameKey(key[:0], start.Frame), start.Seq)
			for k, v := c.Seek(seek); k != nil; k, v = c.Next() {
				if len(k) != 12 || v == nil {
					return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: dataset %q: a feature key of %d bytes", s.path, id, len(k))
				}
				fk := FeatureKey{Frame: binary.BigEndian.Uint64(k), Seq: binary.BigEndian.Uint32(k[8:])}
				if fk.Frame > r.To {
					break
				}
				if !fn(fk, v[:len(v):len(v)]) {
					return nil
				}
			}
		}
		return nil
	})
}
