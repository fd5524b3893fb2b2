package export

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	flatbuffers "github.com/google/flatbuffers/go"
)

// FlatGeobuf 3.0 (https://flatgeobuf.org): the magic bytes, a size-prefixed
// Header flatbuffer, the packed Hilbert R-tree, then size-prefixed Feature
// flatbuffers. The tables are built with the flatbuffers runtime from the
// field numbers of header.fbs and feature.fbs; no generated code is needed
// for the few fields written.
var fgbMagic = []byte{'f', 'g', 'b', 3, 'f', 'g', 'b', 0}

const (
	fgbNodeSize = 16 // index_node_size, the format's default
	fgbNodeLen  = 40 // bytes of one index node: 4 float64 + uint64 offset
	fgbItemLen  = 48 // bytes of one scratch item: box, offset, size, pad

	// GeometryType and ColumnType enum values of header.fbs.
	fgbPolygon      = 3
	fgbMultiPolygon = 6
	fgbColLong      = 7
	fgbColDouble    = 10
	fgbColString    = 11

	// Field slots of the tables written.
	hdrName, hdrEnvelope, hdrGeometryType, hdrColumns, hdrFeaturesCount, hdrIndexNodeSize, hdrCrs, hdrFields = 0, 1, 2, 7, 8, 9, 10, 14
	colName, colType, colFields                                                                              = 0, 1, 11
	crsOrg, crsCode, crsName, crsFields                                                                      = 0, 1, 2, 6
	geoEnds, geoXY, geoType, geoParts, geoFields                                                             = 0, 1, 6, 7, 8
	featGeometry, featProperties, featFields                                                                 = 0, 1, 3
)

// fgbWriter writes features to a scratch file in arrival order and, per
// feature, a 48-byte item (box, offset, size) to a second scratch file;
// Close sorts the items along a Hilbert curve, writes the index and copies
// the features in that order. Memory is 8 bytes a feature (the sort keys)
// plus the index levels above the leaves (about 3 bytes a feature).
type fgbWriter struct {
	state
	opts  Options
	out   *os.File // the temporary result
	feats *os.File // scratch: features as written
	items *os.File // scratch: one item per feature
	fw    *bufio.Writer
	iw    *bufio.Writer
	off   uint64 // bytes written to feats
	b     *flatbuffers.Builder
	vals  []value
	props []byte
	xy    []float64
	shape shape
	ext   extent
	item  [fgbItemLen]byte
}

func newFGB(path string, opts Options) (Writer, error) {
	if len(opts.Columns) >= math.MaxUint16 {
		return nil, fmt.Errorf("export %s: %d columns; FlatGeobuf holds at most 65534", path, len(opts.Columns))
	}
	w := &fgbWriter{state: state{path: path}, opts: opts, b: flatbuffers.NewBuilder(1024)}
	var err error
	if w.out, err = tempFor(path); err != nil {
		return nil, err
	}
	if w.feats, err = tempFor(path + ".features"); err == nil {
		w.items, err = tempFor(path + ".items")
	}
	if err != nil {
		w.cleanup()
		return nil, err
	}
	// Scratch files need no name: removed now, they vanish when closed.
	os.Remove(w.feats.Name())
	os.Remove(w.items.Name())
	w.fw = bufio.NewWriterSize(w.feats, 1<<20)
	w.iw = bufio.NewWriterSize(w.items, 1<<16)
	return w, nil
}

func (w *fgbWriter) Write(fr Frame) error {
	if err := w.writable(); err != nil {
		return err
	}
	if err := w.write(&fr); err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *fgbWriter) write(fr *Frame) error {
	var err error
	if w.vals, err = checkValues(w.opts.Columns, fr, w.vals); err != nil {
		return err
	}
	s := &w.shape
	if err := s.load(fr, w.opts.Multi); err != nil {
		return err
	}
	if w.ext.n >= math.MaxUint32 {
		return fmt.Errorf("frame %d: more than %d frames do not fit the index", fr.ID, uint32(math.MaxUint32))
	}
	w.ext.add(s)
	buf := w.buildFeature(fr.ID, s)
	if _, err := w.fw.Write(buf); err != nil {
		return err
	}
	it := w.item[:]
	le := binary.LittleEndian
	le.PutUint64(it[0:], math.Float64bits(s.minX))
	le.PutUint64(it[8:], math.Float64bits(s.minY))
	le.PutUint64(it[16:], math.Float64bits(s.maxX))
	le.PutUint64(it[24:], math.Float64bits(s.maxY))
	le.PutUint64(it[32:], w.off)
	le.PutUint32(it[40:], uint32(len(buf)))
	if _, err := w.iw.Write(it); err != nil {
		return err
	}
	w.off += uint64(len(buf))
	return nil
}

