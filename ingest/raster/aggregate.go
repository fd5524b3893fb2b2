package raster

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"frameindex/grid"
)

// Aggregation says how the pixels over a frame become the frame's value.
// Every pixel counts by the area (in degree space) it shares with the frame.
type Aggregation int

const (
	// Sum splits each pixel's value among the frames it overlaps by the
	// share of its area in each, so the raster's total is kept (as
	// gdalwarp -r sum does).
	Sum Aggregation = iota + 1
	// Mean is the overlap-area-weighted mean of the valid pixels over the
	// frame (as gdalwarp -r average does).
	Mean
	// Mode is the value with the largest total overlap area over the frame;
	// ties go to the smallest value.
	Mode
)

// String returns "sum", "mean" or "mode".
func (a Aggregation) String() string {
	switch a {
	case Sum:
		return "sum"
	case Mean:
		return "mean"
	case Mode:
		return "mode"
	}
	return fmt.Sprintf("Aggregation(%d)", int(a))
}

// ParseAggregation parses "sum", "mean" or "mode" (any case); anything else
// is an error that lists the three.
func ParseAggregation(s string) (Aggregation, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "sum":
		return Sum, nil
	case "mean":
		return Mean, nil
	case "mode":
		return Mode, nil
	}
	return 0, fmt.Errorf("unknown aggregation %q: want sum, mean or mode", s)
}

// Option adjusts Frames.
type Option func(*options)

type options struct {
	progress func(rowsDone, rows int)
	workers  int
}

// WithProgress has Frames call fn on the calling goroutine after each
// block of rows is aggregated, with the number of raster rows done so far
// and the raster's height.
func WithProgress(fn func(rowsDone, rows int)) Option {
	return func(o *options) { o.progress = fn }
}

// WithWorkers sets how many goroutines decode strips or tiles (default
// GOMAXPROCS, at most 8).
func WithWorkers(n int) Option {
	return func(o *options) { o.workers = n }
}

// maxAccCells bounds the accumulators alive at once: pixels so large that
// one row of them spans more frames than this are refused.
const maxAccCells = 1 << 24

// edgeEps is how close, in frame widths, a pixel edge must be to a lattice
// line to be taken as on it; it absorbs float rounding of the geotransform
// (as grid's snap does), so that a pixel whose edge lies on a frame edge
// leaves no sliver of weight in the next frame. Open refuses pixels under
// 1e-7° (1e-5 frame widths), far above it.
const edgeEps = 1e-9

func snapEdge(v float64) float64 {
	if r := math.Round(v); math.Abs(v-r) < edgeEps {
		return r
	}
	return v
}

// span is a lattice row or column with the share of a pixel's width or
// height that lies in it.
type span struct {
	i int32
	w float64
}

// spans appends to dst the lattice lines overlapped by [a, b) (in lattice
// units) clipped to [0, n), with the share of b-a in each; whole is true
// when the interval lies in one line unclipped (share exactly 1).
func spans(dst []span, a, b float64, n int) []span {
	full := b - a
	ac, bc := max(a, 0), min(b, float64(n))
	if !(bc > ac) { // also when NaN
		return dst
	}
	first, last := int(math.Floor(ac)), int(math.Ceil(bc))-1
	if first == last && ac == a && bc == b {
		return append(dst, span{int32(first), 1})
	}
	for i := first; i <= last; i++ {
		w := min(bc, float64(i+1)) - max(ac, float64(i))
		if w > 0 {
			dst = append(dst, span{int32(i), w / full})
		}
	}
	return dst
}

type cellAcc struct{ s, w float64 }

type modeEnt struct {
	c    int32
	v, w float64
}

// accRow accumulates one lattice row over the raster's columns.
type accRow struct {
	r     int
	cells []cellAcc // Sum, Mean
	modes []modeEnt // Mode: (column, value, area) in arrival order
}

// aggregator turns pixel rows, top to bottom, into frame values, emitting
// each lattice row once no later pixel row can touch it.
type aggregator struct {
	agg  Aggregation
	emit func(uint64, float64) error

	c0, ncols int
	// Per raster column: the relative lattice column when the pixel lies
	// wholly in one (-1: see cols[off[x]:off[x+1]]; -2: outside the world).
	single    []int32
	off       []int32
	cols      []span
	allSingle bool

	v0, pv  float64 // top edge of row 0 and pixel height, in lattice rows
	rowSpan []span

	live []*accRow // consecutive lattice rows, ascending
	free []*accRow

	byCol    []modeEnt // Mode: scratch for grouping a row's entries
	colStart []int32
}

