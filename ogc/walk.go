package ogc

import (
	"math"

	"frameindex/bolt"
	"frameindex/grid"
)

// Paging in frame id order. A page after a cursor starts where the cursor
// left off, whatever its depth:
//
//   - On a lattice grid (ids are row*43200+col, so ascending id is row by
//     row), the rest of the cursor's row and the rows after it are walked
//     as two boxes shrunk by a quarter cell, which touch exactly the cells
//     of those rows and columns; the index walks only their runs.
//   - A dataset's records are scanned with a bolt cursor over id ranges:
//     one range per row of the box (one in all when the box spans the
//     grid's columns), starting after the cursor.
//   - Imported polygon grids have no row order: a page walks the box's
//     candidates in the index (or the dataset's records from the cursor)
//     and tests each frame against the box. Every page costs that walk,
//     the same at any depth.

// quarter is a quarter of a cell width in degrees.
const quarter = 1.0 / (4 * grid.CellsPerDegree)

// isLattice reports whether g is a lattice grid, whose frames carry no
// polygons of their own.
func isLattice(g Grid) bool {
	lattice := false
	g.Box(g.Bounds(), 1, func(sh grid.Shape) bool {
		lattice = sh.Geom == nil
		return false
	})
	return lattice
}

// clipBox clips b to the world and to g's bounds (which preserves the
// frames it touches); ok is false when nothing is left.
func clipBox(g Grid, b grid.Box) (grid.Box, bool) {
	gb := g.Bounds()
	if g.Len() == 0 || !b.Intersects(gb) {
		return grid.Box{}, false
	}
	return grid.Box{
		MinLon: max(b.MinLon, gb.MinLon, -180), MinLat: max(b.MinLat, gb.MinLat, -90),
		MaxLon: min(b.MaxLon, gb.MaxLon, 180), MaxLat: min(b.MaxLat, gb.MaxLat, 90),
	}, true
}

// latticeBox is the box, shrunk by a quarter cell, that touches exactly the
// lattice cells of rows r0..r1 and columns c0..c1.
func latticeBox(r0, r1, c0, c1 int) grid.Box {
	return grid.Box{
		MinLon: grid.Lon(c0) + quarter, MaxLon: grid.Lon(c1+1) - quarter,
		MaxLat: grid.Lat(r0) - quarter, MinLat: grid.Lat(r1+1) + quarter,
	}
}

// walkFrames calls fn for the frames of g touching b in ascending id, from
// frame id start on (inclusive); fn returning false stops the walk.
func walkFrames(g Grid, lattice bool, b grid.Box, start uint64, fn func(grid.Shape) bool) {
	b, ok := clipBox(g, b)
	if !ok {
		return
	}
	if !lattice {
		g.Box(b, math.MaxInt, func(sh grid.Shape) bool {
			return sh.ID < start || fn(sh)
		})
		return
	}
	r0, r1 := grid.RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := grid.ColSpan(b.MinLon, b.MaxLon)
	if start > grid.MaxID {
		return
	}
	sr, sc, _ := grid.RowCol(start)
	stopped := false
	walk := func(x, y, p, q int) {
		if stopped || x > y || p > q {
			return
		}
		g.Box(latticeBox(x, y, p, q), math.MaxInt, func(sh grid.Shape) bool {
			if !fn(sh) {
				stopped = true
			}
			return !stopped
		})
	}
	if sr > r1 {
		return
	}
	if sr >= r0 {
		walk(sr, sr, max(sc, c0), c1)
		r0 = sr + 1
	}
	walk(r0, r1, c0, c1)
}

// recordRanges returns the frame id ranges a scan of a dataset must cover
// to find its frames touching b from frame id start on, and whether each
// frame found must still be tested against b (imported polygon grids;
// frames outside the grid are always to be skipped by the caller).
func recordRanges(g Grid, lattice bool, b grid.Box, start uint64) (ranges []bolt.IDRange, test bool) {
	b, ok := clipBox(g, b)
	if !ok {
		return nil, false
	}
	if !lattice {
		return []bolt.IDRange{{From: start, To: math.MaxUint64}}, true
	}
	if start > grid.MaxID {
		return nil, false
	}
	r0, r1 := grid.RowSpan(b.MinLat, b.MaxLat)
	c0, c1 := grid.ColSpan(b.MinLon, b.MaxLon)
	gb := g.Bounds()
	gc0, gc1 := grid.ColSpan(gb.MinLon+quarter, gb.MaxLon-quarter)
	sr, _, _ := grid.RowCol(start)
	if sr > r1 {
		return nil, false
	}
	if c0 <= gc0 && c1 >= gc1 {
		// The box spans the grid's columns: the cells between its rows
		// outside its columns are outside the grid too.
		return []bolt.IDRange{{From: max(start, grid.CellID(r0, c0)), To: grid.CellID(r1, c1)}}, false
	}
	ranges = make([]bolt.IDRange, 0, r1-max(r0, sr)+1)
	for row := max(r0, sr); row <= r1; row++ {
		r := bolt.IDRange{From: max(grid.CellID(row, c0), start), To: grid.CellID(row, c1)}
		if r.From <= r.To {
			ranges = append(ranges, r)
		}
	}
	return ranges, false
}

// touches reports whether frame sh touches the closed box b.
func touches(sh grid.Shape, b grid.Box) bool {
	if !sh.Box.Intersects(b) {
		return false
	}
	if sh.Geom == nil {
		return true
	}
	fb := sh.Box
	inside := fb.MinLon >= b.MinLon && fb.MaxLon <= b.MaxLon && fb.MinLat >= b.MinLat && fb.MaxLat <= b.MaxLat
	return inside || sh.Geom.IntersectsBox(b)
}
