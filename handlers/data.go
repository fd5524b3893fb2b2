package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
)

// DataStore reads what datasets record on frames and charges per-query
// datasets. *bolt.Store implements it. All methods must be safe for
// concurrent use; the handlers never modify the slices they are given
// (except to sort a Readable answer that is not sorted, on a copy).
type DataStore interface {
	// Readable returns the datasets key may read, sorted by id, each with
	// whether it is charged per query.
	Readable(k bolt.Key) ([]bolt.Access, error)
	// ReadFrames reads, in one read transaction, what the datasets ids
	// record on frames, in the order of frames. Features are returned only
	// with withFeatures, at most featureCap per dataset over the whole call,
	// filled frame by frame.
	ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error)
	// Charge debits, in one transaction, each per-query dataset of ds the
	// organisation's balance covers; the ones it does not cover are
	// returned in leftOut, not charged. Each dataset of ds is in exactly one
	// of the two lists.
	Charge(orgID, keyID, requestID string, ds []bolt.DatasetPrice, now time.Time) (charged, leftOut []string, err error)
}

// featureCap is the most features the data call returns per dataset per
// request (spec, Caps).
const featureCap = 200

// reasonInsufficientCredits is the reason of a dataset left out because the
// organisation's credits did not cover its per-query charge (contract §3).
const reasonInsufficientCredits = "insufficient_credits"

// Errors of the data call that are server failures (500 internal, logged).
var (
	errNoData      = errors.New("handlers: no dataset store (Config.Data is nil)")
	errNoPrincipal = errors.New("handlers: a call reading datasets ran without an authenticated key (route not behind requireKey)")
	errStoreAnswer = errors.New("handlers: the dataset store broke its contract")
)

// handleFramesData answers GET /v1/frames/data?ids= (contract §3): for each
// requested frame, in the order first requested and each once, its bbox
// (absent for an id the grid does not hold) and what every dataset the key
// may read records there, datasets in ascending id. Per-query datasets that
// contributed anything are charged once, in one Charge call, before the
// answer is written; those the credits did not cover are removed from every
// frame and listed in leftOut. The answer is streamed in chunks.
//
// The key (checked by requireKey) needs frame.read; features are returned
// only when it also has feature.read. A store error, a store answer that
// breaks the DataStore contract, or a failed Charge is 500 internal: nothing
// is charged unless Charge itself succeeded, and a charge is never made for a
// request whose deadline had passed before it.
func (s *Server) handleFramesData(w http.ResponseWriter, r *http.Request) {
	ids, err := parseDataQuery(parseQuery(r.URL.RawQuery))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key, ok := principalOf(w, r)
	if !ok {
		s.writeError(w, r, errNoPrincipal)
		return
	}
	ctx := r.Context()
	ans, err := s.readDataAnswer(key, ids, key.Has(bolt.CapFeatureRead))
	if err != nil {
		s.writeError(w, r, err)
		return
	}

	if asks := ans.perQuery(); len(asks) > 0 {
		if _, ok := s.charge(w, r, key, &ans, asks); !ok {
			return
		}
	}

	buf := getBuf()
	defer func() { putBuf(buf) }()
	fs := featureStream{w: w, ctx: ctx, b: buf.b}
	ok = ans.write(&fs)
	buf.b = fs.b // keep the grown buffer for the pool
	if !ok {
		s.failStream(w, r, &fs)
		return
	}
	fs.finish()
	buf.b = fs.b
	if fs.err != nil {
		s.failStream(w, r, &fs)
	}
}

// readDataAnswer looks the frames up in the grid, reads what every dataset
// key may read records on the known ones (features only with
// withFeatures, under featureCap) and checks the store's answer. It is the
// common part of the data call and the question call. No grid snapshot, no
// store, a store error or a store answer that breaks the DataStore contract
// are errors answered 500 internal.
func (s *Server) readDataAnswer(key bolt.Key, ids []uint64, withFeatures bool) (dataAnswer, error) {
	ix := s.frames()
	if ix == nil {
		return dataAnswer{}, errNoGrid
	}
	if s.data == nil {
		return dataAnswer{}, errNoData
	}
	// The frames, and the ids of the known ones for the store: records on
	// an id the grid no longer holds are not shown and not charged.
	frames := make([]dataFrame, len(ids))
	known := make([]uint64, 0, len(ids))
	for i, id := range ids {
		frames[i].id = id
		frames[i].shape, frames[i].known = ix.Shape(id)
		if frames[i].known {
			known = append(known, id)
		}
	}
	access, err := s.data.Readable(key)
	if err != nil {
		return dataAnswer{}, fmt.Errorf("reading the datasets key %s may read: %w", key.ID, err)
	}
	access = sortedAccess(access)
	var fd []bolt.FrameData
	if len(access) > 0 && len(known) > 0 {
		names := make([]string, len(access))
		for i := range access {
			names[i] = access[i].Dataset.ID
		}
		if fd, err = s.data.ReadFrames(names, known, withFeatures, featureCap); err != nil {
			return dataAnswer{}, fmt.Errorf("reading %d datasets on %d frames: %w", len(names), len(known), err)
		}
	}
	ans := dataAnswer{access: access, frames: frames, withFeatures: withFeatures}
	if err := ans.collect(fd); err != nil {
		return dataAnswer{}, err
	}
	return ans, nil
}