func (r *Raster) newAggregator(agg Aggregation, emit func(uint64, float64) error) (*aggregator, error) {
	switch agg {
	case Sum, Mean, Mode:
	default:
		return nil, fmt.Errorf("%s: unknown aggregation %d", r.t.name, int(agg))
	}
	a := &aggregator{agg: agg, emit: emit,
		v0: (90 - r.tr.y0) * grid.CellsPerDegree, pv: r.tr.dy * grid.CellsPerDegree}
	u0, pu := (r.tr.x0+180)*grid.CellsPerDegree, r.tr.dx*grid.CellsPerDegree
	edge := func(x int) float64 { return snapEdge(u0 + float64(x)*pu) }
	left, right := max(edge(0), 0), min(edge(r.width), grid.Cols)
	if !(right > left) {
		return nil, fmt.Errorf("%s: the raster lies outside longitudes -180…180", r.t.name)
	}
	a.c0 = int(math.Floor(left))
	a.ncols = int(math.Ceil(right)) - a.c0
	if rows := math.Min(math.Ceil(a.pv), grid.Rows) + 2; rows*float64(a.ncols) > maxAccCells {
		return nil, fmt.Errorf("%s: pixels of %g° span %g frame rows each; one row of them would need %g accumulators, more than the %d allowed: resample to smaller pixels first, e.g. gdalwarp -tr 0.008333333333333333 0.008333333333333333",
			r.t.name, r.tr.dy, rows-2, rows*float64(a.ncols), maxAccCells)
	}
	a.single = make([]int32, r.width)
	a.off = make([]int32, r.width+1)
	a.allSingle = true
	var buf []span
	for x := 0; x < r.width; x++ {
		buf = spans(buf[:0], edge(x), edge(x+1), grid.Cols)
		a.off[x] = int32(len(a.cols))
		switch {
		case len(buf) == 0:
			a.single[x] = -2
			a.allSingle = false
		case len(buf) == 1 && buf[0].w == 1:
			a.single[x] = buf[0].i - int32(a.c0)
		default:
			a.single[x] = -1
			a.allSingle = false
			for _, s := range buf {
				a.cols = append(a.cols, span{s.i - int32(a.c0), s.w})
			}
		}
	}
	a.off[r.width] = int32(len(a.cols))
	return a, nil
}

// row returns the accumulator of lattice row R, creating it and any rows
// between the last live one and it.
func (a *aggregator) row(R int) *accRow {
	if n := len(a.live); n > 0 {
		i := R - a.live[0].r
		for i < 0 { // not expected (rows arrive top to bottom), but stay correct
			a.live = slices.Insert(a.live, 0, a.newRow(a.live[0].r-1))
			i++
		}
		if i < len(a.live) {
			return a.live[i]
		}
	}
	for len(a.live) == 0 || a.live[len(a.live)-1].r < R {
		next := R
		if n := len(a.live); n > 0 {
			next = a.live[n-1].r + 1
		}
		a.live = append(a.live, a.newRow(next))
	}
	return a.live[len(a.live)-1]
}

func (a *aggregator) newRow(R int) *accRow {
	var ar *accRow
	if n := len(a.free); n > 0 {
		ar, a.free = a.free[n-1], a.free[:n-1]
	} else {
		ar = &accRow{}
		if a.agg != Mode {
			ar.cells = make([]cellAcc, a.ncols)
		}
	}
	ar.r = R
	return ar
}

// flushBefore emits and recycles the live rows above lattice row R.
func (a *aggregator) flushBefore(R int) error {
	k := 0
	for k < len(a.live) && a.live[k].r < R {
		if err := a.flush(a.live[k]); err != nil {
			return err
		}
		a.free = append(a.free, a.live[k])
		k++
	}
	if k > 0 {
		n := copy(a.live, a.live[k:])
		clear(a.live[n:])
		a.live = a.live[:n]
	}
	return nil
}

func (a *aggregator) flush(ar *accRow) error {
	base := grid.CellID(ar.r, a.c0)
	switch a.agg {
	case Sum, Mean:
		for c := range ar.cells {
			acc := ar.cells[c]
			if acc.w <= 0 {
				continue
			}
			v := acc.s
			if a.agg == Mean {
				v /= acc.w
			}
			if err := a.emit(base+uint64(c), v); err != nil {
				return err
			}
		}
		clear(ar.cells)
	case Mode:
		// Group the row's entries by column with a counting sort (they
		// arrive in column order per pixel row), then find each column's
		// mode by sorting its few entries by value.
		m := ar.modes
		if cap(a.byCol) < len(m) {
			a.byCol = make([]modeEnt, len(m))
		}
		sorted := a.byCol[:len(m)]
		if cap(a.colStart) < a.ncols+1 {
			a.colStart = make([]int32, a.ncols+1)
		}
		start := a.colStart[:a.ncols+1]
		clear(start)
		for _, e := range m {
			start[e.c+1]++
		}
		for c := 1; c <= a.ncols; c++ {
			start[c] += start[c-1]
		}
		for _, e := range m {
			sorted[start[e.c]] = e
			start[e.c]++
		}
		// start[c] is now the end of column c's entries.
		lo := 0
		for c := 0; c < a.ncols; c++ {
			hi := int(start[c])
			if hi == lo {
				continue
			}
			g := sorted[lo:hi]
			lo = hi
			slices.SortFunc(g, func(p, q modeEnt) int { return cmp.Compare(p.v, q.v) })
			bestV, bestW := 0.0, -1.0
			for i := 0; i < len(g); {
				v, w := g[i].v, 0.0
				for i < len(g) && g[i].v == v {
					w += g[i].w
					i++
				}
				// Values come in ascending order, so a tie (equal within
				// rounding) keeps the smaller value.
				if w > bestW*(1+1e-9) {
					bestV, bestW = v, w
				}
			}
			if err := a.emit(base+uint64(c), bestV); err != nil {
				return err
			}
		}
		ar.modes = m[:0]
	}
	return nil
}

