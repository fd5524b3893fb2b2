package grid

import (
	"math"
	"strconv"
	"sync"
)

const (
	// CellsPerDegree is the lattice resolution: 120 cells a degree, 30 arc seconds.
	CellsPerDegree = 120
	// Cols is the number of lattice columns around the globe.
	Cols = 360 * CellsPerDegree
	// Rows is the number of lattice rows from pole to pole.
	Rows = 180 * CellsPerDegree
	// MaxID is the largest lattice id.
	MaxID = uint64(Rows)*uint64(Cols) - 1

	// snap is how close (in cell widths) a coordinate must be to a grid
	// line to count as on it; see the package comment.
	snap = 1e-9
)

// Box is an axis-aligned box in degrees. Its edges belong to it (closed).
type Box struct {
	MinLon, MinLat, MaxLon, MaxLat float64
}

// Intersects reports whether the two closed boxes share at least one point.
func (b Box) Intersects(o Box) bool {
	return b.MinLon <= o.MaxLon && o.MinLon <= b.MaxLon &&
		b.MinLat <= o.MaxLat && o.MinLat <= b.MaxLat
}

// Contains reports whether the point lies in the closed box.
func (b Box) Contains(lon, lat float64) bool {
	return lon >= b.MinLon && lon <= b.MaxLon && lat >= b.MinLat && lat <= b.MaxLat
}

// Union returns the smallest box holding both.
func (b Box) Union(o Box) Box {
	return Box{math.Min(b.MinLon, o.MinLon), math.Min(b.MinLat, o.MinLat),
		math.Max(b.MaxLon, o.MaxLon), math.Max(b.MaxLat, o.MaxLat)}
}

// snapped returns v, or the integer it is within snap of.
func snapped(v float64) float64 {
	if r := math.Round(v); math.Abs(v-r) < snap {
		return r
	}
	return v
}

// colUnits and rowUnits turn degrees into (fractional) column and row numbers.
func colUnits(lon float64) float64 { return snapped((lon + 180) * CellsPerDegree) }
func rowUnits(lat float64) float64 { return snapped((90 - lat) * CellsPerDegree) }

// CellAt returns the row and column of the lattice cell holding the point,
// by the east/south rule. lon 180 is the same meridian as lon -180 and
// resolves to column 0; lat -90 resolves to the last row. The point must be
// finite and in range (lat in [-90, 90], lon in [-180, 180]).
func CellAt(lat, lon float64) (row, col int) {
	row = int(math.Floor(rowUnits(lat)))
	col = int(math.Floor(colUnits(lon)))
	if row >= Rows {
		row = Rows - 1
	}
	if row < 0 {
		row = 0
	}
	if col >= Cols {
		col = 0
	}
	if col < 0 {
		col = 0
	}
	return row, col
}

// CellID returns the id of the cell at row and col.
func CellID(row, col int) uint64 { return uint64(row)*Cols + uint64(col) }

// RowCol splits a lattice id into row and column; ok is false above MaxID.
func RowCol(id uint64) (row, col int, ok bool) {
	if id > MaxID {
		return 0, 0, false
	}
	return int(id / Cols), int(id % Cols), true
}

// Lon returns the longitude of the west edge of column col (col may be Cols,
// the east edge of the last column).
func Lon(col int) float64 { return float64(col)/CellsPerDegree - 180 }

// Lat returns the latitude of the north edge of row row (row may be Rows,
// the south pole).
func Lat(row int) float64 { return 90 - float64(row)/CellsPerDegree }

// CellBox returns the bounds of the cell at row and col.
func CellBox(row, col int) Box {
	return Box{MinLon: Lon(col), MinLat: Lat(row + 1), MaxLon: Lon(col + 1), MaxLat: Lat(row)}
}

// ColSpan returns the columns of the cells that touch the closed longitude
// range [minLon, maxLon] (minLon <= maxLon, both in [-180, 180]); a range that
// starts exactly on a grid line includes the cell west of that line, which
// touches it. The span is clamped to the lattice and never wraps.
func ColSpan(minLon, maxLon float64) (c0, c1 int) {
	c0 = int(math.Ceil(colUnits(minLon))) - 1
	c1 = int(math.Floor(colUnits(maxLon)))
	return max(c0, 0), min(c1, Cols-1)
}

// RowSpan returns the rows of the cells that touch the closed latitude range
// [minLat, maxLat] (minLat <= maxLat), clamped to the lattice. Rows grow
// southwards, so r0 is the northernmost.
func RowSpan(minLat, maxLat float64) (r0, r1 int) {
	r0 = int(math.Ceil(rowUnits(maxLat))) - 1
	r1 = int(math.Floor(rowUnits(minLat)))
	return max(r0, 0), min(r1, Rows-1)
}

// Coordinates are written with at most 7 decimals (docs/contract.md §1). Lattice
// edges repeat across every cell of a row or column, so their text is made
// once and kept.
var (
	edgeTextOnce sync.Once
	lonText      [][]byte // Cols+1 entries: west edges, then 180
	latText      [][]byte // Rows+1 entries: north edges, then -90
)

func buildEdgeText() {
	lonText = make([][]byte, Cols+1)
	latText = make([][]byte, Rows+1)
	buf := make([]byte, 0, 12*(Cols+Rows+2))
	for c := 0; c <= Cols; c++ {
		start := len(buf)
		buf = AppendCoord(buf, Lon(c))
		lonText[c] = buf[start:len(buf):len(buf)]
	}
	for r := 0; r <= Rows; r++ {
		start := len(buf)
		buf = AppendCoord(buf, Lat(r))
		latText[r] = buf[start:len(buf):len(buf)]
	}
}

// AppendLonEdge appends the text of Lon(col), 0 <= col <= Cols.
func AppendLonEdge(dst []byte, col int) []byte {
	edgeTextOnce.Do(buildEdgeText)
	return append(dst, lonText[col]...)
}

// AppendLatEdge appends the text of Lat(row), 0 <= row <= Rows.
func AppendLatEdge(dst []byte, row int) []byte {
	edgeTextOnce.Do(buildEdgeText)
	return append(dst, latText[row]...)
}

// AppendCoord appends v as a JSON number rounded to 7 decimals, without
// trailing zeros or exponent ("3.0083333", "-180", "0.5").
func AppendCoord(dst []byte, v float64) []byte {
	n := math.Round(v * 1e7)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n) > 1e17 {
		if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
			return append(dst, '0')
		}
		return strconv.AppendFloat(dst, v, 'f', -1, 64)
	}
	i := int64(n)
	if i < 0 {
		dst = append(dst, '-')
		i = -i
	}
	dst = strconv.AppendInt(dst, i/1e7, 10)
	frac := i % 1e7
	if frac == 0 {
		return dst
	}
	var digits [7]byte
	for k := 6; k >= 0; k-- {
		digits[k] = byte('0' + frac%10)
		frac /= 10
	}
	end := 7
	for digits[end-1] == '0' {
		end--
	}
	dst = append(dst, '.')
	return append(dst, digits[:end]...)
}