// requestIDOf returns the id of the request whose response w is: the one
// the middleware gave it, or its X-Request-Id header outside the middleware.
func requestIDOf(w http.ResponseWriter) string {
	if info := infoOf(w); info != nil {
		return info.id
	}
	return w.Header().Get("X-Request-Id")
}

// parseDataQuery reads ids of GET /v1/frames/data (contract §3): required,
// repeatable, 1 to maxIDs ids in all (duplicates counted), parsed as on GET
// /v1/frames. It returns the ids in the order first requested, each once.
// Other parameters (bbox and limit included) are ignored, as on every call.
// Errors are invalid and name ids.
func parseDataQuery(q query) ([]uint64, error) {
	n := q.count("ids")
	if n == 0 {
		return nil, newError(codeInvalid, "ids is required: give 1 to "+strconv.Itoa(maxIDs)+" comma-separated frame ids, e.g. ids=1,2")
	}
	vals := make([]string, 0, n)
	for _, p := range q {
		if p.key != "ids" {
			continue
		}
		if p.bad {
			return nil, newError(codeInvalid, "ids is not valid URL encoding; got "+quoteInput(p.value))
		}
		vals = append(vals, p.value)
	}
	ids, err := parseIDs(vals)
	if err != nil {
		return nil, err
	}
	uniq := ids[:0]
	for _, id := range ids {
		if !slices.Contains(uniq, id) {
			uniq = append(uniq, id)
		}
	}
	return uniq, nil
}

// sortedAccess returns access sorted by dataset id: access itself when it
// is (as Readable promises), otherwise a sorted copy, since the store may
// share its slice with other requests.
func sortedAccess(access []bolt.Access) []bolt.Access {
	cmp := func(a, b bolt.Access) int { return strings.Compare(a.Dataset.ID, b.Dataset.ID) }
	if slices.IsSortedFunc(access, cmp) {
		return access
	}
	access = slices.Clone(access)
	slices.SortFunc(access, cmp)
	return access
}

// dataFrame is one frame of the answer.
type dataFrame struct {
	id      uint64
	shape   grid.Shape
	known   bool
	entries []dataEntry // ascending dataset (access index)
}

// dataEntry is what one dataset records on one frame, as it will be shown.
type dataEntry struct {
	ds        int // index into dataAnswer.access
	attrs     []byte
	features  [][]byte // nil without feature.read
	count     int      // featureCount
	truncated bool
}

// dsState is what a request learnt about one readable dataset.
type dsState struct {
	contributed bool // it records something on a requested frame
	used        int  // features shown so far
	leftOut     bool // per query, and the credits did not cover it
	charged     bool
}

// dataAnswer assembles the data call's answer from the store's records.
type dataAnswer struct {
	access       []bolt.Access // sorted by dataset id
	frames       []dataFrame   // request order, each once
	withFeatures bool
	state        []dsState // parallel to access
}

// storeError reports an answer of the store that breaks the DataStore
// contract; it is a 500, with the detail for the log.
func storeError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errStoreAnswer}, args...)...)
}

