package raster

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"sort"
	"testing"
)

// This file holds a small GeoTIFF writer for the tests: classic or BigTIFF,
// either byte order, strips or tiles, chunky or planar, no compression,
// Deflate or PackBits, predictors 2 and 3, every sample type. LZW files come
// from GDAL (testdata and the GDAL tests), as Go has no TIFF-flavoured LZW
// encoder.

type encOpts struct {
	big, be        bool
	tiled          bool
	tileW, tileH   int
	rowsPerStrip   int // 0: one strip for the whole image
	comp, pred     int
	planar         bool
	kind           sampleKind
	x0, y0, dx, dy float64 // north-up geotransform (dy > 0 means rows go south)
	matrix         bool    // write ModelTransformation instead of tiepoint+scale
	shear          float64 // ModelTransformation row term for longitude
	noGeoref       bool
	geoKeys        []uint16 // nil: WGS 84 (EPSG:4326), PixelIsArea
	noGeoKeys      bool
	pointRaster    bool // PixelIsPoint
	nodata         string
	sparse         map[int]bool // chunks left unwritten (offset 0, length 0)
	ifdLast        bool         // directory after the pixel data (default: before)
}

func defaultOpts() encOpts {
	return encOpts{comp: compNone, pred: predNone, kind: kF32, x0: 3, y0: 10, dx: 1.0 / 1200, dy: 1.0 / 1200}
}

// wgs84Keys returns the GeoKeyDirectory GDAL writes for EPSG:4326.
func wgs84Keys(point bool) []uint16 {
	rt := uint16(1)
	if point {
		rt = 2
	}
	return []uint16{1, 1, 0, 4,
		keyModelType, 0, 1, modelGeographic,
		keyRasterType, 0, 1, rt,
		keyGeographicType, 0, 1, epsgWGS84,
		keyGeogAngularUnit, 0, 1, unitDegree}
}

func kindBits(k sampleKind) (bits, format int) {
	switch k {
	case kU8:
		return 8, 1
	case kI8:
		return 8, 2
	case kU16:
		return 16, 1
	case kI16:
		return 16, 2
	case kU32:
		return 32, 1
	case kI32:
		return 32, 2
	case kU64:
		return 64, 1
	case kI64:
		return 64, 2
	case kF32:
		return 32, 3
	}
	return 64, 3
}

// sampleBits returns v's bit pattern in the sample type.
func sampleBits(k sampleKind, v float64) uint64 {
	switch k {
	case kU8, kU16, kU32, kU64:
		return uint64(v)
	case kI8, kI16, kI32, kI64:
		return uint64(int64(v))
	case kF32:
		return uint64(math.Float32bits(float32(v)))
	}
	return math.Float64bits(v)
}

type tagVal struct {
	tag, typ uint16
	count    uint64
	data     []byte // in file byte order
}

// encodeTIFF writes bands (each w*h values, row-major) as a GeoTIFF.
func encodeTIFF(t testing.TB, w, h int, bands [][]float64, o encOpts) []byte {
	t.Helper()
	var order binary.ByteOrder = binary.LittleEndian
	if o.be {
		order = binary.BigEndian
	}
	spp := len(bands)
	bits, format := kindBits(o.kind)
	size := bits / 8
	cw, ch := w, h
	if o.tiled {
		cw, ch = o.tileW, o.tileH
	} else if o.rowsPerStrip > 0 {
		ch = o.rowsPerStrip
	}
	across, down := (w+cw-1)/cw, (h+ch-1)/ch
	planes := 1
	stride := spp
	if o.planar {
		planes, stride = spp, 1
	}
	// Chunk data, in chunk order.
	var chunks [][]byte
	for p := 0; p < planes; p++ {
		for tr := 0; tr < down; tr++ {
			for tc := 0; tc < across; tc++ {
				rows := ch
				if !o.tiled {
					rows = min(ch, h-tr*ch)
				}
				var raw []byte
				for yy := 0; yy < rows; yy++ {
					row := make([]byte, cw*stride*size)
					y := tr*ch + yy
					for xx := 0; xx < cw; xx++ {
						x := tc*cw + xx
						for s := 0; s < stride; s++ {
							band := s
							if o.planar {
								band = p
							}
							var b uint64
							if x < w && y < h {
								b = sampleBits(o.kind, bands[band][y*w+x])
							}
							off := (xx*stride + s) * size
							putBits(order, row[off:], size, b)
						}
					}
					raw = append(raw, predict(order, row, size, stride, o.pred)...)
				}
				chunks = append(chunks, compress(t, raw, o.comp))
			}
		}
	}
	hdr := 8
	if o.big {
		hdr = 16
	}
	// The directory's size does not depend on the offsets it holds, so it
	// is built once to measure it and again with the real offsets.
	dirLen := len(o.directory(t, order, w, h, spp, bits, format, cw, ch, chunks, 0, 0))
	dataBase, ifdOff := uint64(hdr+dirLen), uint64(hdr)
	if o.ifdLast {
		dataBase = uint64(hdr)
		for _, c := range chunks {
			ifdOff += uint64(len(c) + len(c)%2)
		}
	}
	dir := o.directory(t, order, w, h, spp, bits, format, cw, ch, chunks, dataBase, ifdOff)
	var data bytes.Buffer
	for i, c := range chunks {
		if o.sparse[i] {
			continue
		}
		data.Write(c)
		if len(c)%2 == 1 {
			data.WriteByte(0)
		}
	}
	out := make([]byte, hdr)
	if o.ifdLast {
		out = append(append(out, data.Bytes()...), dir...)
	} else {
		out = append(append(out, dir...), data.Bytes()...)
	}
	if o.be {
		copy(out, "MM")
	} else {
		copy(out, "II")
	}
	if o.big {
		order.PutUint16(out[2:], 43)
		order.PutUint16(out[4:], 8)
		order.PutUint64(out[8:], ifdOff)
	} else {
		order.PutUint16(out[2:], 42)
		order.PutUint32(out[4:], uint32(ifdOff))
	}
	return out
}

