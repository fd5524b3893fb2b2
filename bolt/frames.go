package bolt

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

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
	at     uint64        // the frame whose record frames is on, when on one
	on     bool
}

// seek moves r's frames cursor to the first record at or after frame f
// (key fk), as Cursor.Seek does. A box's frames come row by row, so the
// next frame asked for is mostly the next one along, and its record is the
// next record: a step or two forward finds it without Seek's descent from
// the root (half the time of a 100-frame read in ascending order). Frames
// further on are sought: stepping towards them costs more than it saves.
func (r *readSource) seek(f uint64, fk []byte) (k, v []byte) {
	if r.on && f > r.at && f-r.at <= 2 {
		for range 2 {
			k, v = r.frames.Next()
			if len(k) != 8 {
				break // the end, or not a frame's key: seek
			}
			if r.at = binary.BigEndian.Uint64(k); r.at >= f {
				return k, v
			}
		}
	}
	k, v = r.frames.Seek(fk)
	r.on = len(k) == 8
	if r.on {
		r.at = binary.BigEndian.Uint64(k)
	}
	return k, v
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
			ver, err := s.liveVersion(datasets, id)
			if err != nil {
				return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: dataset %q: %v", s.path, id, err)
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
				return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: the records of dataset %q, version %d, are missing", s.path, id, ver)
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
				k, v := r.seek(frame, fk)
				if k == nil || !bytes.Equal(k, fk) || v == nil {
					continue
				}
				count, n := binary.Uvarint(v)
				if n <= 0 || count > math.MaxUint32 {
					return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: dataset %q, frame %d: bad feature count", s.path, r.id, frame)
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
							return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: dataset %q, frame %d: %d features stored, %d counted", s.path, r.id, frame, len(e.Features), count)
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
