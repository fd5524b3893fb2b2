package raster

import (
	"bufio"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/image/tiff/lzw"
)

// Pools for the per-chunk reader state: a national raster has thousands of
// strips, and a bufio.Reader or zlib state per strip would be garbage.
var (
	bufPool  = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	zlibPool sync.Pool // of io.ReadCloser that implement zlib.Resetter
)

// stream yields the decoded rows of one chunk in order, reading the
// compressed bytes through a small buffer: a chunk is never held whole.
type stream struct {
	r    *Raster
	idx  int
	br   *bufio.Reader
	dec  io.Reader
	z    io.ReadCloser
	rows int // rows read so far
}

func (r *Raster) openStream(idx int) (*stream, error) {
	sec := io.NewSectionReader(r.t.r, int64(r.offsets[idx]), int64(r.counts[idx]))
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(sec)
	s := &stream{r: r, idx: idx, br: br}
	switch r.comp {
	case compNone:
		s.dec = br
	case compLZW:
		s.dec = lzw.NewReader(br, lzw.MSB, 8)
	case compDeflate, compDeflateOld:
		var err error
		if z, ok := zlibPool.Get().(io.ReadCloser); ok {
			err = z.(zlib.Resetter).Reset(br, nil)
			s.z = z
		} else {
			s.z, err = zlib.NewReader(br)
		}
		if err != nil {
			s.close()
			return nil, r.t.errf("%s: Deflate data does not start with a zlib header (%v): corrupt", r.chunkName(idx), err)
		}
		s.dec = s.z
	case compPackBits:
		s.dec = &packBits{r: br}
	}
	return s, nil
}

// readRow fills raw with the chunk's next decoded row.
func (s *stream) readRow(raw []byte) error {
	if _, err := io.ReadFull(s.dec, raw); err != nil {
		reason := err.Error()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			reason = "the data ends early (truncated or corrupt)"
		}
		return s.r.t.errf("%s, row %d of it: %s data: %s", s.r.chunkName(s.idx), s.rows, compressionName(s.r.comp), reason)
	}
	s.rows++
	return nil
}

func (s *stream) close() {
	if s.z != nil {
		zlibPool.Put(s.z)
		s.z = nil
	}
	if s.br != nil {
		s.br.Reset(nil)
		bufPool.Put(s.br)
		s.br = nil
	}
}

// packBits decodes the PackBits run-length scheme (TIFF 6.0 §9).
type packBits struct {
	r    io.ByteReader
	lit  int  // literal bytes still to copy
	rep  int  // repeats of b still to emit
	b    byte // the repeated byte
	errs error
}

func (p *packBits) Read(dst []byte) (int, error) {
	n := 0
	for n < len(dst) {
		switch {
		case p.rep > 0:
			dst[n] = p.b
			p.rep--
			n++
		case p.lit > 0:
			c, err := p.r.ReadByte()
			if err != nil {
				return n, io.ErrUnexpectedEOF
			}
			dst[n] = c
			p.lit--
			n++
		default:
			h, err := p.r.ReadByte()
			if err != nil {
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			}
			switch c := int8(h); {
			case c >= 0:
				p.lit = int(c) + 1
			case c != -128:
				c2, err := p.r.ReadByte()
				if err != nil {
					return n, io.ErrUnexpectedEOF
				}
				p.rep, p.b = 1-int(c), c2
			}
		}
	}
	return n, nil
}

// rowConv turns one decoded chunk row into float64 values of one band,
// undoing the predictor. Missing values (nodata, NaN, ±Inf) become NaN.
type rowConv struct {
	kind   sampleKind
	size   int // bytes per sample
	stride int // samples per pixel within the row
	sample int // the band's sample within a pixel
	le     bool
	pred   int
	nd     float64
	hasND  bool
	ndF    bool // compare nodata as GDAL does for floats (ARE_REAL_EQUAL)
}

func (r *Raster) newConv(band int) *rowConv {
	c := &rowConv{kind: r.kind, size: r.bytesPS, stride: r.spp, sample: band, pred: r.pred,
		le: r.t.order == binary.LittleEndian}
	if r.planar {
		c.stride, c.sample = 1, 0
	}
	if r.hasNodata && !math.IsNaN(r.nodata) {
		switch r.kind {
		case kF32:
			f := float32(r.nodata)
			c.nd, c.hasND, c.ndF = float64(f), !math.IsInf(float64(f), 0) || math.IsInf(r.nodata, 0), true
		case kF64:
			c.nd, c.hasND, c.ndF = r.nodata, true, true
		default:
			// An integer band matches only an integral nodata value.
			c.nd, c.hasND = r.nodata, r.nodata == math.Trunc(r.nodata)
		}
	}
	return c
}