// collect matches the store's records to the requested frames and checks
// them: frames in the order asked (the store may leave out frames with no
// records), datasets among those asked, each once per frame, attributes a
// JSON object and features JSON objects. It applies the feature cap again,
// so an over-generous store cannot break it, and drops features the key may
// not see.
func (a *dataAnswer) collect(fd []bolt.FrameData) error {
	a.state = make([]dsState, len(a.access))
	total := 0
	for i := range fd {
		total += len(fd[i].Datasets)
	}
	all := make([]dataEntry, 0, total) // every frame's entries, one allocation
	j := 0
	for i := range a.frames {
		f := &a.frames[i]
		if !f.known || j >= len(fd) || fd[j].Frame != f.id {
			continue
		}
		rec := fd[j].Datasets
		j++
		start := len(all)
		for k := range rec {
			e, ok, err := a.entry(f.id, &rec[k])
			if err != nil {
				return err
			}
			if ok {
				all = append(all, e)
			}
		}
		f.entries = all[start:len(all):len(all)]
		if !slices.IsSortedFunc(f.entries, func(x, y dataEntry) int { return x.ds - y.ds }) {
			slices.SortFunc(f.entries, func(x, y dataEntry) int { return x.ds - y.ds })
		}
		for k := 1; k < len(f.entries); k++ {
			if f.entries[k].ds == f.entries[k-1].ds {
				return storeError("dataset %q appears twice on frame %d", a.access[f.entries[k].ds].Dataset.ID, f.id)
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
func (a *dataAnswer) entry(fr uint64, d *bolt.DatasetFrame) (e dataEntry, ok bool, err error) {
	ds, found := slices.BinarySearchFunc(a.access, d.Dataset, func(x bolt.Access, id string) int {
		return strings.Compare(x.Dataset.ID, id)
	})
	if !found {
		return e, false, storeError("ReadFrames returned dataset %q on frame %d, which the key may not read", d.Dataset, fr)
	}
	if len(d.Attrs) > 0 && !isObject(d.Attrs) {
		return e, false, storeError("the attributes of dataset %q on frame %d are not a JSON object", d.Dataset, fr)
	}
	e = dataEntry{ds: ds, attrs: d.Attrs, count: max(d.FeatureCount, len(d.Features))}
	if a.withFeatures {
		st := &a.state[ds]
		n := min(len(d.Features), featureCap-st.used)
		for _, ft := range d.Features[:n] {
			if !isObject(ft) {
				return e, false, storeError("a feature of dataset %q on frame %d is not a JSON object", d.Dataset, fr)
			}
		}
		if n > 0 {
			e.features = d.Features[:n]
		}
		st.used += n
		e.truncated = d.FeaturesTruncated || n < e.count // the entry lost features
	}
	if len(e.attrs) == 0 && e.count == 0 {
		return e, false, nil // records nothing here
	}
	a.state[ds].contributed = true
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

// perQuery returns the per-query datasets that contributed, in ascending id
// order, with their prices: what Charge is asked to debit.
func (a *dataAnswer) perQuery() []bolt.DatasetPrice {
	var asks []bolt.DatasetPrice
	for i, st := range a.state {
		if st.contributed && a.access[i].PerQuery {
			asks = append(asks, bolt.DatasetPrice{ID: a.access[i].Dataset.ID, Price: a.access[i].Dataset.Price})
		}
	}
	return asks
}

// settle records Charge's answer: each dataset asked is either charged or
// left out, and nothing else is named. A left-out dataset is then removed
// from every frame.
func (a *dataAnswer) settle(asks []bolt.DatasetPrice, charged, leftOut []string) error {
	find := func(id string) (int, bool) {
		return slices.BinarySearchFunc(a.access, id, func(x bolt.Access, id string) int {
			return strings.Compare(x.Dataset.ID, id)
		})
	}
	asked := func(id string) bool {
		return slices.ContainsFunc(asks, func(p bolt.DatasetPrice) bool { return p.ID == id })
	}
	for _, id := range charged {
		i, ok := find(id)
		if !ok || !asked(id) || a.state[i].charged {
			return storeError("Charge reported %q as charged, which was not asked for or was reported twice", id)
		}
		a.state[i].charged = true
	}
	for _, id := range leftOut {
		i, ok := find(id)
		if !ok || !asked(id) || a.state[i].charged || a.state[i].leftOut {
			return storeError("Charge reported %q as left out, which was not asked for or was reported twice", id)
		}
		a.state[i].leftOut = true
	}
	for _, p := range asks {
		i, _ := find(p.ID)
		if !a.state[i].charged && !a.state[i].leftOut {
			return storeError("Charge reported dataset %q neither charged nor left out", p.ID)
		}
	}
	if len(leftOut) == 0 {
		return nil
	}
	for fi := range a.frames {
		f := &a.frames[fi]
		f.entries = slices.DeleteFunc(f.entries, func(e dataEntry) bool { return a.state[e.ds].leftOut })
	}
	return nil
}

// write streams the answer into fs, up to the last chunk, which fs.finish
// sends: {"data":{"frames":[...],"charged":[...],"leftOut":[...]}}. It
// returns false when the stream stopped (fs.err says why).
func (a *dataAnswer) write(fs *featureStream) bool {
	fs.b = append(fs.b, dataPrefix+`{"frames":[`...)
	for i := range a.frames {
		f := &a.frames[i]
		if i > 0 {
			fs.b = append(fs.b, ',')
		}
		fs.b = append(fs.b, `{"id":"`...)
		fs.b = strconv.AppendUint(fs.b, f.id, 10)
		fs.b = append(fs.b, '"')
		if f.known {
			fs.b = append(fs.b, `,"bbox":`...)
			fs.b = f.shape.AppendBBox(fs.b)
		}
		fs.b = append(fs.b, `,"datasets":[`...)
		for k := range f.entries {
			if k > 0 {
				fs.b = append(fs.b, ',')
			}
			if !a.appendEntry(fs, &f.entries[k]) {
				return false
			}
		}
		fs.b = append(fs.b, "]}"...)
		if len(fs.b) >= chunkSize && !fs.flush() {
			return false
		}
	}
	fs.b = append(fs.b, ']')
	for _, member := range [...]struct {
		name string
		pick func(dsState) bool
	}{
		{`,"charged":[`, func(st dsState) bool { return st.charged }},
		{`,"leftOut":[`, func(st dsState) bool { return st.leftOut }},
	} {
		n := 0
		for i, st := range a.state {
			if !member.pick(st) {
				continue
			}
			if n == 0 {
				fs.b = append(fs.b, member.name...)
			} else {
				fs.b = append(fs.b, ',')
			}
			n++
			if st.charged {
				fs.b = grid.AppendJSONString(fs.b, a.access[i].Dataset.ID)
				continue
			}
			fs.b = append(fs.b, `{"id":`...)
			fs.b = grid.AppendJSONString(fs.b, a.access[i].Dataset.ID)
			fs.b = append(fs.b, `,"name":`...)
			fs.b = grid.AppendJSONString(fs.b, a.access[i].Dataset.Name)
			fs.b = append(fs.b, `,"reason":"`+reasonInsufficientCredits+`"}`...)
		}
		if n > 0 {
			fs.b = append(fs.b, ']')
		}
	}
	fs.b = append(fs.b, "}"+dataSuffix...)
	return true
}

// appendEntry appends one dataset entry, flushing between features when the
// pending bytes reach a chunk.
func (a *dataAnswer) appendEntry(fs *featureStream, e *dataEntry) bool {
	ds := &a.access[e.ds].Dataset
	fs.b = append(fs.b, `{"id":`...)
	fs.b = grid.AppendJSONString(fs.b, ds.ID)
	fs.b = append(fs.b, `,"name":`...)
	fs.b = grid.AppendJSONString(fs.b, ds.Name)
	if len(e.attrs) > 0 {
		fs.b = append(fs.b, `,"attributes":`...)
		fs.b = append(fs.b, e.attrs...)
	}
	if len(e.features) > 0 {
		fs.b = append(fs.b, `,"features":{"type":"FeatureCollection","features":[`...)
		for i, ft := range e.features {
			if i > 0 {
				fs.b = append(fs.b, ',')
			}
			fs.b = append(fs.b, ft...)
			if len(fs.b) >= chunkSize && !fs.flush() {
				return false
			}
		}
		fs.b = append(fs.b, "]}"...)
	}
	if e.count > 0 {
		fs.b = append(fs.b, `,"featureCount":`...)
		fs.b = strconv.AppendInt(fs.b, int64(e.count), 10)
	}
	if e.truncated {
		fs.b = append(fs.b, `,"featuresTruncated":true`...)
	}
	fs.b = append(fs.b, '}')
	return true
}

// charge debits the per-query datasets asks for this request and records
// the outcome in ans. On failure it has answered the request (ok false);
// otherwise it returns the datasets the credits could not cover.
func (s *Server) charge(w http.ResponseWriter, r *http.Request, key bolt.Key, ans *dataAnswer, asks []bolt.DatasetPrice) (leftOut []string, ok bool) {
	ctx := r.Context()
	if ctx.Err() != nil {
		s.writeError(w, r, context.Cause(ctx))
		return nil, false
	}
	charged, leftOut, err := s.data.Charge(key.OrgID, key.ID, requestIDOf(w), asks, s.now())
	if err != nil {
		s.writeError(w, r, fmt.Errorf("charging %d per-query datasets to organisation %s: %w", len(asks), key.OrgID, err))
		return nil, false
	}
	if err := ans.settle(asks, charged, leftOut); err != nil {
		s.writeError(w, r, err)
		return nil, false
	}
	return leftOut, true
}
