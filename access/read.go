package access

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// Store reads what datasets record on frames and charges per-query
// datasets. *bolt.Store implements it. All methods must be safe for
// concurrent use; this package never modifies the slices it is given
// (except to sort a Readable answer that is not sorted, on a copy).
type Store interface {
	// Readable returns the datasets key may read, sorted by id, each with
	// whether it is charged per query.
	Readable(k state.Key) ([]state.Access, error)
	// ReadFrames reads, in one read transaction, what the datasets ids
	// record on frames, in the order of frames. Features are returned only
	// with withFeatures, at most featureCap per dataset over the whole call,
	// filled frame by frame.
	ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error)
	// Charge debits, in one transaction, each per-query dataset of ds the
	// organisation's balance covers; the ones it does not cover are
	// returned in leftOut, not charged. Each dataset of ds is in exactly one
	// of the two lists.
	Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error)
}

// Grid looks frames up: the shape of a frame the grid holds. *index.Index
// implements it.
type Grid interface {
	Shape(id uint64) (grid.Shape, bool)
}

// FeatureCap is the most features a read returns per dataset per request
// (spec, Caps).
const FeatureCap = 200

// ReasonInsufficientCredits is the reason of a dataset left out because the
// organisation's credits did not cover its per-query charge (docs/contract.md §3).
const ReasonInsufficientCredits = "insufficient_credits"

// ErrStore marks a store answer that breaks the Store contract.
var ErrStore = errors.New("access: the dataset store broke its contract")

// storeError reports an answer of the store that breaks the Store contract,
// with the detail for the log.
func storeError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrStore}, args...)...)
}

// Frame is one requested frame of an Answer.
type Frame struct {
	ID      uint64
	Shape   grid.Shape // valid when Known
	Known   bool       // the grid holds it
	Entries []Entry    // ascending dataset (Answer.Access index)
}

// Entry is what one dataset records on one frame, as it will be shown.
type Entry struct {
	Dataset   int      // index into Answer.Access
	Attrs     []byte   // a JSON object, or empty
	Features  [][]byte // nil without feature.read; at most FeatureCap per dataset
	Count     int      // featureCount: every feature the dataset holds there
	Truncated bool     // the cap cut features of this entry
}

// State is what a request learnt about one readable dataset.
type State struct {
	Contributed bool // it records something on a requested frame
	Frames      int  // the requested frames it records something on: the frames whose values are read (Price)
	Used        int  // features shown so far
	LeftOut     bool // per query, and the credits did not cover it
	Charged     bool
}

// Answer is what a key may read on the requested frames, checked, and the
// outcome of charging it. It is not safe for concurrent use.
type Answer struct {
	Access       []state.Access // the readable datasets, sorted by id
	Frames       []Frame        // request order, each once
	WithFeatures bool
	State        []State // parallel to Access
}

// Read looks frames up in g, reads what every dataset key may read records
// on the known ones (features only with withFeatures, at most FeatureCap
// per dataset) and checks the store's answer. frames must be unique; an id
// the grid does not hold is answered as unknown and never read or charged.
// Nothing is charged here: see PerQuery and Charge.
func Read(store Store, g Grid, key state.Key, frames []uint64, withFeatures bool) (*Answer, error) {
	fs := make([]Frame, len(frames))
	known := make([]uint64, 0, len(frames))
	for i, id := range frames {
		fs[i].ID = id
		fs[i].Shape, fs[i].Known = g.Shape(id)
		if fs[i].Known {
			known = append(known, id)
		}
	}
	readable, err := store.Readable(key)
	if err != nil {
		return nil, fmt.Errorf("reading the datasets key %s may read: %w", key.ID, err)
	}
	readable = sortedAccess(readable)
	var fd []bolt.FrameData
	if len(readable) > 0 && len(known) > 0 {
		names := make([]string, len(readable))
		for i := range readable {
			names[i] = readable[i].Dataset.ID
		}
		if fd, err = store.ReadFrames(names, known, withFeatures, FeatureCap); err != nil {
			return nil, fmt.Errorf("reading %d datasets on %d frames: %w", len(names), len(known), err)
		}
	}
	a := &Answer{Access: readable, Frames: fs, WithFeatures: withFeatures}
	if err := a.collect(fd); err != nil {
		return nil, err
	}
	return a, nil
}

