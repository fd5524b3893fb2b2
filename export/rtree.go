package export

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// SQLite's R-tree stores a node as one blob of a fixed size in the
// %_node shadow table: a 2-byte depth (meaningful in the root, node 1), a
// 2-byte cell count, then cells of an 8-byte id (a row's id in a leaf, a
// child node number above) and the box as float32 (minx, maxx, miny,
// maxy), all big-endian. %_rowid maps each row id to its leaf and %_parent
// each node but the root to its parent. A node holds at most 51 cells
// (RTREE_MAXCELLS), so with SQLite's default 4096-byte pages a node blob is
// 4 + 51*24 bytes. Inserting rows one by one through the virtual table
// costs an R*-tree descent and frequent node splits each (three quarters
// of the export time for a million frames); writing the shadow tables
// directly from a Hilbert-sorted packing is several times faster and makes
// a tighter tree. rtreecheck() validates the result in the tests.
const (
	rtreeMaxCells = 51
	rtreeCellSize = 8 + 4*4
	rtreeNodeSize = 4 + rtreeCellSize*rtreeMaxCells
)

// box32 is a box as the R-tree stores it: float32, rounded outwards.
type box32 struct{ minX, maxX, minY, maxY float32 }

func (b *box32) expand(o box32) {
	b.minX, b.maxX = min(b.minX, o.minX), max(b.maxX, o.maxX)
	b.minY, b.maxY = min(b.minY, o.minY), max(b.maxY, o.maxY)
}

func emptyBox32() box32 {
	inf := float32(math.Inf(1))
	return box32{inf, -inf, inf, -inf}
}

