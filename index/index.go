package index

import (
	"cmp"
	"slices"

	"github.com/tidwall/rtree"

	"frameindex/grid"
)

// Index is an immutable snapshot of one grid, either lattice runs or imported
// polygon frames. All methods are safe for concurrent use by any number of
// goroutines. Only Box on a polygon index allocates (one heap of at most
// limit+1 positions; see Box). The zero Index and a nil *Index are empty.
type Index struct {
	n      int
	bounds grid.Box

	// Lattice grids: runs sorted by row and column, merged, and a per-row
	// table: the runs of row row0+i are runs[rowStart[i]:rowStart[i+1]].
	runs     []grid.Run
	row0     int
	rowStart []int32
	runPos   []int32 // frames before each run: the position of its first cell

	// Polygon grids: frames sorted by id; tree holds each frame's bounds
	// with its position in these slices.
	polygons bool
	ids      []uint64
	boxes    []grid.Box
	geoms    []grid.MultiPolygon
	tree     rtree.RTreeG[int32]
}

// NewLattice indexes a lattice grid given as runs of cells. The runs may
// come in any order and may overlap; they are sorted and merged into a copy
// (runs itself is not kept or modified). Runs outside the lattice are
// dropped and columns are clamped to it. Cost: O(r log r) for r runs, and
// memory proportional to the runs and the rows they span, never to the
// number of cells.
func NewLattice(runs []grid.Run) *Index {
	merged := grid.MergeRuns(runs)
	ix := &Index{runs: merged}
	if len(merged) == 0 {
		return ix
	}
	ix.row0 = int(merged[0].Row)
	nrows := int(merged[len(merged)-1].Row) - ix.row0 + 1
	ix.rowStart = make([]int32, nrows+1)
	ix.runPos = make([]int32, len(merged))
	minCol, maxCol := merged[0].Col0, merged[0].Col1
	k := 0
	for i := 0; i < nrows; i++ {
		ix.rowStart[i] = int32(k)
		for k < len(merged) && int(merged[k].Row) == ix.row0+i {
			r := merged[k]
			ix.runPos[k] = int32(ix.n)
			ix.n += r.Len()
			minCol, maxCol = min(minCol, r.Col0), max(maxCol, r.Col1)
			k++
		}
	}
	ix.rowStart[nrows] = int32(k)
	ix.bounds = grid.Box{
		MinLon: grid.Lon(int(minCol)), MaxLon: grid.Lon(int(maxCol) + 1),
		MinLat: grid.Lat(ix.row0 + nrows), MaxLat: grid.Lat(ix.row0),
	}
	return ix
}

// NewPolygons indexes imported polygon frames. The frames are copied into id
// order; the MultiPolygons themselves are shared, not copied, and must not be
// modified afterwards. Frames should have unique ids (the importer refuses
// duplicates); if an id repeats, the first frame with it is kept. A frame
// whose geometry has no points is known to Shape but found by no query.
// Geometries should pass MultiPolygon.Validate; queries on invalid ones
// follow the even-odd rule and never panic. Cost: O(n log n) plus one R-tree
// insertion per frame (about a second per million frames).
func NewPolygons(frames []grid.Frame) *Index {
	sorted := slices.Clone(frames)
	slices.SortStableFunc(sorted, func(a, b grid.Frame) int { return cmp.Compare(a.ID, b.ID) })
	sorted = slices.CompactFunc(sorted, func(a, b grid.Frame) bool { return a.ID == b.ID })
	ix := &Index{
		polygons: true,
		n:        len(sorted),
		ids:      make([]uint64, len(sorted)),
		boxes:    make([]grid.Box, len(sorted)),
		geoms:    make([]grid.MultiPolygon, len(sorted)),
	}
	first := true
	for i, f := range sorted {
		ix.ids[i], ix.geoms[i] = f.ID, f.Geom
		b := f.Geom.Bounds()
		ix.boxes[i] = b
		if !hasPoints(f.Geom) {
			continue
		}
		ix.tree.Insert([2]float64{b.MinLon, b.MinLat}, [2]float64{b.MaxLon, b.MaxLat}, int32(i))
		if first {
			ix.bounds, first = b, false
		} else {
			ix.bounds = ix.bounds.Union(b)
		}
	}
	return ix
}

func hasPoints(m grid.MultiPolygon) bool {
	for _, p := range m {
		for _, r := range p {
			if len(r) > 0 {
				return true
			}
		}
	}
	return false
}

// Len returns the number of frames.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	return ix.n
}