// directory returns the IFD and its out-of-line values, to be written at
// ifdOff, for chunk data written from dataBase on (in order, padded to even
// lengths, sparse chunks left out).
func (o encOpts) directory(t testing.TB, order binary.ByteOrder, w, h, spp, bits, format, cw, ch int, chunks [][]byte, dataBase, ifdOff uint64) []byte {
	offs := make([]uint64, len(chunks))
	cnts := make([]uint64, len(chunks))
	pos := dataBase
	for i, c := range chunks {
		if o.sparse[i] {
			continue
		}
		offs[i], cnts[i] = pos, uint64(len(c))
		pos += uint64(len(c) + len(c)%2)
	}
	var tags []tagVal
	short := func(tag uint16, vs ...uint64) {
		b := make([]byte, 2*len(vs))
		for i, v := range vs {
			order.PutUint16(b[2*i:], uint16(v))
		}
		tags = append(tags, tagVal{tag, typeShort, uint64(len(vs)), b})
	}
	long := func(tag uint16, vs ...uint64) {
		if o.big {
			b := make([]byte, 8*len(vs))
			for i, v := range vs {
				order.PutUint64(b[8*i:], v)
			}
			tags = append(tags, tagVal{tag, typeLong8, uint64(len(vs)), b})
			return
		}
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			order.PutUint32(b[4*i:], uint32(v))
		}
		tags = append(tags, tagVal{tag, typeLong, uint64(len(vs)), b})
	}
	double := func(tag uint16, vs ...float64) {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			order.PutUint64(b[8*i:], math.Float64bits(v))
		}
		tags = append(tags, tagVal{tag, typeDouble, uint64(len(vs)), b})
	}
	ascii := func(tag uint16, s string) {
		tags = append(tags, tagVal{tag, typeASCII, uint64(len(s) + 1), append([]byte(s), 0)})
	}
	rep := func(v uint64) []uint64 {
		vs := make([]uint64, spp)
		for i := range vs {
			vs[i] = v
		}
		return vs
	}
	long(tagImageWidth, uint64(w))
	long(tagImageLength, uint64(h))
	short(tagBitsPerSample, rep(uint64(bits))...)
	short(tagCompression, uint64(o.comp))
	short(262, 1)
	short(tagSamplesPerPixel, uint64(spp))
	if o.planar {
		short(tagPlanarConfig, 2)
	} else {
		short(tagPlanarConfig, 1)
	}
	if o.pred != predNone {
		short(tagPredictor, uint64(o.pred))
	}
	short(tagSampleFormat, rep(uint64(format))...)
	if o.tiled {
		long(tagTileWidth, uint64(cw))
		long(tagTileLength, uint64(ch))
		long(tagTileOffsets, offs...)
		long(tagTileByteCounts, cnts...)
	} else {
		long(tagRowsPerStrip, uint64(ch))
		long(tagStripOffsets, offs...)
		long(tagStripByteCounts, cnts...)
	}
	if !o.noGeoref {
		if o.matrix {
			double(tagModelTransform, o.dx, o.shear, 0, o.x0, 0, -o.dy, 0, o.y0, 0, 0, 0, 0, 0, 0, 0, 1)
		} else {
			x0, y0 := o.x0, o.y0
			if o.pointRaster { // the tiepoint names the first pixel's centre
				x0, y0 = x0+o.dx/2, y0-o.dy/2
			}
			double(tagModelPixelScale, o.dx, o.dy, 0)
			double(tagModelTiepoint, 0, 0, 0, x0, y0, 0)
		}
	}
	if !o.noGeoKeys {
		keys := o.geoKeys
		if keys == nil {
			keys = wgs84Keys(o.pointRaster)
		}
		short(tagGeoKeyDirectory, u64s(keys)...)
	}
	if o.nodata != "" {
		ascii(tagGDALNoData, o.nodata)
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].tag < tags[j].tag })

	slot, entrySize, countSize := 4, 12, 2
	if o.big {
		slot, entrySize, countSize = 8, 20, 8
	}
	extraOff := ifdOff + uint64(countSize+len(tags)*entrySize+slot)
	var ifd, extra bytes.Buffer
	put := func(n int, v uint64) {
		b := make([]byte, n)
		switch n {
		case 2:
			order.PutUint16(b, uint16(v))
		case 4:
			order.PutUint32(b, uint32(v))
		case 8:
			order.PutUint64(b, v)
		}
		ifd.Write(b)
	}
	put(countSize, uint64(len(tags)))
	for _, tg := range tags {
		put(2, uint64(tg.tag))
		put(2, uint64(tg.typ))
		if o.big {
			put(8, tg.count)
		} else {
			put(4, tg.count)
		}
		if len(tg.data) <= slot {
			v := make([]byte, slot)
			copy(v, tg.data)
			ifd.Write(v)
		} else {
			put(slot, extraOff+uint64(extra.Len()))
			extra.Write(tg.data)
			if extra.Len()%2 == 1 {
				extra.WriteByte(0)
			}
		}
	}
	put(slot, 0) // no next IFD
	return append(ifd.Bytes(), extra.Bytes()...)
}

