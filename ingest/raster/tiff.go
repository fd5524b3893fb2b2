package raster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// TIFF field types (TIFF 6.0 §2, BigTIFF adds 16-18).
const (
	typeByte      = 1
	typeASCII     = 2
	typeShort     = 3
	typeLong      = 4
	typeRational  = 5
	typeSByte     = 6
	typeUndefined = 7
	typeSShort    = 8
	typeSLong     = 9
	typeSRational = 10
	typeFloat     = 11
	typeDouble    = 12
	typeIFD       = 13
	typeLong8     = 16
	typeSLong8    = 17
	typeIFD8      = 18
)

// Tags this package reads; every other tag is skipped.
const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagPredictor       = 317
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagSampleFormat    = 339
	tagModelPixelScale = 33550
	tagModelTiepoint   = 33922
	tagModelTransform  = 34264
	tagGeoKeyDirectory = 34735
	tagGeoDoubleParams = 34736
	tagGeoASCIIParams  = 34737
	tagGDALNoData      = 42113
)

// maxIFDEntries bounds the directory size; real files have a few dozen.
const maxIFDEntries = 4096

func typeSize(t uint16) uint64 {
	switch t {
	case typeByte, typeASCII, typeSByte, typeUndefined:
		return 1
	case typeShort, typeSShort:
		return 2
	case typeLong, typeSLong, typeFloat, typeIFD:
		return 4
	case typeRational, typeSRational, typeDouble, typeLong8, typeSLong8, typeIFD8:
		return 8
	}
	return 0
}

// entry is one IFD field; inline holds the value when it fits in the
// entry's value slot, otherwise off points at it.
type entry struct {
	tag    uint16
	typ    uint16
	count  uint64
	inline []byte
	off    uint64
}

// tiffFile reads a TIFF's header and fields, checking every offset and
// length against the file size before allocating or reading.
type tiffFile struct {
	r     io.ReaderAt
	size  int64
	name  string
	order binary.ByteOrder
	big   bool
}

func (t *tiffFile) errf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", t.name, fmt.Sprintf(format, args...))
}

// readAt reads n bytes at off, or says why it cannot.
func (t *tiffFile) readAt(off, n uint64, what string) ([]byte, error) {
	if off > uint64(t.size) || n > uint64(t.size)-off {
		return nil, t.errf("%s at offset %d (%d bytes) lies beyond the end of the file (%d bytes): file truncated or corrupt", what, off, n, t.size)
	}
	b := make([]byte, n)
	if _, err := t.r.ReadAt(b, int64(off)); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, t.errf("reading %s at offset %d: %v", what, off, err)
	}
	return b, nil
}

// readHeader parses the 8- or 16-byte header and returns the first IFD offset.
func (t *tiffFile) readHeader() (uint64, error) {
	if t.size < 8 {
		return 0, t.errf("not a TIFF file: only %d bytes", t.size)
	}
	n := uint64(16)
	if t.size < 16 {
		n = 8
	}
	h, err := t.readAt(0, n, "header")
	if err != nil {
		return 0, err
	}
	switch string(h[:2]) {
	case "II":
		t.order = binary.LittleEndian
	case "MM":
		t.order = binary.BigEndian
	default:
		return 0, t.errf("not a TIFF file: it starts with %q, not II or MM", h[:2])
	}
	switch v := t.order.Uint16(h[2:]); v {
	case 42:
		return uint64(t.order.Uint32(h[4:])), nil
	case 43:
		if n < 16 {
			return 0, t.errf("BigTIFF header truncated")
		}
		if t.order.Uint16(h[4:]) != 8 || t.order.Uint16(h[6:]) != 0 {
			return 0, t.errf("BigTIFF header has offset size %d, want 8", t.order.Uint16(h[4:]))
		}
		t.big = true
		return t.order.Uint64(h[8:]), nil
	default:
		return 0, t.errf("not a TIFF file: version %d (want 42, or 43 for BigTIFF)", v)
	}
}