// addRow adds pixel row y (NaN = missing) to the accumulators.
func (a *aggregator) addRow(y int, vals []float64) error {
	top, bottom := snapEdge(a.v0+float64(y)*a.pv), snapEdge(a.v0+float64(y+1)*a.pv)
	a.rowSpan = spans(a.rowSpan[:0], top, bottom, grid.Rows)
	if len(a.rowSpan) == 0 {
		return nil
	}
	if err := a.flushBefore(int(a.rowSpan[0].i)); err != nil {
		return err
	}
	for _, rs := range a.rowSpan {
		ar := a.row(int(rs.i))
		if a.agg == Mode {
			a.addMode(ar, vals, rs.w)
		} else {
			a.addSum(ar.cells, vals, rs.w)
		}
	}
	return nil
}

func (a *aggregator) addSum(cells []cellAcc, vals []float64, fy float64) {
	single := a.single[:len(vals)]
	if a.allSingle && fy == 1 {
		// Aligned fast path: each pixel lies wholly in one frame.
		for x, v := range vals {
			if v != v {
				continue
			}
			c := &cells[single[x]]
			c.s += v
			c.w++
		}
		return
	}
	for x, v := range vals {
		if v != v {
			continue
		}
		switch s := single[x]; {
		case s >= 0:
			c := &cells[s]
			c.s += v * fy
			c.w += fy
		case s == -1:
			for _, e := range a.cols[a.off[x]:a.off[x+1]] {
				w := e.w * fy
				c := &cells[e.i]
				c.s += v * w
				c.w += w
			}
		}
	}
}

func (a *aggregator) addMode(ar *accRow, vals []float64, fy float64) {
	m := ar.modes
	add := func(c int32, v, w float64) {
		if n := len(m); n > 0 && m[n-1].c == c && m[n-1].v == v {
			m[n-1].w += w
			return
		}
		m = append(m, modeEnt{c, v, w})
	}
	for x, v := range vals {
		if v != v {
			continue
		}
		switch s := a.single[x]; {
		case s >= 0:
			add(s, v, fy)
		case s == -1:
			for _, e := range a.cols[a.off[x]:a.off[x+1]] {
				add(e.i, v, e.w*fy)
			}
		}
	}
	ar.modes = m
}

// finish emits every row still alive.
func (a *aggregator) finish() error {
	return a.flushBefore(math.MaxInt)
}

// Frames aggregates band (numbered from 1) onto the frame lattice by agg
// and calls emit once for every frame that at least one valid pixel
// overlaps, in ascending frame id order (row by row from the north, west to
// east). Frames no valid pixel touches are not emitted; nodata, NaN and
// infinite pixels count as absent. Pixels outside ±180° longitude or ±90°
// latitude are ignored.
//
// Memory is bounded by two decoded blocks (a row of tiles, or a few MiB of
// strip rows) plus the accumulators of the lattice rows the current pixel
// row touches; the raster is never held whole. Decoding runs on worker
// goroutines (see WithWorkers); emit and the progress function run on the
// calling goroutine, one call at a time.
//
// It returns the first error from emit unchanged, a decoding error naming
// the file, the strip or tile and the reason, or ctx's error once ctx is
// done (checked at least every pixel row).
func (r *Raster) Frames(ctx context.Context, band int, agg Aggregation, emit func(frame uint64, v float64) error, opts ...Option) error {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if err := r.checkBand(band); err != nil {
		return err
	}
	a, err := r.newAggregator(agg, emit)
	if err != nil {
		return err
	}
	err = r.decodeBlocks(ctx, band-1, o.workers, func(b *block) error {
		for i := 0; i < b.rows; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := a.addRow(b.y0+i, b.vals[i*r.width:(i+1)*r.width]); err != nil {
				return err
			}
		}
		if o.progress != nil {
			o.progress(b.y0+b.rows, r.height)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return a.finish()
}