// buildFeature encodes one size-prefixed Feature table.
func (w *fgbWriter) buildFeature(id uint64, s *shape) []byte {
	b := w.b
	b.Reset()
	// properties: column index (uint16) then the value, for non-null values
	p := w.props[:0]
	le := binary.LittleEndian
	idText := strconv.AppendUint(nil, id, 10) // small; escapes to the heap only rarely
	p = le.AppendUint16(p, 0)
	p = le.AppendUint32(p, uint32(len(idText)))
	p = append(p, idText...)
	for i, v := range w.vals {
		if v.kind == 0 {
			continue
		}
		p = le.AppendUint16(p, uint16(i+1))
		switch v.kind {
		case Number:
			p = le.AppendUint64(p, math.Float64bits(v.f))
		case Integer:
			p = le.AppendUint64(p, uint64(v.i))
		case Text:
			p = le.AppendUint32(p, uint32(len(v.s)))
			p = append(p, v.s...)
		}
	}
	w.props = p
	props := b.CreateByteVector(p)

	var geom flatbuffers.UOffsetT
	if w.opts.Multi {
		parts := make([]flatbuffers.UOffsetT, len(s.polys))
		for i := range s.polys {
			parts[i] = w.buildPolygon(s, i, true)
		}
		b.StartVector(4, len(parts), 4)
		for i := len(parts) - 1; i >= 0; i-- {
			b.PrependUOffsetT(parts[i])
		}
		vec := b.EndVector(len(parts))
		b.StartObject(geoFields)
		b.PrependUOffsetTSlot(geoParts, vec, 0)
		b.PrependByteSlot(geoType, fgbMultiPolygon, 0)
		geom = b.EndObject()
	} else {
		geom = w.buildPolygon(s, 0, false)
	}
	b.StartObject(featFields)
	b.PrependUOffsetTSlot(featGeometry, geom, 0)
	b.PrependUOffsetTSlot(featProperties, props, 0)
	b.FinishSizePrefixed(b.EndObject())
	return b.FinishedBytes()
}

// buildPolygon encodes polygon i of s as a Geometry table: flat xy pairs
// and, with holes, the end (in points) of each ring.
func (w *fgbWriter) buildPolygon(s *shape, i int, typed bool) flatbuffers.UOffsetT {
	b := w.b
	poly := s.polys[i]
	var ends flatbuffers.UOffsetT
	if len(poly) > 1 {
		b.StartVector(4, len(poly), 4)
		total := 0
		for _, r := range poly {
			total += len(r)
		}
		for k := len(poly) - 1; k >= 0; k-- {
			b.PrependUint32(uint32(total))
			total -= len(poly[k])
		}
		ends = b.EndVector(len(poly))
	}
	n := 0
	for _, r := range poly {
		n += 2 * len(r)
	}
	b.StartVector(8, n, 8)
	for k := len(poly) - 1; k >= 0; k-- {
		r := poly[k]
		for j := len(r) - 1; j >= 0; j-- {
			b.PrependFloat64(r[j][1])
			b.PrependFloat64(r[j][0])
		}
	}
	xy := b.EndVector(n)
	b.StartObject(geoFields)
	if ends != 0 {
		b.PrependUOffsetTSlot(geoEnds, ends, 0)
	}
	b.PrependUOffsetTSlot(geoXY, xy, 0)
	if typed {
		b.PrependByteSlot(geoType, fgbPolygon, 0)
	}
	return b.EndObject()
}