// Bounds returns the box holding every frame (zero Box when empty).
func (ix *Index) Bounds() grid.Box {
	if ix == nil {
		return grid.Box{}
	}
	return ix.bounds
}

// At returns the frame holding the point (east/south rule), if any. A point
// outside lat [-90, 90], lon [-180, 180], or NaN, is on no frame.
//
// Lattice grids: grid.CellAt, then a binary search among the runs of the
// row; no allocation. Polygon grids: R-tree candidates whose bounds hold the
// point, then exact grid.MultiPolygon.ContainsPoint; where imported frames
// overlap, the lowest id wins.
func (ix *Index) At(lat, lon float64) (grid.Shape, bool) {
	if ix == nil || ix.n == 0 || !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180) {
		return grid.Shape{}, false
	}
	if ix.polygons {
		return ix.polygonAt(lat, lon)
	}
	row, col := grid.CellAt(lat, lon)
	if !ix.hasCell(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(grid.CellID(row, col)), true
}

// rowRuns returns the runs of a lattice row (nil for a row without any).
func (ix *Index) rowRuns(row int) []grid.Run {
	i := row - ix.row0
	if i < 0 || i >= len(ix.rowStart)-1 {
		return nil
	}
	return ix.runs[ix.rowStart[i]:ix.rowStart[i+1]]
}

