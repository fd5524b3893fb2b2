// Package grid holds the geometry of frames: the global 30-arc-second
// lattice (ids, rows, columns and cell bounds, exact at shared edges),
// polygons with holes for imported grids, and the GeoJSON encoding of both.
//
// The lattice: a cell is 1/120 degree square. Row 0 touches the north pole,
// column 0 starts at 180°W, and a cell's id is row*43200 + col. A point on a
// shared edge belongs to the cell east of it and south of it. Coordinates are
// float64 values parsed from decimal text, so a decimal such as 7.1 (exactly
// 852/120) is not exactly representable; values within 1e-9 of a cell width
// of a grid line are taken to lie on it (about a micrometre on the ground),
// which makes every decimal with up to ten places land where its exact
// value would.
//
// Polygons follow the half-open rule of the lattice too: a point on an edge
// shared by two frames of a tiling belongs to exactly one of them, the one
// east and south of it.
//
// Nothing here imports another package of this module.
package grid