// sortedAccess returns access sorted by dataset id: access itself when it
// is (as Readable promises), otherwise a sorted copy, since the store may
// share its slice with other requests.
func sortedAccess(access []state.Access) []state.Access {
	cmp := func(a, b state.Access) int { return strings.Compare(a.Dataset.ID, b.Dataset.ID) }
	if slices.IsSortedFunc(access, cmp) {
		return access
	}
	access = slices.Clone(access)
	slices.SortFunc(access, cmp)
	return access
}

// find returns the index in a.Access of dataset id.
func (a *Answer) find(id string) (int, bool) {
	return slices.BinarySearchFunc(a.Access, id, func(x state.Access, id string) int {
		return strings.Compare(x.Dataset.ID, id)
	})
}

// collect matches the store's records to the requested frames and checks
// them: frames in the order asked (the store may leave out frames with no
// records), datasets among those asked, each once per frame, attributes a
// JSON object and features JSON objects. It applies the feature cap again,
// so an over-generous store cannot break it, and drops features the key may
// not see.
func (a *Answer) collect(fd []bolt.FrameData) error {
	a.State = make([]State, len(a.Access))
	total := 0
	for i := range fd {
		total += len(fd[i].Datasets)
	}
	all := make([]Entry, 0, total) // every frame's entries, one allocation
	j := 0
	byDataset := func(x, y Entry) int { return x.Dataset - y.Dataset }
	for i := range a.Frames {
		f := &a.Frames[i]
		if !f.Known || j >= len(fd) || fd[j].Frame != f.ID {
			continue
		}
		rec := fd[j].Datasets
		j++
		start := len(all)
		for k := range rec {
			e, ok, err := a.entry(f.ID, &rec[k])
			if err != nil {
				return err
			}
			if ok {
				all = append(all, e)
			}
		}
		f.Entries = all[start:len(all):len(all)]
		if !slices.IsSortedFunc(f.Entries, byDataset) {
			slices.SortFunc(f.Entries, byDataset)
		}
		for k := 1; k < len(f.Entries); k++ {
			if f.Entries[k].Dataset == f.Entries[k-1].Dataset {
				return storeError("dataset %q appears twice on frame %d", a.Access[f.Entries[k].Dataset].Dataset.ID, f.ID)
			}
		}
	}
	if j < len(fd) {
		return storeError("ReadFrames returned frame %d, which was not asked for or is out of order", fd[j].Frame)
	}
	return nil
}

// entry checks one dataset's record on frame fr and returns it as it will
// be shown; ok is false when it records nothing there.
func (a *Answer) entry(fr uint64, d *bolt.DatasetFrame) (e Entry, ok bool, err error) {
	ds, found := a.find(d.Dataset)
	if !found {
		return e, false, storeError("ReadFrames returned dataset %q on frame %d, which the key may not read", d.Dataset, fr)
	}
	if len(d.Attrs) > 0 && !isObject(d.Attrs) {
		return e, false, storeError("the attributes of dataset %q on frame %d are not a JSON object", d.Dataset, fr)
	}
	e = Entry{Dataset: ds, Attrs: d.Attrs, Count: max(d.FeatureCount, len(d.Features))}
	if a.WithFeatures {
		st := &a.State[ds]
		n := min(len(d.Features), FeatureCap-st.Used)
		for _, ft := range d.Features[:n] {
			if !isObject(ft) {
				return e, false, storeError("a feature of dataset %q on frame %d is not a JSON object", d.Dataset, fr)
			}
		}
		if n > 0 {
			e.Features = d.Features[:n]
		}
		st.Used += n
		e.Truncated = d.FeaturesTruncated || n < e.Count // the entry lost features
	}
	if len(e.Attrs) == 0 && e.Count == 0 {
		return e, false, nil // records nothing here
	}
	a.State[ds].Contributed = true
	a.State[ds].Frames++
	return e, true, nil
}

// isObject is a cheap check that b holds a JSON object: its first and last
// bytes other than JSON white space are '{' and '}'. The store keeps what
// the importer validated; this catches a record that is not an object at
// all without re-parsing every record on every request.
func isObject(b []byte) bool {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i, k := 0, len(b)-1
	for i <= k && isSpace(b[i]) {
		i++
	}
	for k >= i && isSpace(b[k]) {
		k--
	}
	return k > i && b[i] == '{' && b[k] == '}'
}
