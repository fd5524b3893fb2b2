package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"frameindex/grid"
)

// handleFramesAt answers GET /v1/frames/at?lat=&lon=: the frame holding the
// point, as {"data":{"id","geometry","bbox"}}. 400 invalid_point for a bad
// lat or lon, 404 not_found for a point on no frame.
func (s *Server) handleFramesAt(w http.ResponseWriter, r *http.Request) {
	lat, lon, err := pointQuery(parseQuery(r.URL.RawQuery))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ix := s.frames()
	if ix == nil {
		s.writeError(w, r, errNoGrid)
		return
	}
	shape, ok := ix.At(lat, lon)
	if !ok {
		s.writeError(w, r, newError(codeNotFound,
			"no frame at lat "+fmtNum(lat)+", lon "+fmtNum(lon)+": the point is outside the grid"))
		return
	}
	buf := getBuf()
	b := append(buf.b, dataPrefix...)
	b = appendFrame(b, shape)
	buf.b = writeData(w, b)
	putBuf(buf)
}

// handleFrames answers GET /v1/frames (docs/contract.md §2): the frames touching a
// box (bbox, limit) or named by id (ids), as {"data": FeatureCollection}.
// The collection is streamed as the index is walked; "truncated" and
// "unknownIds" follow the features array because they are known only at the
// end.
func (s *Server) handleFrames(w http.ResponseWriter, r *http.Request) {
	fq, err := parseFramesQuery(parseQuery(r.URL.RawQuery))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ix := s.frames()
	if ix == nil {
		s.writeError(w, r, errNoGrid)
		return
	}
	ctx := r.Context()
	if ctx.Err() != nil {
		s.writeError(w, r, context.Cause(ctx))
		return
	}
	buf := getBuf()
	defer func() { putBuf(buf) }()
	fs := featureStream{w: w, ctx: ctx, b: buf.b}
	fs.b = append(fs.b, dataPrefix+`{"type":"FeatureCollection","features":[`...)

	var truncated bool
	var unknown []uint64
	if fq.byIDs {
		seen := make([]uint64, 0, len(fq.ids))
		for _, id := range fq.ids {
			if slices.Contains(seen, id) {
				continue
			}
			seen = append(seen, id)
			shape, ok := ix.Shape(id)
			if !ok {
				unknown = append(unknown, id)
				continue
			}
			if !fs.add(shape) {
				break
			}
		}
	} else {
		truncated = ix.Box(fq.box, fq.limit, fs.add)
	}
	buf.b = fs.b // keep the grown buffer for the pool
	if fs.err != nil {
		s.failStream(w, r, &fs)
		return
	}

	fs.b = append(fs.b, ']')
	if truncated {
		fs.b = append(fs.b, `,"truncated":true`...)
	}
	if len(unknown) > 0 {
		fs.b = append(fs.b, `,"unknownIds":[`...)
		for i, id := range unknown {
			if i > 0 {
				fs.b = append(fs.b, ',')
			}
			fs.b = append(fs.b, '"')
			fs.b = strconv.AppendUint(fs.b, id, 10)
			fs.b = append(fs.b, '"')
		}
		fs.b = append(fs.b, ']')
	}
	fs.b = append(fs.b, "}"+dataSuffix...)
	fs.finish()
	buf.b = fs.b
	if fs.err != nil {
		s.failStream(w, r, &fs)
	}
}

// failStream ends a response whose stream stopped early. Before the first
// chunk went out the pending bytes are dropped and the error envelope is sent
// instead; after it, the connection is aborted, because a body cut short must
// not look like a whole one.
func (s *Server) failStream(w http.ResponseWriter, r *http.Request, fs *featureStream) {
	if !fs.sent {
		s.writeError(w, r, fs.err)
		return
	}
	if info := infoOf(w); info != nil {
		info.code, info.cause, info.aborted = codeInternal, fs.err, true
	}
	panic(http.ErrAbortHandler)
}

// errClientGone marks a failed write: the client closed the connection.
var errClientGone = errors.New("client went away")

// featureStream writes features into a buffer and sends it in chunks of
// about chunkSize bytes, checking the request context as it goes.
type featureStream struct {
	w    http.ResponseWriter
	ctx  context.Context
	b    []byte // bytes not sent yet
	n    int    // features added
	sent bool   // a chunk went out: status and headers are sent
	err  error  // why the stream stopped; set once
	// gate, when set, is waited for before the first byte is sent: the
	// durability of a charge the answer reports. Its error stops the
	// stream with nothing sent.
	gate func() error
}

// open waits for the gate, once; false when it failed (fs.err set).
func (fs *featureStream) open() bool {
	if fs.gate == nil {
		return true
	}
	gate := fs.gate
	fs.gate = nil
	if err := gate(); err != nil {
		fs.err = err
		return false
	}
	return true
}

// ctxEvery is how many features are added between checks of the request
// context (it is checked before every chunk as well).
const ctxEvery = 256

// add appends one feature; it returns false when the stream has to stop
// (context done or client gone), with fs.err set. Its signature fits
// FrameIndex.Box.
func (fs *featureStream) add(sh grid.Shape) bool {
	if fs.n > 0 {
		fs.b = append(fs.b, ',')
	}
	fs.b = appendFeature(fs.b, sh)
	fs.n++
	if fs.n%ctxEvery == 0 && fs.ctx.Err() != nil {
		fs.err = context.Cause(fs.ctx)
		return false
	}
	if len(fs.b) >= chunkSize {
		return fs.flush()
	}
	return true
}

// flush sends the pending bytes, after the status line and headers if they
// have not gone yet.
func (fs *featureStream) flush() bool {
	if fs.ctx.Err() != nil {
		fs.err = context.Cause(fs.ctx)
		return false
	}
	if !fs.sent {
		if !fs.open() {
			return false
		}
		h := fs.w.Header()
		h["Content-Type"] = jsonContentType
		h["X-Content-Type-Options"] = nosniff
		fs.w.WriteHeader(http.StatusOK)
		fs.sent = true
	}
	if _, err := fs.w.Write(fs.b); err != nil {
		fs.err = fmt.Errorf("%w: %w", errClientGone, err)
		return false
	}
	fs.b = fs.b[:0]
	return true
}

// finish sends what is left: the whole body with its length when nothing was
// sent yet, otherwise the last chunk.
func (fs *featureStream) finish() {
	if !fs.sent {
		if !fs.open() {
			return
		}
		writeJSON(fs.w, http.StatusOK, fs.b)
		fs.b = fs.b[:0]
		return
	}
	fs.flush()
}

// appendFrame appends a Frame object: {"id","geometry","bbox"}.
func appendFrame(b []byte, sh grid.Shape) []byte {
	b = append(b, `{"id":"`...)
	b = strconv.AppendUint(b, sh.ID, 10)
	b = append(b, `","geometry":`...)
	b = sh.AppendGeometry(b)
	b = append(b, `,"bbox":`...)
	b = sh.AppendBBox(b)
	return append(b, '}')
}

// appendFeature appends a GeoJSON Feature of the frame:
// {"type":"Feature","id","bbox","geometry","properties":{"id"}}.
func appendFeature(b []byte, sh grid.Shape) []byte {
	b = append(b, `{"type":"Feature","id":"`...)
	start := len(b)
	b = strconv.AppendUint(b, sh.ID, 10)
	end := len(b)
	b = append(b, `","bbox":`...)
	b = sh.AppendBBox(b)
	b = append(b, `,"geometry":`...)
	b = sh.AppendGeometry(b)
	b = append(b, `,"properties":{"id":"`...)
	b = append(b, b[start:end]...)
	return append(b, `"}}`...)
}