// buildHeader encodes the size-prefixed Header table.
func (w *fgbWriter) buildHeader(count uint64, nodeSize uint16) []byte {
	b := flatbuffers.NewBuilder(1024)
	name := b.CreateString(w.opts.Layer)
	cols := make([]flatbuffers.UOffsetT, 0, 1+len(w.opts.Columns))
	addCol := func(n string, t byte) {
		s := b.CreateString(n)
		b.StartObject(colFields)
		b.PrependUOffsetTSlot(colName, s, 0)
		b.PrependByteSlot(colType, t, 0)
		cols = append(cols, b.EndObject())
	}
	addCol("frame_id", fgbColString)
	for _, c := range w.opts.Columns {
		t := map[ColumnType]byte{Number: fgbColDouble, Text: fgbColString, Integer: fgbColLong}[c.Type]
		addCol(c.Name, t)
	}
	b.StartVector(4, len(cols), 4)
	for i := len(cols) - 1; i >= 0; i-- {
		b.PrependUOffsetT(cols[i])
	}
	colVec := b.EndVector(len(cols))
	var env flatbuffers.UOffsetT
	if count > 0 {
		b.StartVector(8, 4, 8)
		for _, v := range [4]float64{w.ext.maxY, w.ext.maxX, w.ext.minY, w.ext.minX} {
			b.PrependFloat64(v)
		}
		env = b.EndVector(4)
	}
	org := b.CreateString("EPSG")
	crsNameOff := b.CreateString("WGS 84")
	b.StartObject(crsFields)
	b.PrependUOffsetTSlot(crsOrg, org, 0)
	b.PrependInt32Slot(crsCode, 4326, 0)
	b.PrependUOffsetTSlot(crsName, crsNameOff, 0)
	crs := b.EndObject()

	gt := byte(fgbPolygon)
	if w.opts.Multi {
		gt = fgbMultiPolygon
	}
	b.StartObject(hdrFields)
	b.PrependUOffsetTSlot(hdrName, name, 0)
	if env != 0 {
		b.PrependUOffsetTSlot(hdrEnvelope, env, 0)
	}
	b.PrependByteSlot(hdrGeometryType, gt, 0)
	b.PrependUOffsetTSlot(hdrColumns, colVec, 0)
	b.PrependUint64Slot(hdrFeaturesCount, count, 0)
	b.PrependUint16Slot(hdrIndexNodeSize, nodeSize, 0xffff) // always stored, 0 included
	b.PrependUOffsetTSlot(hdrCrs, crs, 0)
	b.FinishSizePrefixed(b.EndObject())
	return b.FinishedBytes()
}

func (w *fgbWriter) Close() error { return w.close(w.complete, w.cleanup) }

