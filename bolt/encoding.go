package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"frameindex/grid"
)

// Stored forms of grid records. Keys are big-endian so that bbolt's byte
// order is numeric order. See the package comment for the layout.

// rowKey and frameKey append the keys of the lattice and frames buckets.
func rowKey(dst []byte, row int32) []byte   { return binary.BigEndian.AppendUint32(dst, uint32(row)) }
func frameKey(dst []byte, id uint64) []byte { return binary.BigEndian.AppendUint64(dst, id) }

// appendRunPair appends one run's columns to a lattice row value.
func appendRunPair(dst []byte, r grid.Run) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.Col0))
	return binary.BigEndian.AppendUint32(dst, uint32(r.Col1))
}

// decodeRow appends the runs of one lattice record to dst. It checks what
// PutLattice guarantees: a row and columns inside the lattice, col0 <= col1,
// runs in ascending order and apart.
func decodeRow(dst []grid.Run, key, value []byte) ([]grid.Run, error) {
	if len(key) != 4 {
		return dst, fmt.Errorf("lattice key of %d bytes, want 4", len(key))
	}
	row := binary.BigEndian.Uint32(key)
	if row >= grid.Rows {
		return dst, fmt.Errorf("lattice row %d outside 0..%d", row, grid.Rows-1)
	}
	if len(value) == 0 || len(value)%8 != 0 {
		return dst, fmt.Errorf("lattice row %d: value of %d bytes, want a non-zero multiple of 8", row, len(value))
	}
	prev := int64(-2)
	for i := 0; i < len(value); i += 8 {
		c0 := binary.BigEndian.Uint32(value[i:])
		c1 := binary.BigEndian.Uint32(value[i+4:])
		if c0 > c1 || c1 >= grid.Cols || int64(c0) <= prev {
			return dst, fmt.Errorf("lattice row %d: run %d..%d out of order or outside the lattice", row, c0, c1)
		}
		prev = int64(c1)
		dst = append(dst, grid.Run{Row: int32(row), Col0: int32(c0), Col1: int32(c1)})
	}
	return dst, nil
}

// multiPolygonSize returns the length of mp's stored form.
func multiPolygonSize(mp grid.MultiPolygon) int {
	n := uvarintLen(uint64(len(mp)))
	for _, poly := range mp {
		n += uvarintLen(uint64(len(poly)))
		for _, ring := range poly {
			n += uvarintLen(uint64(len(ring))) + 16*len(ring)
		}
	}
	return n
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// appendMultiPolygon appends mp's stored form: the number of polygons, then
// for each the number of rings, then for each ring the number of points and
// the points as lon, lat float64 bit patterns, little-endian. Counts are
// unsigned varints. Floats round-trip exactly.
func appendMultiPolygon(dst []byte, mp grid.MultiPolygon) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(mp)))
	for _, poly := range mp {
		dst = binary.AppendUvarint(dst, uint64(len(poly)))
		for _, ring := range poly {
			dst = binary.AppendUvarint(dst, uint64(len(ring)))
			for _, p := range ring {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(p[0]))
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(p[1]))
			}
		}
	}
	return dst
}

// Smallest stored sizes, used to refuse a count before allocating for it: a
// ring is a count and at least four points, a polygon a count and one ring.
const (
	minRingPoints = 4
	minRingBytes  = 1 + minRingPoints*16
	minPolyBytes  = 1 + minRingBytes
)

// arena hands out sub-slices of large blocks so that decoding a million
// frames makes a few hundred allocations rather than several million.
// Each slice handed out has its capacity clipped to its length, so appending
// to one never writes into its neighbour. The zero arena allocates exactly
// what each call asks for.
type arena struct {
	chunk  int // block length in elements; 0 = no pooling
	points []grid.Point
	rings  []grid.Ring
	polys  []grid.Polygon
}

func take[T any](pool *[]T, n, chunk int) []T {
	if chunk == 0 || n > chunk {
		return make([]T, n)
	}
	if cap(*pool)-len(*pool) < n {
		*pool = make([]T, 0, chunk)
	}
	l := len(*pool)
	*pool = (*pool)[:l+n]
	return (*pool)[l : l+n : l+n]
}

var errShortRecord = errors.New("record ends early")

// decodeMultiPolygon decodes a stored frame, checking each ring as
// checkRing does. It never reads past b and never allocates for a count
// that the remaining bytes could not hold.
func decodeMultiPolygon(b []byte, a *arena) (grid.MultiPolygon, error) {
	if a == nil {
		a = &arena{}
	}
	count := func(what string, minBytes int) (int, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errShortRecord
		}
		b = b[n:]
		if v == 0 {
			return 0, fmt.Errorf("no %s", what)
		}
		if v > uint64(len(b)/minBytes) {
			return 0, fmt.Errorf("%d %s do not fit in the %d bytes left", v, what, len(b))
		}
		return int(v), nil
	}
	np, err := count("polygons", minPolyBytes)
	if err != nil {
		return nil, err
	}
	mp := grid.MultiPolygon(take(&a.polys, np, a.chunk))
	for i := range mp {
		nr, err := count("rings", minRingBytes)
		if err != nil {
			return nil, fmt.Errorf("polygon %d: %w", i, err)
		}
		poly := grid.Polygon(take(&a.rings, nr, a.chunk))
		for j := range poly {
			npts, err := count("points", 16)
			if err != nil {
				return nil, fmt.Errorf("polygon %d ring %d: %w", i, j, err)
			}
			ring := grid.Ring(take(&a.points, npts, a.chunk))
			for k := range ring {
				ring[k] = grid.Point{
					math.Float64frombits(binary.LittleEndian.Uint64(b)),
					math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
				}
				b = b[16:]
			}
			if err := checkRing(ring); err != nil {
				return nil, fmt.Errorf("polygon %d ring %d: %w", i, j, err)
			}
			poly[j] = ring
		}
		mp[i] = poly
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%d bytes after the last polygon", len(b))
	}
	return mp, nil
}

// checkRing checks what the store requires of a ring: at least four points,
// each finite and in world range (lon in [-180, 180], lat in [-90, 90]), the
// last equal to the first. It does not look for self-crossings or winding
// order: that is the importer's job.
func checkRing(r grid.Ring) error {
	if len(r) < minRingPoints {
		return fmt.Errorf("%d points, need at least %d", len(r), minRingPoints)
	}
	for k, p := range r {
		if !(p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90) {
			return fmt.Errorf("point %d (%v, %v) is not a finite lon, lat in world range", k, p[0], p[1])
		}
	}
	if r[0] != r[len(r)-1] {
		return errors.New("not closed (the last point differs from the first)")
	}
	return nil
}

// checkMultiPolygon checks a frame's geometry before it is stored.
func checkMultiPolygon(mp grid.MultiPolygon) error {
	if len(mp) == 0 {
		return errors.New("no polygons")
	}
	for i, poly := range mp {
		if len(poly) == 0 {
			return fmt.Errorf("polygon %d has no rings", i)
		}
		for j, ring := range poly {
			if err := checkRing(ring); err != nil {
				return fmt.Errorf("polygon %d ring %d: %w", i, j, err)
			}
		}
	}
	return nil
}