func u64s(vs []uint16) []uint64 {
	out := make([]uint64, len(vs))
	for i, v := range vs {
		out[i] = uint64(v)
	}
	return out
}

func putBits(order binary.ByteOrder, p []byte, size int, b uint64) {
	switch size {
	case 1:
		p[0] = byte(b)
	case 2:
		order.PutUint16(p, uint16(b))
	case 4:
		order.PutUint32(p, uint32(b))
	default:
		order.PutUint64(p, b)
	}
}

func getBits(order binary.ByteOrder, p []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(order.Uint16(p))
	case 4:
		return uint64(order.Uint32(p))
	}
	return order.Uint64(p)
}

// predict applies predictor 2 or 3 to one chunk row (in file byte order).
func predict(order binary.ByteOrder, row []byte, size, stride, pred int) []byte {
	switch pred {
	case predHorizontal:
		n := len(row) / size
		out := make([]byte, len(row))
		mask := ^uint64(0)
		if size < 8 {
			mask = 1<<(8*size) - 1
		}
		for i := 0; i < n; i++ {
			v := getBits(order, row[i*size:], size)
			if i >= stride {
				v = (v - getBits(order, row[(i-stride)*size:], size)) & mask
			}
			putBits(order, out[i*size:], size, v)
		}
		return out
	case predFloatingPnt:
		wc := len(row) / size
		sh := make([]byte, len(row))
		for i := 0; i < wc; i++ {
			v := getBits(order, row[i*size:], size)
			for k := 0; k < size; k++ { // plane k holds byte size-1-k in file order (see decode.go)
				if order == binary.LittleEndian {
					sh[k*wc+i] = byte(v >> (8 * (size - 1 - k)))
				} else {
					sh[k*wc+i] = byte(v >> (8 * k))
				}
			}
		}
		for i := len(sh) - 1; i >= stride; i-- {
			sh[i] -= sh[i-stride]
		}
		return sh
	}
	return row
}

func compress(t testing.TB, raw []byte, comp int) []byte {
	switch comp {
	case compDeflate, compDeflateOld:
		var b bytes.Buffer
		z := zlib.NewWriter(&b)
		z.Write(raw)
		z.Close()
		return b.Bytes()
	case compPackBits:
		var b []byte
		for i := 0; i < len(raw); {
			// a run of 3+ equal bytes becomes a repeat, otherwise literals
			j := i + 1
			for j < len(raw) && j-i < 128 && raw[j] == raw[i] {
				j++
			}
			if j-i >= 3 {
				b = append(b, byte(int8(1-(j-i))), raw[i])
				i = j
				continue
			}
			j = i
			for j < len(raw) && j-i < 128 && !(j+2 < len(raw) && raw[j] == raw[j+1] && raw[j] == raw[j+2]) {
				j++
			}
			if j == i {
				j = i + 1
			}
			b = append(b, byte(j-i-1))
			b = append(b, raw[i:j]...)
			i = j
		}
		return b
	case compNone:
		return raw
	}
	t.Fatalf("test encoder: compression %d not supported", comp)
	return nil
}
