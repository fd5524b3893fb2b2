package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"frameindex/access"
	"frameindex/grid"
	"frameindex/state"
)

// DataStore is what the dataset calls need of the data file: access.Store
// (reading frames, charging per-query datasets). *bolt.Store implements it.
type DataStore = access.Store

// featureCap and reasonInsufficientCredits are access's, named here for
// the handlers' tests.
const (
	featureCap                = access.FeatureCap
	reasonInsufficientCredits = access.ReasonInsufficientCredits
)

// Errors of the data call that are server failures (500 internal, logged).
var (
	errNoData      = errors.New("handlers: no dataset store (Config.Data is nil)")
	errNoPrincipal = errors.New("handlers: a call reading datasets ran without an authenticated key (route not behind requireKey)")
)

// handleFramesData answers GET /v1/frames/data?ids= (docs/contract.md §3): for each
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
	// A charge may follow the read: a group of other requests' charges
	// about to commit waits for it (bolt's committer.go).
	arrived := state.ExpectCharge(s.data)
	defer arrived()
	ans, err := s.readDataAnswer(key, ids, key.Has(state.CapFeatureRead))
	if err != nil {
		s.writeError(w, r, err)
		return
	}

	// The charge is decided first; its fsync (shared with the other
	// requests of its group) runs while the answer is written into the
	// buffer, and the first byte goes out only once it is durable.
	var durable func() error
	if asks := ans.PerQuery(); len(asks) > 0 {
		if _, durable, err = ans.StartCharge(ctx, s.data, key, requestIDOf(w), asks, s.now()); err != nil {
			s.writeError(w, r, err)
			return
		}
		charged := durable
		durable = func() error {
			if err := charged(); err != nil {
				return err
			}
			s.countCharges(ans)
			return nil
		}
	}

	arrived() // the charge is decided, or none is coming
	buf := getBuf()
	defer func() { putBuf(buf) }()
	fs := featureStream{w: w, ctx: ctx, b: buf.b, gate: durable}
	// A stream that stops before its first chunk (the context ends) still
	// waits for the charge: its write must end before the request does.
	defer fs.open()
	ok = writeDataAnswer(&fs, ans)
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

// readDataAnswer reads, through package access, what key may read on the
// frames ids (features only with withFeatures). It is the common part of
// the data call and the question call. No grid snapshot or no store is an
// error answered 500 internal, as are access's errors.
func (s *Server) readDataAnswer(key state.Key, ids []uint64, withFeatures bool) (*access.Answer, error) {
	ix := s.frames()
	if ix == nil {
		return nil, errNoGrid
	}
	if s.data == nil {
		return nil, errNoData
	}
	return access.Read(s.data, ix, key, ids, withFeatures)
}

// requestIDOf returns the id of the request whose response w is: the one
// the middleware gave it, or its X-Request-Id header outside the middleware.
func requestIDOf(w http.ResponseWriter) string {
	if info := infoOf(w); info != nil {
		return info.id
	}
	return w.Header().Get("X-Request-Id")
}

// parseDataQuery reads ids of GET /v1/frames/data (docs/contract.md §3): required,
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

// writeDataAnswer streams a into fs, up to the last chunk, which fs.finish
// sends: {"data":{"frames":[...],"charged":[...],"leftOut":[...]}}. It
// returns false when the stream stopped (fs.err says why).
func writeDataAnswer(fs *featureStream, a *access.Answer) bool {
	fs.b = append(fs.b, dataPrefix+`{"frames":[`...)
	for i := range a.Frames {
		f := &a.Frames[i]
		if i > 0 {
			fs.b = append(fs.b, ',')
		}
		fs.b = append(fs.b, `{"id":"`...)
		fs.b = strconv.AppendUint(fs.b, f.ID, 10)
		fs.b = append(fs.b, '"')
		if f.Known {
			fs.b = append(fs.b, `,"bbox":`...)
			fs.b = f.Shape.AppendBBox(fs.b)
		}
		fs.b = append(fs.b, `,"datasets":[`...)
		for k := range f.Entries {
			if k > 0 {
				fs.b = append(fs.b, ',')
			}
			if !appendEntry(fs, a, &f.Entries[k]) {
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
		pick func(access.State) bool
	}{
		{`,"charged":[`, func(st access.State) bool { return st.Charged }},
		{`,"leftOut":[`, func(st access.State) bool { return st.LeftOut }},
	} {
		n := 0
		for i, st := range a.State {
			if !member.pick(st) {
				continue
			}
			if n == 0 {
				fs.b = append(fs.b, member.name...)
			} else {
				fs.b = append(fs.b, ',')
			}
			n++
			if st.Charged {
				fs.b = grid.AppendJSONString(fs.b, a.Access[i].Dataset.ID)
				continue
			}
			fs.b = append(fs.b, `{"id":`...)
			fs.b = grid.AppendJSONString(fs.b, a.Access[i].Dataset.ID)
			fs.b = append(fs.b, `,"name":`...)
			fs.b = grid.AppendJSONString(fs.b, a.Access[i].Dataset.Name)
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
func appendEntry(fs *featureStream, a *access.Answer, e *access.Entry) bool {
	ds := &a.Access[e.Dataset].Dataset
	fs.b = append(fs.b, `{"id":`...)
	fs.b = grid.AppendJSONString(fs.b, ds.ID)
	fs.b = append(fs.b, `,"name":`...)
	fs.b = grid.AppendJSONString(fs.b, ds.Name)
	if len(e.Attrs) > 0 {
		fs.b = append(fs.b, `,"attributes":`...)
		fs.b = append(fs.b, e.Attrs...)
	}
	if len(e.Features) > 0 {
		fs.b = append(fs.b, `,"features":{"type":"FeatureCollection","features":[`...)
		for i, ft := range e.Features {
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
	if e.Count > 0 {
		fs.b = append(fs.b, `,"featureCount":`...)
		fs.b = strconv.AppendInt(fs.b, int64(e.Count), 10)
	}
	if e.Truncated {
		fs.b = append(fs.b, `,"featuresTruncated":true`...)
	}
	fs.b = append(fs.b, '}')
	return true
}