// fltEps2 is 2 × FLT_EPSILON: GDAL's ARE_REAL_EQUAL tolerance for nodata.
const fltEps2 = 2 * 1.1920928955078125e-07

func (c *rowConv) finish(bits uint64) float64 {
	var v float64
	switch c.kind {
	case kU8, kU16, kU32, kU64:
		v = float64(bits)
	case kI8:
		v = float64(int8(bits))
	case kI16:
		v = float64(int16(bits))
	case kI32:
		v = float64(int32(bits))
	case kI64:
		v = float64(int64(bits))
	case kF32:
		v = float64(math.Float32frombits(uint32(bits)))
	case kF64:
		v = math.Float64frombits(bits)
	}
	if c.hasND && (v == c.nd || c.ndF && math.Abs(v-c.nd) < fltEps2*math.Abs(v+c.nd)) {
		return math.NaN()
	}
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// float32 is finish for float32 samples, the common case, kept small
// enough to inline.
func (c *rowConv) float32(bits uint32) float64 {
	v := float64(math.Float32frombits(bits))
	if v-v != 0 || c.hasND && (v == c.nd || math.Abs(v-c.nd) < fltEps2*math.Abs(v+c.nd)) {
		return math.NaN() // NaN, ±Inf or nodata
	}
	return v
}

func (c *rowConv) load(p []byte) uint64 {
	if c.le {
		switch c.size {
		case 1:
			return uint64(p[0])
		case 2:
			return uint64(binary.LittleEndian.Uint16(p))
		case 4:
			return uint64(binary.LittleEndian.Uint32(p))
		default:
			return binary.LittleEndian.Uint64(p)
		}
	}
	switch c.size {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	default:
		return binary.BigEndian.Uint64(p)
	}
}

// convert decodes the first len(dst) pixels of the chunk row raw (which
// holds the whole chunk row, as the predictors need). raw is modified.
func (c *rowConv) convert(raw []byte, dst []float64) {
	n := len(dst)
	switch c.pred {
	case predFloatingPnt:
		// TIFF Technical Note 3: the row's sample bytes were split into
		// planes, then differenced along the whole row (step: samples per
		// pixel). Plane k holds byte size-1-k of each sample as stored in
		// the file's byte order: the most significant byte first in a
		// little-endian file, the least significant first in a big-endian
		// one. (libtiff is host-dependent here; this is what it and GDAL
		// write and read on little-endian machines, where such files come
		// from.)
		s := c.stride
		if s == 1 {
			var acc byte
			for i, b := range raw {
				acc += b
				raw[i] = acc
			}
		} else {
			for i := s; i < len(raw); i++ {
				raw[i] += raw[i-s]
			}
		}
		wc := len(raw) / c.size
		if c.kind == kF32 && s == 1 {
			p0, p1, p2, p3 := raw[:wc], raw[wc:2*wc], raw[2*wc:3*wc], raw[3*wc:4*wc]
			if !c.le {
				p0, p1, p2, p3 = p3, p2, p1, p0
			}
			p0, p1, p2, p3 = p0[:n], p1[:n], p2[:n], p3[:n]
			for x := range dst[:n] {
				dst[x] = c.float32(uint32(p0[x])<<24 | uint32(p1[x])<<16 | uint32(p2[x])<<8 | uint32(p3[x]))
			}
			return
		}
		for x := 0; x < n; x++ {
			i := x*s + c.sample
			var b uint64
			for k := 0; k < c.size; k++ {
				if c.le {
					b = b<<8 | uint64(raw[k*wc+i])
				} else {
					b |= uint64(raw[k*wc+i]) << (8 * k)
				}
			}
			dst[x] = c.finish(b)
		}
	case predHorizontal:
		// Differences of the integer samples of one band, modulo 2^bits
		// (floats too: GDAL allows it and differences their bit patterns).
		mask := ^uint64(0)
		if c.size < 8 {
			mask = 1<<(8*c.size) - 1
		}
		var acc uint64
		step := c.stride * c.size
		off := c.sample * c.size
		for x := 0; x < n; x++ {
			acc = (acc + c.load(raw[off:])) & mask
			dst[x] = c.finish(acc)
			off += step
		}
	default:
		if c.kind == kF32 && c.le && c.stride == 1 {
			raw = raw[:4*n]
			for x := range dst[:n] {
				dst[x] = c.float32(binary.LittleEndian.Uint32(raw[4*x:]))
			}
			return
		}
		step := c.stride * c.size
		off := c.sample * c.size
		for x := 0; x < n; x++ {
			dst[x] = c.finish(c.load(raw[off:]))
			off += step
		}
	}
}

// A block is a band of whole image rows decoded together: one row of tiles,
// or one or more strips (or a part of a tall strip).
type block struct {
	y0, rows int
	pieces   []piece
	vals     []float64 // rows × width, row-major
	cont     bool      // the first piece goes on with the previous block's last strip
}

// piece is the part of one chunk a block needs.
type piece struct {
	chunk   int
	dstRow  int // first block row it fills
	rows    int
	x0, w   int     // block columns it fills
	hold    *holder // for a strip split across blocks: its open stream
	lastUse bool    // the hold's stream ends with this piece
}

// holder keeps a tall strip's stream open between the blocks that share it;
// those blocks are decoded one after another, never at once.
type holder struct{ s *stream }

// planner cuts the band's chunks into blocks, top to bottom.
type planner struct {
	r        *Raster
	plane    int
	next     int // next strip or tile row
	stripRow int // rows of strip next already planned
	hold     *holder
	goalRows int
}

func (r *Raster) newPlanner(band int) *planner {
	p := &planner{r: r, goalRows: max(1, stripBlockGoal/(8*r.width))}
	if r.planar {
		p.plane = band
	}
	return p
}

func (p *planner) chunkIndex(row, col int) int {
	return (p.plane*p.r.down+row)*p.r.across + col
}

// fill plans the next block into b; it returns false when none is left.
func (p *planner) fill(b *block) bool {
	r := p.r
	if p.next >= r.down {
		return false
	}
	b.pieces = b.pieces[:0]
	b.y0 = p.next*r.chunkH + p.stripRow
	b.rows = 0
	b.cont = p.stripRow > 0
	if r.tiled {
		b.rows = min(r.chunkH, r.height-b.y0)
		for tc := 0; tc < r.across; tc++ {
			x0 := tc * r.chunkW
			b.pieces = append(b.pieces, piece{chunk: p.chunkIndex(p.next, tc), rows: b.rows, x0: x0, w: min(r.chunkW, r.width-x0)})
		}
		p.next++
		return true
	}
	for p.next < r.down && b.rows < p.goalRows {
		idx := p.chunkIndex(p.next, 0)
		left := r.chunkRows(idx) - p.stripRow
		if p.stripRow == 0 && left <= p.goalRows-b.rows {
			b.pieces = append(b.pieces, piece{chunk: idx, dstRow: b.rows, rows: left, w: r.width})
			b.rows += left
			p.next++
			continue
		}
		k := min(left, p.goalRows-b.rows)
		if p.hold == nil {
			p.hold = &holder{}
		}
		b.pieces = append(b.pieces, piece{chunk: idx, dstRow: b.rows, rows: k, w: r.width, hold: p.hold, lastUse: k == left})
		b.rows += k
		p.stripRow += k
		if k == left {
			p.next, p.stripRow, p.hold = p.next+1, 0, nil
		}
	}
	return true
}

// worker decodes pieces; each worker goroutine has its own row buffer.
type worker struct {
	r    *Raster
	conv *rowConv
	raw  []byte
}

func (w *worker) do(ctx context.Context, p *piece, b *block) error {
	r := w.r
	width := r.width
	if r.sparse(p.chunk) {
		fill := 0.0
		if r.hasNodata {
			fill = math.NaN()
		}
		for i := 0; i < p.rows; i++ {
			o := (p.dstRow+i)*width + p.x0
			dst := b.vals[o : o+p.w]
			for x := range dst {
				dst[x] = fill
			}
		}
		if p.hold != nil && p.lastUse {
			p.hold.s = nil
		}
		return nil
	}
	st := (*stream)(nil)
	if p.hold != nil {
		st = p.hold.s
	}
	if st == nil {
		var err error
		if st, err = r.openStream(p.chunk); err != nil {
			return err
		}
		if p.hold != nil {
			p.hold.s = st
		}
	}
	if p.hold == nil || p.lastUse {
		defer func() {
			st.close()
			if p.hold != nil {
				p.hold.s = nil
			}
		}()
	}
	for i := 0; i < p.rows; i++ {
		if i&31 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := st.readRow(w.raw); err != nil {
			return err
		}
		o := (p.dstRow+i)*width + p.x0
		w.conv.convert(w.raw, b.vals[o:o+p.w])
	}
	return nil
}

// blockJob is a block being decoded: workers take its pieces in turn.
type blockJob struct {
	b    *block
	next atomic.Int64
	wg   sync.WaitGroup // one Done per copy of the job handed to a worker
	mu   sync.Mutex
	err  error
}

func (j *blockJob) fail(err error) {
	j.mu.Lock()
	if j.err == nil {
		j.err = err
	}
	j.mu.Unlock()
}

// decodeBlocks decodes the band (0-based) block by block on workers
// goroutines and hands each block to fn in order on the calling goroutine.
// While fn runs, the next blocks are decoded: up to three blocks are alive
// (two when a block is over 64 MiB). Workers take pieces from the block
// they were handed, so that the producer does not hand over every strip.
func (r *Raster) decodeBlocks(ctx context.Context, band, workers int, fn func(b *block) error) error {
	if workers < 1 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	work := make(chan *blockJob)
	var wwg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			w := &worker{r: r, conv: r.newConv(band), raw: make([]byte, r.chunkRowBytes())}
			for j := range work {
				for {
					i := int(j.next.Add(1) - 1)
					if i >= len(j.b.pieces) {
						break
					}
					if err := w.do(ctx, &j.b.pieces[i], j.b); err != nil {
						j.fail(err)
						cancel()
						break
					}
				}
				j.wg.Done()
			}
		}()
	}

	nbuf := 3
	pl := r.newPlanner(band)
	if rows := max(pl.goalRows, r.chunkH); r.tiled && rows*r.width*8 > 64<<20 {
		nbuf = 2
	}
	free := make(chan *block, nbuf)
	for i := 0; i < nbuf; i++ {
		free <- &block{}
	}
	inflight := make(chan *blockJob, nbuf)
	go func() {
		defer close(inflight)
		var prev *blockJob
		for {
			var b *block
			select {
			case b = <-free:
			case <-ctx.Done():
				return
			}
			if !pl.fill(b) {
				return
			}
			if need := b.rows * r.width; cap(b.vals) < need {
				b.vals = make([]float64, need)
			} else {
				b.vals = b.vals[:need]
			}
			j := &blockJob{b: b}
			if b.cont && prev != nil {
				// The strip continues from the previous block through the
				// same stream: its rows must be read after the previous ones.
				prev.wg.Wait()
			}
			j.wg.Add(workers)
			for k := 0; k < workers; k++ {
				select {
				case work <- j:
				case <-ctx.Done():
					j.wg.Add(k - workers) // copies never handed over
					inflight <- j         // never blocks: at most nbuf jobs exist
					return
				}
			}
			inflight <- j
			prev = j
		}
	}()

	var err error
	for j := range inflight {
		j.wg.Wait()
		if err == nil {
			if err = j.err; err == nil {
				err = ctx.Err()
			}
			if err == nil {
				err = fn(j.b)
			}
			if err != nil {
				cancel()
			}
		}
		free <- j.b
	}
	close(work)
	wwg.Wait()
	if perr := parent.Err(); perr != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return perr
	}
	return err
}

// Rows calls fn with each pixel row of band (numbered from 1), top to
// bottom: y is the row number and vals its width values, with nodata, NaN
// and infinite pixels as NaN. vals is reused once fn returns. Strips or
// tiles are decoded on up to GOMAXPROCS goroutines, fn runs on the calling
// goroutine. It stops at the first error from fn or from decoding (which
// names the file, the strip or tile and the reason) and when ctx is done.
func (r *Raster) Rows(ctx context.Context, band int, fn func(y int, vals []float64) error) error {
	if err := r.checkBand(band); err != nil {
		return err
	}
	return r.decodeBlocks(ctx, band-1, 0, func(b *block) error {
		for i := 0; i < b.rows; i++ {
			if err := fn(b.y0+i, b.vals[i*r.width:(i+1)*r.width]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *Raster) checkBand(band int) error {
	if band < 1 || band > r.spp {
		return fmt.Errorf("%s: band %d does not exist: the raster has %d band(s), numbered from 1", r.t.name, band, r.spp)
	}
	return nil
}
