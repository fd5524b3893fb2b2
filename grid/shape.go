package grid

// Point is a position as GeoJSON writes it: longitude, then latitude.
type Point [2]float64

// Ring is a closed ring of points: the first point repeats as the last.
type Ring []Point

// Polygon is an outer ring followed by zero or more holes.
type Polygon []Ring

// MultiPolygon is one or more polygons; a plain Polygon is a MultiPolygon of one.
type MultiPolygon []Polygon

// Run is a stretch of lattice cells in one row, columns Col0..Col1 inclusive.
// A lattice grid is stored and indexed as runs, never as one record a cell.
type Run struct {
	Row, Col0, Col1 int32
}

// Len returns the number of cells in the run.
func (r Run) Len() int { return int(r.Col1-r.Col0) + 1 }

// Frame is an imported (non-lattice) frame: a numeric id and its shape.
type Frame struct {
	ID   uint64
	Geom MultiPolygon
}

// Shape is what the API shows of one frame: its id, its bounding box and,
// for imported frames, its polygons. A lattice cell has Geom == nil and its
// square is derived from the id.
type Shape struct {
	ID   uint64
	Box  Box
	Geom MultiPolygon
}

// LatticeShape returns the Shape of lattice cell id (which must be <= MaxID).
func LatticeShape(id uint64) Shape {
	row, col, _ := RowCol(id)
	return Shape{ID: id, Box: CellBox(row, col)}
}