func (w *fgbWriter) complete() error {
	if err := w.fw.Flush(); err != nil {
		return err
	}
	if err := w.iw.Flush(); err != nil {
		return err
	}
	out := bufio.NewWriterSize(w.out, 1<<20)
	n := uint64(w.ext.n)
	out.Write(fgbMagic)
	if n == 0 {
		out.Write(w.buildHeader(0, 0))
	} else {
		out.Write(w.buildHeader(n, fgbNodeSize))
		keys, err := w.hilbertOrder()
		if err != nil {
			return err
		}
		if err := w.writeIndex(out, keys); err != nil {
			return err
		}
		if err := w.copyFeatures(out, keys); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := w.out.Close(); err != nil {
		return err
	}
	w.feats.Close()
	w.items.Close()
	return finish(w.out.Name(), w.path)
}

// hilbertOrder reads the items and returns their indexes (low 32 bits of
// each key) sorted by descending Hilbert value of the box centres, as the
// reference implementation orders them; ties keep arrival order.
func (w *fgbWriter) hilbertOrder() ([]uint64, error) {
	n := int(w.ext.n)
	keys := make([]uint64, n)
	r := bufio.NewReaderSize(io.NewSectionReader(w.items, 0, int64(n)*fgbItemLen), 1<<16)
	width, height := w.ext.maxX-w.ext.minX, w.ext.maxY-w.ext.minY
	var it [fgbItemLen]byte
	le := binary.LittleEndian
	for i := 0; i < n; i++ {
		if _, err := io.ReadFull(r, it[:]); err != nil {
			return nil, fmt.Errorf("reading back the index items: %w", err)
		}
		minX := math.Float64frombits(le.Uint64(it[0:]))
		minY := math.Float64frombits(le.Uint64(it[8:]))
		maxX := math.Float64frombits(le.Uint64(it[16:]))
		maxY := math.Float64frombits(le.Uint64(it[24:]))
		var hx, hy uint32
		if width != 0 {
			hx = uint32(math.Floor(65535 * ((minX+maxX)/2 - w.ext.minX) / width))
		}
		if height != 0 {
			hy = uint32(math.Floor(65535 * ((minY+maxY)/2 - w.ext.minY) / height))
		}
		keys[i] = uint64(^hilbert(hx, hy))<<32 | uint64(i)
	}
	slices.Sort(keys)
	return keys, nil
}

// levelBounds returns, per tree level from the leaves (0) up to the root,
// the first node index and the end; the root is node 0 and the leaves come
// last, as in the FlatGeobuf reference implementation.
func levelBounds(numItems, nodeSize int) (bounds [][2]int, numNodes int) {
	n := numItems
	counts := []int{n}
	numNodes = n
	for {
		n = (n + nodeSize - 1) / nodeSize
		numNodes += n
		counts = append(counts, n)
		if n == 1 {
			break
		}
	}
	end := numNodes
	for _, c := range counts {
		bounds = append(bounds, [2]int{end - c, end})
		end -= c
	}
	return bounds, numNodes
}

type node struct {
	minX, minY, maxX, maxY float64
	offset                 uint64
}

func (a *node) expand(b node) {
	a.minX, a.minY = min(a.minX, b.minX), min(a.minY, b.minY)
	a.maxX, a.maxY = max(a.maxX, b.maxX), max(a.maxY, b.maxY)
}

func emptyNode(offset uint64) node {
	return node{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), offset}
}

func appendNode(dst []byte, nd node) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, math.Float64bits(nd.minX))
	dst = le.AppendUint64(dst, math.Float64bits(nd.minY))
	dst = le.AppendUint64(dst, math.Float64bits(nd.maxX))
	dst = le.AppendUint64(dst, math.Float64bits(nd.maxY))
	return le.AppendUint64(dst, nd.offset)
}

// writeIndex writes the packed R-tree: it streams the leaves (in key order,
// offsets of the features as they will be laid out) to a scratch file while
// building the level above in memory, then writes the upper levels from the
// root down, then the leaves.
func (w *fgbWriter) writeIndex(out *bufio.Writer, keys []uint64) error {
	n := len(keys)
	bounds, _ := levelBounds(n, fgbNodeSize)
	leaves, err := tempFor(w.path + ".leaves")
	if err != nil {
		return err
	}
	defer leaves.Close()
	os.Remove(leaves.Name())
	lw := bufio.NewWriterSize(leaves, 1<<20)

	// levels[k] holds level k+1's nodes.
	levels := make([][]node, len(bounds)-1)
	levels[0] = make([]node, bounds[1][1]-bounds[1][0])
	for j := range levels[0] {
		levels[0][j] = emptyNode(uint64(bounds[0][0] + j*fgbNodeSize))
	}
	var it [fgbItemLen]byte
	var buf []byte
	le := binary.LittleEndian
	var featOff uint64
	for k, key := range keys {
		i := int64(uint32(key))
		if _, err := w.items.ReadAt(it[:], i*fgbItemLen); err != nil {
			return fmt.Errorf("reading back index item %d: %w", i, err)
		}
		nd := node{
			math.Float64frombits(le.Uint64(it[0:])), math.Float64frombits(le.Uint64(it[8:])),
			math.Float64frombits(le.Uint64(it[16:])), math.Float64frombits(le.Uint64(it[24:])),
			featOff,
		}
		featOff += uint64(le.Uint32(it[40:]))
		buf = appendNode(buf[:0], nd)
		if _, err := lw.Write(buf); err != nil {
			return err
		}
		levels[0][k/fgbNodeSize].expand(nd)
	}
	if err := lw.Flush(); err != nil {
		return err
	}
	for lv := 1; lv < len(levels); lv++ {
		child := levels[lv-1]
		cur := make([]node, bounds[lv+1][1]-bounds[lv+1][0])
		for j := range cur {
			cur[j] = emptyNode(uint64(bounds[lv][0] + j*fgbNodeSize))
			for c := j * fgbNodeSize; c < min(len(child), (j+1)*fgbNodeSize); c++ {
				cur[j].expand(child[c])
			}
		}
		levels[lv] = cur
	}
	for lv := len(levels) - 1; lv >= 0; lv-- {
		for _, nd := range levels[lv] {
			buf = appendNode(buf[:0], nd)
			if _, err := out.Write(buf); err != nil {
				return err
			}
		}
	}
	if _, err := io.Copy(out, io.NewSectionReader(leaves, 0, int64(n)*fgbNodeLen)); err != nil {
		return fmt.Errorf("copying the index leaves: %w", err)
	}
	return nil
}