// firstRunFrom returns the index of the first run of rs that ends at or
// after col.
func firstRunFrom(rs []grid.Run, col int) int {
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(rs[mid].Col1) < col {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func (ix *Index) hasCell(row, col int) bool {
	rs := ix.rowRuns(row)
	i := firstRunFrom(rs, col)
	return i < len(rs) && int(rs[i].Col0) <= col
}

func (ix *Index) polygonAt(lat, lon float64) (grid.Shape, bool) {
	best := int32(-1)
	p := [2]float64{lon, lat}
	ix.tree.Search(p, p, func(_, _ [2]float64, i int32) bool {
		if (best < 0 || i < best) && ix.geoms[i].ContainsPoint(lon, lat) {
			best = i
		}
		return true
	})
	if best < 0 {
		return grid.Shape{}, false
	}
	return ix.shapeAt(int(best)), true
}

func (ix *Index) shapeAt(i int) grid.Shape {
	return grid.Shape{ID: ix.ids[i], Box: ix.boxes[i], Geom: ix.geoms[i]}
}

// Shape returns the frame with the given id, if the grid has it. The Geom of
// an imported frame is shared with the index and must not be modified.
func (ix *Index) Shape(id uint64) (grid.Shape, bool) {
	if ix == nil {
		return grid.Shape{}, false
	}
	if ix.polygons {
		i, ok := slices.BinarySearch(ix.ids, id)
		if !ok {
			return grid.Shape{}, false
		}
		return ix.shapeAt(i), true
	}
	row, col, ok := grid.RowCol(id)
	if !ok || !ix.hasCell(row, col) {
		return grid.Shape{}, false
	}
	return grid.LatticeShape(id), true
}

// Polygons reports whether the grid is of imported polygon frames rather
// than lattice cells.
func (ix *Index) Polygons() bool { return ix != nil && ix.polygons }

// Pos returns the position of frame id among the grid's frames in
// ascending id order (0 to Len()-1), if the grid has it: a dense key for
// per-frame columns. O(log runs) or O(log frames); no allocation.
func (ix *Index) Pos(id uint64) (int, bool) {
	if ix == nil {
		return 0, false
	}
	if ix.polygons {
		return slices.BinarySearch(ix.ids, id)
	}
	row, col, ok := grid.RowCol(id)
	if !ok {
		return 0, false
	}
	rs := ix.rowRuns(row)
	i := firstRunFrom(rs, col)
	if i >= len(rs) || int(rs[i].Col0) > col {
		return 0, false
	}
	k := int(ix.rowStart[row-ix.row0]) + i
	return int(ix.runPos[k]) + col - int(rs[i].Col0), true
}

// IDAt returns the id of the frame at position pos (see Pos); pos must be
// in [0, Len()).
func (ix *Index) IDAt(pos int) uint64 {
	if ix.polygons {
		return ix.ids[pos]
	}
	k, found := slices.BinarySearch(ix.runPos, int32(pos))
	if !found {
		k--
	}
	r := ix.runs[k]
	return grid.CellID(int(r.Row), int(r.Col0)+pos-int(ix.runPos[k]))
}

// ShapeAt returns the shape of the frame at position pos (see Pos); pos
// must be in [0, Len()).
func (ix *Index) ShapeAt(pos int) grid.Shape {
	if ix.polygons {
		return ix.shapeAt(pos)
	}
	return grid.LatticeShape(ix.IDAt(pos))
}

// Box calls fn for the frames touching the closed box b, in ascending id
// order, at most limit of them; truncated reports that more than limit
// frames touch the box. fn returning false stops the walk (truncated is then
// false). A limit <= 0 calls fn for no frame and reports truncated when any
// frame touches the box. A box with NaN or inverted edges holds nothing; a
// box reaching outside the world is clipped to it.
//
// Lattice grids walk the rows of the box and the runs of each row that meet
// its columns, in id order (row-major order is id order): the cost is
// O(rows + frames emitted), never the number of frames in the box, and
// nothing is allocated.
//
// Polygon grids search the R-tree for frames whose bounds touch the box and
// test each exactly with grid.MultiPolygon.IntersectsBox (skipped when the
// bounds lie inside the box, and for candidates whose id is above the
// lowest limit+1 found so far). The lowest limit+1 positions are kept in a
// heap: time O(k log limit) plus the exact tests for k candidates, memory
// O(limit), so a box over a million frames costs a scan of them but never
// holds them.
func (ix *Index) Box(b grid.Box, limit int, fn func(grid.Shape) bool) (truncated bool) {
	if ix == nil || ix.n == 0 {
		return false
	}
	if !(b.MinLon <= b.MaxLon && b.MinLat <= b.MaxLat) ||
		b.MaxLon < -180 || b.MinLon > 180 || b.MaxLat < -90 || b.MinLat > 90 {
		return false
	}
	b = grid.Box{MinLon: max(b.MinLon, -180), MinLat: max(b.MinLat, -90), MaxLon: min(b.MaxLon, 180), MaxLat: min(b.MaxLat, 90)}
	if !b.Intersects(ix.bounds) {
		return false
	}
	limit = max(limit, 0)
	if ix.polygons {
		return ix.polygonBox(b, limit, fn)
	}
	return ix.latticeBox(b, limit, fn)
}

func (ix *Index) latticeBox(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
	r0, r1 := grid.RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := grid.ColSpan(b.MinLon, b.MaxLon)
	r0 = max(r0, ix.row0)
	r1 = min(r1, ix.row0+len(ix.rowStart)-2)
	emitted := 0
	for row := r0; row <= r1; row++ {
		rs := ix.rowRuns(row)
		for i := firstRunFrom(rs, c0); i < len(rs) && int(rs[i].Col0) <= c1; i++ {
			from, to := max(int(rs[i].Col0), c0), min(int(rs[i].Col1), c1)
			for col := from; col <= to; col++ {
				if emitted == limit {
					return true
				}
				if !fn(grid.LatticeShape(grid.CellID(row, col))) {
					return false
				}
				emitted++
			}
		}
	}
	return false
}

// maxHeap is a binary max-heap of frame positions (hand-written: the
// container/heap interface would box every push).
type maxHeap []int32

func (h *maxHeap) push(x int32) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] >= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

// replaceTop replaces the largest element with x and restores the heap.
func (h maxHeap) replaceTop(x int32) {
	h[0] = x
	for i := 0; ; {
		l, r, big := 2*i+1, 2*i+2, i
		if l < len(h) && h[l] > h[big] {
			big = l
		}
		if r < len(h) && h[r] > h[big] {
			big = r
		}
		if big == i {
			return
		}
		h[i], h[big] = h[big], h[i]
		i = big
	}
}

func (ix *Index) polygonBox(b grid.Box, limit int, fn func(grid.Shape) bool) bool {
	keep := min(limit, ix.n) + 1 // the lowest keep positions decide output and truncated
	h := make(maxHeap, 0, min(keep, 1024))
	ix.tree.Search([2]float64{b.MinLon, b.MinLat}, [2]float64{b.MaxLon, b.MaxLat},
		func(_, _ [2]float64, i int32) bool {
			if len(h) == keep && i > h[0] {
				return true // cannot be among the lowest keep
			}
			fb := ix.boxes[i]
			inside := fb.MinLon >= b.MinLon && fb.MaxLon <= b.MaxLon && fb.MinLat >= b.MinLat && fb.MaxLat <= b.MaxLat
			if !inside && !ix.geoms[i].IntersectsBox(b) {
				return true
			}
			if len(h) < keep {
				h.push(i)
			} else {
				h.replaceTop(i)
			}
			return true
		})
	slices.Sort(h)
	truncated := len(h) > limit
	for _, i := range h[:min(len(h), limit)] {
		if !fn(ix.shapeAt(int(i))) {
			return false
		}
	}
	return truncated
}