// readIFD reads the directory at off into a map by tag (first one wins).
func (t *tiffFile) readIFD(off uint64) (map[uint16]entry, error) {
	if off < 8 {
		return nil, t.errf("first image directory offset %d is inside the header: corrupt", off)
	}
	countSize, entrySize, slot := uint64(2), uint64(12), uint64(4)
	if t.big {
		countSize, entrySize, slot = 8, 20, 8
	}
	cb, err := t.readAt(off, countSize, "image directory")
	if err != nil {
		return nil, err
	}
	var n uint64
	if t.big {
		n = t.order.Uint64(cb)
	} else {
		n = uint64(t.order.Uint16(cb))
	}
	if n == 0 || n > maxIFDEntries {
		return nil, t.errf("image directory at offset %d has %d entries: corrupt", off, n)
	}
	b, err := t.readAt(off+countSize, n*entrySize, "image directory")
	if err != nil {
		return nil, err
	}
	m := make(map[uint16]entry, n)
	for i := uint64(0); i < n; i++ {
		e := b[i*entrySize : (i+1)*entrySize]
		var en entry
		en.tag = t.order.Uint16(e)
		en.typ = t.order.Uint16(e[2:])
		var val []byte
		if t.big {
			en.count = t.order.Uint64(e[4:])
			val = e[12:20]
		} else {
			en.count = uint64(t.order.Uint32(e[4:]))
			val = e[8:12]
		}
		if _, dup := m[en.tag]; dup {
			continue
		}
		ts := typeSize(en.typ)
		if ts == 0 {
			continue // unknown type: the field is skipped, as libtiff does
		}
		if en.count > uint64(t.size) { // cannot fit: it would fail below, but avoid overflow
			en.off = math.MaxUint64
		} else if en.count*ts <= slot {
			en.inline = val[:en.count*ts]
		} else if t.big {
			en.off = t.order.Uint64(val)
		} else {
			en.off = uint64(t.order.Uint32(val))
		}
		m[en.tag] = en
	}
	return m, nil
}

// data returns the raw bytes of the field's value.
func (t *tiffFile) data(e entry) ([]byte, error) {
	if e.inline != nil || e.count == 0 {
		return e.inline, nil
	}
	ts := typeSize(e.typ)
	if e.count > uint64(t.size)/ts {
		return nil, t.errf("tag %d declares %d values, more than the file holds: corrupt", e.tag, e.count)
	}
	return t.readAt(e.off, e.count*ts, fmt.Sprintf("tag %d", e.tag))
}

// uints decodes an unsigned integer field.
func (t *tiffFile) uints(e entry) ([]uint64, error) {
	switch e.typ {
	case typeByte, typeShort, typeLong, typeLong8, typeIFD, typeIFD8, typeUndefined:
	default:
		return nil, t.errf("tag %d has type %d, want an unsigned integer", e.tag, e.typ)
	}
	b, err := t.data(e)
	if err != nil {
		return nil, err
	}
	ts := typeSize(e.typ)
	out := make([]uint64, len(b)/int(ts))
	for i := range out {
		p := b[i*int(ts):]
		switch ts {
		case 1:
			out[i] = uint64(p[0])
		case 2:
			out[i] = uint64(t.order.Uint16(p))
		case 4:
			out[i] = uint64(t.order.Uint32(p))
		default:
			out[i] = t.order.Uint64(p)
		}
	}
	return out, nil
}

// floats decodes a numeric field of any type as float64.
func (t *tiffFile) floats(e entry) ([]float64, error) {
	if e.typ == typeASCII {
		return nil, t.errf("tag %d has type ASCII, want numbers", e.tag)
	}
	b, err := t.data(e)
	if err != nil {
		return nil, err
	}
	ts := int(typeSize(e.typ))
	out := make([]float64, len(b)/ts)
	for i := range out {
		p := b[i*ts:]
		switch e.typ {
		case typeByte, typeUndefined:
			out[i] = float64(p[0])
		case typeSByte:
			out[i] = float64(int8(p[0]))
		case typeShort:
			out[i] = float64(t.order.Uint16(p))
		case typeSShort:
			out[i] = float64(int16(t.order.Uint16(p)))
		case typeLong, typeIFD:
			out[i] = float64(t.order.Uint32(p))
		case typeSLong:
			out[i] = float64(int32(t.order.Uint32(p)))
		case typeLong8, typeIFD8:
			out[i] = float64(t.order.Uint64(p))
		case typeSLong8:
			out[i] = float64(int64(t.order.Uint64(p)))
		case typeFloat:
			out[i] = float64(math.Float32frombits(t.order.Uint32(p)))
		case typeDouble:
			out[i] = math.Float64frombits(t.order.Uint64(p))
		case typeRational:
			out[i] = float64(t.order.Uint32(p)) / float64(t.order.Uint32(p[4:]))
		case typeSRational:
			out[i] = float64(int32(t.order.Uint32(p))) / float64(int32(t.order.Uint32(p[4:])))
		}
	}
	return out, nil
}

// ascii decodes a text field, dropping the NUL terminator(s).
func (t *tiffFile) ascii(e entry) (string, error) {
	b, err := t.data(e)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\x00"), nil
}

// scalar returns the single unsigned value of a field, or def when absent.
// A field holding several values (BitsPerSample, SampleFormat) must hold the
// same value in each: mixed sample layouts are refused by the caller.
func (t *tiffFile) scalar(m map[uint16]entry, tag uint16, def uint64) (v uint64, all []uint64, err error) {
	e, ok := m[tag]
	if !ok {
		return def, nil, nil
	}
	vs, err := t.uints(e)
	if err != nil {
		return 0, nil, err
	}
	if len(vs) == 0 {
		return def, nil, nil
	}
	return vs[0], vs, nil
}