// copyFeatures copies the features from the scratch file in key order.
func (w *fgbWriter) copyFeatures(out *bufio.Writer, keys []uint64) error {
	var it [fgbItemLen]byte
	var buf []byte
	le := binary.LittleEndian
	for _, key := range keys {
		i := int64(uint32(key))
		if _, err := w.items.ReadAt(it[:], i*fgbItemLen); err != nil {
			return fmt.Errorf("reading back index item %d: %w", i, err)
		}
		off, size := le.Uint64(it[32:]), int(le.Uint32(it[40:]))
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		buf = buf[:size]
		if _, err := w.feats.ReadAt(buf, int64(off)); err != nil {
			return fmt.Errorf("reading back feature %d: %w", i, err)
		}
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// hilbert maps a point of a 65536 x 65536 grid to its position along a
// Hilbert curve (the branch-free method of the FlatGeobuf and flatbush
// reference implementations).
func hilbert(x, y uint32) uint32 {
	a := x ^ y
	b := 0xFFFF ^ a
	c := 0xFFFF ^ (x | y)
	d := x & (y ^ 0xFFFF)

	A := a | (b >> 1)
	B := (a >> 1) ^ a
	C := ((c >> 1) ^ (b & (d >> 1))) ^ c
	D := ((a & (c >> 1)) ^ (d >> 1)) ^ d

	a, b, c, d = A, B, C, D
	A = (a & (a >> 2)) ^ (b & (b >> 2))
	B = (a & (b >> 2)) ^ (b & ((a ^ b) >> 2))
	C ^= (a & (c >> 2)) ^ (b & (d >> 2))
	D ^= (b & (c >> 2)) ^ ((a ^ b) & (d >> 2))

	a, b, c, d = A, B, C, D
	A = (a & (a >> 4)) ^ (b & (b >> 4))
	B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4))
	C ^= (a & (c >> 4)) ^ (b & (d >> 4))
	D ^= (b & (c >> 4)) ^ ((a ^ b) & (d >> 4))

	a, b, c, d = A, B, C, D
	C ^= (a & (c >> 8)) ^ (b & (d >> 8))
	D ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8))

	a = C ^ (C >> 1)
	b = D ^ (D >> 1)

	i0 := x ^ y
	i1 := b | (0xFFFF ^ (i0 | a))

	i0 = (i0 | (i0 << 8)) & 0x00FF00FF
	i0 = (i0 | (i0 << 4)) & 0x0F0F0F0F
	i0 = (i0 | (i0 << 2)) & 0x33333333
	i0 = (i0 | (i0 << 1)) & 0x55555555

	i1 = (i1 | (i1 << 8)) & 0x00FF00FF
	i1 = (i1 | (i1 << 4)) & 0x0F0F0F0F
	i1 = (i1 | (i1 << 2)) & 0x33333333
	i1 = (i1 | (i1 << 1)) & 0x55555555

	return (i1 << 1) | i0
}

// cleanup closes and removes every file this writer made.
func (w *fgbWriter) cleanup() {
	for _, f := range []*os.File{w.out, w.feats, w.items} {
		if f != nil {
			f.Close()
		}
	}
	if w.out != nil {
		os.Remove(w.out.Name())
	}
}

func (w *fgbWriter) Abort() error {
	if w.abort() {
		w.cleanup()
	}
	return nil
}