// down32 and up32 round to the float32 at or below (above) v, as the
// R-tree does, so a stored box always contains the exact one.
func down32(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up32(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// boxOf rounds a shape's bounds for the R-tree.
func boxOf(s *shape) box32 {
	return box32{down32(s.minX), up32(s.maxX), down32(s.minY), up32(s.maxY)}
}

// bulkLoadRTree fills the empty R-tree table r (quoted name; shadow tables
// r_node, r_rowid, r_parent) with boxes[i] for row id i+1, packing rows in
// Hilbert order of their box centres into full nodes. It falls back to
// inserting through the virtual table when the table's node size is not
// the one expected (a different SQLite build).
func bulkLoadRTree(tx *sql.Tx, name string, boxes []box32, ext extent) error {
	n := len(boxes)
	if n == 0 {
		return nil
	}
	node, rowid, parent := quoteIdent(name+"_node"), quoteIdent(name+"_rowid"), quoteIdent(name+"_parent")
	var size int
	if err := tx.QueryRow("SELECT length(data) FROM " + node + " WHERE nodeno = 1").Scan(&size); err != nil {
		return fmt.Errorf("reading the R-tree root: %w", err)
	}
	order := hilbertSort(boxes, ext)
	if size != rtreeNodeSize {
		return insertRTree(tx, quoteIdent(name), boxes, order)
	}

	// Level sizes from the leaves (0) up to the root.
	sizes := []int{(n + rtreeMaxCells - 1) / rtreeMaxCells}
	for sizes[len(sizes)-1] > 1 {
		last := sizes[len(sizes)-1]
		sizes = append(sizes, (last+rtreeMaxCells-1)/rtreeMaxCells)
	}
	depth := len(sizes) - 1
	// Node numbers: the root is 1, then each level below it in turn.
	base := make([]int64, len(sizes))
	base[depth] = 1
	next := int64(2)
	for lv := depth - 1; lv >= 0; lv-- {
		base[lv] = next
		next += int64(sizes[lv])
	}

	insNode, err := tx.Prepare("INSERT INTO " + node + " (nodeno, data) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer insNode.Close()
	insParent, err := tx.Prepare("INSERT INTO " + parent + " (nodeno, parentnode) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer insParent.Close()
	putNode := func(lv, j int, blob []byte) error {
		no := base[lv] + int64(j)
		if lv == depth {
			binary.BigEndian.PutUint16(blob, uint16(depth))
			_, err := tx.Exec("UPDATE "+node+" SET data = ? WHERE nodeno = 1", blob)
			return err
		}
		if _, err := insNode.Exec(no, blob); err != nil {
			return err
		}
		_, err := insParent.Exec(no, base[lv+1]+int64(j/rtreeMaxCells))
		return err
	}

	blob := make([]byte, rtreeNodeSize)
	// Leaves, remembering each row's leaf (for %_rowid) and each leaf's box.
	leafOf := make([]uint32, n)
	below := make([]box32, sizes[0])
	for j := range sizes[0] {
		clear(blob)
		lo, hi := j*rtreeMaxCells, min(n, (j+1)*rtreeMaxCells)
		nb := emptyBox32()
		for c, i := range order[lo:hi] {
			putCell(blob, c, int64(i)+1, boxes[i])
			nb.expand(boxes[i])
			leafOf[i] = uint32(j)
		}
		binary.BigEndian.PutUint16(blob[2:], uint16(hi-lo))
		below[j] = nb
		if err := putNode(0, j, blob); err != nil {
			return fmt.Errorf("writing R-tree leaf %d: %w", j, err)
		}
	}
	// Inner levels.
	for lv := 1; lv <= depth; lv++ {
		cur := make([]box32, sizes[lv])
		for j := range cur {
			clear(blob)
			lo, hi := j*rtreeMaxCells, min(len(below), (j+1)*rtreeMaxCells)
			nb := emptyBox32()
			for c := lo; c < hi; c++ {
				putCell(blob, c-lo, base[lv-1]+int64(c), below[c])
				nb.expand(below[c])
			}
			binary.BigEndian.PutUint16(blob[2:], uint16(hi-lo))
			cur[j] = nb
			if err := putNode(lv, j, blob); err != nil {
				return fmt.Errorf("writing R-tree node at level %d: %w", lv, err)
			}
		}
		below = cur
	}
	// Row id to leaf, in row id order (appending to the b-tree).
	insRow, err := tx.Prepare("INSERT INTO " + rowid + " (rowid, nodeno) VALUES (?, ?)")
	if err != nil {
		return err
	}
	defer insRow.Close()
	for i, leaf := range leafOf {
		if _, err := insRow.Exec(int64(i)+1, base[0]+int64(leaf)); err != nil {
			return fmt.Errorf("writing R-tree row %d: %w", i+1, err)
		}
	}
	return nil
}

// putCell writes cell c of a node blob.
func putCell(blob []byte, c int, id int64, b box32) {
	p := blob[4+c*rtreeCellSize:]
	be := binary.BigEndian
	be.PutUint64(p, uint64(id))
	be.PutUint32(p[8:], math.Float32bits(b.minX))
	be.PutUint32(p[12:], math.Float32bits(b.maxX))
	be.PutUint32(p[16:], math.Float32bits(b.minY))
	be.PutUint32(p[20:], math.Float32bits(b.maxY))
}

// hilbertSort returns the indexes of boxes ordered along a Hilbert curve
// through their centres within the extent.
func hilbertSort(boxes []box32, ext extent) []uint32 {
	keys := make([]uint64, len(boxes))
	width, height := ext.maxX-ext.minX, ext.maxY-ext.minY
	for i, b := range boxes {
		var hx, hy uint32
		cx, cy := (float64(b.minX)+float64(b.maxX))/2, (float64(b.minY)+float64(b.maxY))/2
		if width > 0 {
			hx = uint32(math.Floor(65535 * clamp01((cx-ext.minX)/width)))
		}
		if height > 0 {
			hy = uint32(math.Floor(65535 * clamp01((cy-ext.minY)/height)))
		}
		keys[i] = uint64(hilbert(hx, hy))<<32 | uint64(i)
	}
	slices.Sort(keys)
	order := make([]uint32, len(keys))
	for i, k := range keys {
		order[i] = uint32(k)
	}
	return order
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

// insertRTree is the slow path: one insert per row through the virtual
// table, in Hilbert order.
func insertRTree(tx *sql.Tx, r string, boxes []box32, order []uint32) error {
	ins, err := tx.Prepare("INSERT INTO " + r + " VALUES (?,?,?,?,?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, i := range order {
		b := boxes[i]
		if _, err := ins.Exec(int64(i)+1, float64(b.minX), float64(b.maxX), float64(b.minY), float64(b.maxY)); err != nil {
			return fmt.Errorf("R-tree row %d: %w", i+1, err)
		}
	}
	return nil
}
