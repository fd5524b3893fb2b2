// Package index keeps the frames of one grid in memory for the two queries
// the API serves: the frame holding a point, and the frames touching a box.
//
// An Index is built once (at start-up, or after an import) and never
// changes; swap a pointer to serve a new one. Two kinds exist:
//
//   - Lattice grids (NewLattice): cells of the global 30-arc-second lattice,
//     given as runs of cells per row. A national grid of about 1.1 million
//     cells is a few thousand runs. A point is resolved with grid.CellAt and
//     a binary search among the runs of its row (tens of nanoseconds, no
//     allocation); a box walks its rows and the runs that meet its columns,
//     emitting cells in id order and stopping at the limit, so a box over
//     the whole country costs what its first limit cells cost. No R-tree is
//     needed: the per-row table is exact, smaller and faster than R-tree
//     rectangles of the runs (see BenchmarkAtRTreeRuns).
//
//   - Polygon grids (NewPolygons): imported frames of any shape, with holes,
//     possibly a million of them. An R-tree (github.com/tidwall/rtree) over
//     each frame's bounds gives candidates, which are then tested exactly
//     (grid.MultiPolygon.ContainsPoint, IntersectsBox). Frames are kept in
//     id order, so Shape is a binary search and Box sorts only what it
//     returns.
//
// Rules shared by both kinds: a point on an edge shared by two frames
// belongs to the frame east and south of it; a box is closed, so frames
// that only touch its edge or corner are in it; box results come in
// ascending id order, at most limit of them, with truncated reporting that
// more exist.
//
// Caveats:
//   - The lattice kind snaps coordinates within 1e-9 of a cell width of a
//     grid line onto it (see package grid); the polygon kind compares
//     coordinates exactly. For a polygon grid that is really the lattice
//     the two can disagree only for points within about a micrometre of a
//     cell edge; grid.DetectLattice lets importers store such grids as
//     lattice runs instead.
//   - On the world's edges the kinds differ too: the lattice takes lon 180
//     as column 0 and lat -90 as the last row, while a polygon follows the
//     half-open rule everywhere, so no polygon frame holds a point on its
//     east edge at lon 180 or its south edge at lat -90.
//   - Polygon frames that overlap (imported grids need not tile) resolve a
//     point to the lowest id among those containing it; Box returns every
//     frame touching the box.
//   - A polygon box query scans every R-tree candidate: a box over the
//     whole of a million imported frames costs about as much as the scan,
//     even with a small limit; only the lattice kind avoids that.
//   - Longitudes do not wrap: a box never crosses the antimeridian.
package index
