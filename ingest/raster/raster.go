package raster

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"frameindex/grid"
)

// Compression codes this package decodes.
const (
	compNone        = 1
	compLZW         = 5
	compDeflate     = 8
	compPackBits    = 32773
	compDeflateOld  = 32946
	predNone        = 1
	predHorizontal  = 2
	predFloatingPnt = 3
)

// Limits that keep a lying header from costing memory the file cannot
// justify. A block is the rows decoded at once: one row of tiles, or a
// group of strip rows.
const (
	maxWidth      = 1 << 22   // pixels in a row (more than the world at 1 arc-second)
	maxRowBytes   = 64 << 20  // one decoded strip or tile row, all bands
	maxBlockBytes = 256 << 20 // float64 values of one row of tiles
	freeBytes     = 64 << 20  // buffers up to this size need no justification
)

// justified reports whether a buffer of n bytes is reasonable for a file of
// the given size: small buffers always are, large ones only for files at
// least a sixteenth as large (a lying header in a small file gets no more).
func justified(n uint64, size int64) bool {
	return n <= freeBytes || n <= 16*uint64(size)
}

// stripBlockGoal is the size of the float64 values of a group of strip rows
// decoded at once (a variable so that tests can make tall strips split).
var stripBlockGoal = 8 << 20

// maxRatio is the most a compressed byte can expand to under each scheme,
// with a margin: deflate's limit is 1032:1, TIFF LZW's about 2730:1 (12-bit
// codes of up to 4094 bytes), PackBits' 64:1.
func maxRatio(comp int) uint64 {
	switch comp {
	case compLZW:
		return 4096
	case compDeflate, compDeflateOld:
		return 1100
	case compPackBits:
		return 130
	}
	return 1
}

var compressionNames = map[int]string{
	1: "none", 2: "CCITT RLE", 3: "CCITT fax 3", 4: "CCITT fax 4", 5: "LZW",
	6: "old-style JPEG", 7: "JPEG", 8: "Deflate", 32773: "PackBits",
	32946: "Deflate", 34676: "SGILOG", 34712: "JPEG 2000", 34887: "LERC",
	34925: "LZMA", 50000: "ZSTD", 50001: "WEBP", 50002: "JPEG XL",
}

func compressionName(c int) string {
	if n, ok := compressionNames[c]; ok {
		return n
	}
	return "unknown"
}

// sampleKind is the in-file type of one sample.
type sampleKind int

const (
	kU8 sampleKind = iota
	kI8
	kU16
	kI16
	kU32
	kI32
	kU64
	kI64
	kF32
	kF64
)

var kindNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32", "float64"}

// Raster is an opened GeoTIFF: its layout, georeferencing and nodata value,
// read by Open from the header alone. Pixels are read by Rows and Frames.
//
// A Raster is immutable after Open; its methods may be called from several
// goroutines at once provided the io.ReaderAt allows concurrent ReadAt
// calls (an *os.File does).
type Raster struct {
	t tiffFile

	width, height int
	spp           int // samples per pixel (bands)
	bytesPS       int // bytes per sample
	kind          sampleKind
	comp          int
	pred          int
	planar        bool // PlanarConfiguration 2: one plane of chunks per band

	// Chunks are strips or tiles; strips are tiles chunkW = width wide.
	tiled          bool
	chunkW, chunkH int
	across, down   int
	offsets        []uint64
	counts         []uint64

	nodata     float64
	hasNodata  bool
	nodataText string

	tr  transform
	crs string
}

// Open reads the TIFF header, first image directory and georeferencing of
// the GeoTIFF f (size bytes long; name is used in error messages only). No
// pixel data is read, but every strip or tile's offset and length is checked
// against the file size and against what its compression can expand to.
//
// Errors name the file and say what is wrong: not a TIFF, corrupt or
// truncated directory, unsupported compression, predictor or sample format,
// missing georeferencing, a rotated or sheared transform, or a CRS other
// than geographic WGS 84 (a projected raster's error names its EPSG code
// and says to reproject it with gdalwarp -t_srs EPSG:4326).
func Open(f io.ReaderAt, size int64, name string) (*Raster, error) {
	r := &Raster{t: tiffFile{r: f, size: size, name: name}}
	t := &r.t
	ifd, err := t.readHeader()
	if err != nil {
		return nil, err
	}
	m, err := t.readIFD(ifd)
	if err != nil {
		return nil, err
	}
	if err := r.readLayout(m); err != nil {
		return nil, err
	}
	g, err := t.readGeoKeys(m)
	if err != nil {
		return nil, err
	}
	if r.tr, err = t.readTransform(m, g); err != nil {
		return nil, err
	}
	if r.crs, err = t.checkCRS(g); err != nil {
		return nil, err
	}
	b := r.Bounds()
	if b.MaxLon <= -180 || b.MinLon >= 180 || b.MaxLat <= -90 || b.MinLat >= 90 {
		return nil, t.errf("the raster (lon %g…%g, lat %g…%g) lies outside the world's longitude/latitude range; is it really in EPSG:4326 degrees?", b.MinLon, b.MaxLon, b.MinLat, b.MaxLat)
	}
	if e, ok := m[tagGDALNoData]; ok {
		s, err := t.ascii(e)
		if err != nil {
			return nil, err
		}
		r.nodataText = strings.TrimSpace(s)
		v, err := strconv.ParseFloat(r.nodataText, 64)
		if err != nil {
			// strconv does not know GDAL's spellings of NaN and infinities.
			switch strings.ToLower(r.nodataText) {
			case "nan", "-nan", "1.#qnan", "-1.#ind":
				v, err = math.NaN(), nil
			case "inf", "+inf", "1.#inf":
				v, err = math.Inf(1), nil
			case "-inf", "-1.#inf":
				v, err = math.Inf(-1), nil
			}
		}
		if err != nil {
			return nil, t.errf("GDAL_NODATA value %q is not a number", r.nodataText)
		}
		r.nodata, r.hasNodata = v, true
	}
	return r, nil
}

// readLayout reads image size, sample layout, compression and the chunk
// tables, refusing what cannot be decoded.
func (r *Raster) readLayout(m map[uint16]entry) error {
	t := &r.t
	req := func(tag uint16, name string) (uint64, error) {
		if _, ok := m[tag]; !ok {
			return 0, t.errf("%s (tag %d) is missing: not a raster TIFF or corrupt", name, tag)
		}
		v, _, err := t.scalar(m, tag, 0)
		return v, err
	}
	w, err := req(tagImageWidth, "ImageWidth")
	if err != nil {
		return err
	}
	h, err := req(tagImageLength, "ImageLength")
	if err != nil {
		return err
	}
	if w == 0 || h == 0 {
		return t.errf("image is %d×%d pixels: empty", w, h)
	}
	if w > maxWidth || h > 1<<31-1 {
		return t.errf("image is %d×%d pixels, beyond this reader's limit of %d pixels a row", w, h, maxWidth)
	}
	r.width, r.height = int(w), int(h)
	spp, _, err := t.scalar(m, tagSamplesPerPixel, 1)
	if err != nil {
		return err
	}
	if spp == 0 || spp > 1<<10 {
		return t.errf("SamplesPerPixel %d: corrupt", spp)
	}
	r.spp = int(spp)
	bits, allBits, err := t.scalar(m, tagBitsPerSample, 1)
	if err != nil {
		return err
	}
	for _, b := range allBits {
		if b != bits {
			return t.errf("bands have different BitsPerSample %v; convert with gdal_translate -ot Float32 first", allBits)
		}
	}
	format, allFormats, err := t.scalar(m, tagSampleFormat, 1)
	if err != nil {
		return err
	}
	for _, f := range allFormats {
		if f != format {
			return t.errf("bands have different SampleFormat %v; convert with gdal_translate -ot Float32 first", allFormats)
		}
	}
	if r.kind, err = sampleKindOf(format, bits); err != nil {
		return t.errf("%v", err)
	}
	r.bytesPS = int(bits / 8)
	comp, _, err := t.scalar(m, tagCompression, compNone)
	if err != nil {
		return err
	}
	switch comp {
	case compNone, compLZW, compDeflate, compDeflateOld, compPackBits:
		r.comp = int(comp)
	default:
		return t.errf("compression %d (%s) is not supported (only none, LZW, Deflate and PackBits); recompress with gdal_translate -co COMPRESS=DEFLATE in.tif out.tif", comp, compressionName(int(comp)))
	}
	pred, _, err := t.scalar(m, tagPredictor, predNone)
	if err != nil {
		return err
	}
	switch {
	case pred == predNone, pred == predHorizontal:
	case pred == predFloatingPnt && (r.kind == kF32 || r.kind == kF64):
	case pred == predFloatingPnt:
		return t.errf("floating-point predictor (3) on %s samples: corrupt (it applies to float samples only)", kindNames[r.kind])
	default:
		return t.errf("predictor %d is not supported (only 1, 2 and 3)", pred)
	}
	if r.comp == compNone {
		pred = predNone // libtiff ignores the predictor of uncompressed data
	}
	r.pred = int(pred)
	pc, _, err := t.scalar(m, tagPlanarConfig, 1)
	if err != nil {
		return err
	}
	switch pc {
	case 1:
	case 2:
		r.planar = r.spp > 1
	default:
		return t.errf("PlanarConfiguration %d: corrupt (want 1 or 2)", pc)
	}
	return r.readChunks(m)
}

func sampleKindOf(format, bits uint64) (sampleKind, error) {
	switch format {
	case 1, 4: // 4 is "undefined", read as unsigned like GDAL does
		switch bits {
		case 8:
			return kU8, nil
		case 16:
			return kU16, nil
		case 32:
			return kU32, nil
		case 64:
			return kU64, nil
		}
	case 2:
		switch bits {
		case 8:
			return kI8, nil
		case 16:
			return kI16, nil
		case 32:
			return kI32, nil
		case 64:
			return kI64, nil
		}
	case 3:
		switch bits {
		case 32:
			return kF32, nil
		case 64:
			return kF64, nil
		}
		return 0, fmt.Errorf("%d-bit floating-point samples are not supported (only 32 and 64); convert with gdal_translate -ot Float32 in.tif out.tif", bits)
	default:
		return 0, fmt.Errorf("SampleFormat %d is not supported (complex numbers?); only integers and floats", format)
	}
	return 0, fmt.Errorf("%d-bit samples are not supported (only 8, 16, 32 and 64); convert with gdal_translate -ot Byte or -ot Int16 in.tif out.tif", bits)
}

// readChunks reads the strip or tile tables and checks every chunk against
// the file size and its compression's expansion limit.
func (r *Raster) readChunks(m map[uint16]entry) error {
	t := &r.t
	offTag, cntTag, unit := uint16(tagStripOffsets), uint16(tagStripByteCounts), "strip"
	if _, ok := m[tagTileWidth]; ok {
		r.tiled = true
		offTag, cntTag, unit = tagTileOffsets, tagTileByteCounts, "tile"
		tw, _, err := t.scalar(m, tagTileWidth, 0)
		if err != nil {
			return err
		}
		tl, _, err := t.scalar(m, tagTileLength, 0)
		if err != nil {
			return err
		}
		if tw == 0 || tl == 0 || tw > maxWidth || tl > maxWidth {
			return t.errf("tile size %d×%d: corrupt", tw, tl)
		}
		r.chunkW, r.chunkH = int(tw), int(tl)
	} else {
		rps, _, err := t.scalar(m, tagRowsPerStrip, math.MaxUint32)
		if err != nil {
			return err
		}
		if rps == 0 {
			return t.errf("RowsPerStrip is 0: corrupt")
		}
		r.chunkW, r.chunkH = r.width, int(min(rps, uint64(r.height)))
	}
	r.across = (r.width + r.chunkW - 1) / r.chunkW
	r.down = (r.height + r.chunkH - 1) / r.chunkH
	if rb := r.chunkRowBytes(); rb > maxRowBytes || !justified(rb, t.size) {
		return t.errf("one %s row holds %d bytes, more than this reader allows for a file of %d bytes: corrupt, or retile with gdal_translate -co TILED=YES in.tif out.tif", unit, rb, t.size)
	}
	if r.tiled {
		if bb := uint64(r.across*r.chunkW) * uint64(r.chunkH) * 8; bb > maxBlockBytes || !justified(bb, t.size) {
			return t.errf("a row of tiles (%d×%d pixels) needs %d MiB, more than this reader allows for a file of %d bytes; retile with gdal_translate -co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 in.tif out.tif",
				r.width, r.chunkH, bb>>20, t.size)
		}
	}
	planes := 1
	if r.planar {
		planes = r.spp
	}
	n := uint64(r.across) * uint64(r.down) * uint64(planes)
	oe, ok1 := m[offTag]
	ce, ok2 := m[cntTag]
	if !ok1 || !ok2 {
		return t.errf("%sOffsets or %sByteCounts is missing: corrupt", title(unit), title(unit))
	}
	if oe.count < n || ce.count < n {
		return t.errf("the image needs %d %ss but the file lists %d offsets and %d byte counts: corrupt", n, unit, oe.count, ce.count)
	}
	oe.count, ce.count = n, n // extra entries are ignored
	if oe.inline != nil {
		oe.inline = oe.inline[:n*typeSize(oe.typ)]
	}
	if ce.inline != nil {
		ce.inline = ce.inline[:n*typeSize(ce.typ)]
	}
	var err error
	if r.offsets, err = t.uints(oe); err != nil {
		return err
	}
	if r.counts, err = t.uints(ce); err != nil {
		return err
	}
	written := false
	for i := range r.offsets {
		if err := r.checkChunk(i); err != nil {
			return err
		}
		written = written || !r.sparse(i)
	}
	if !written {
		return t.errf("every %s is empty (offset and length 0): the raster holds no data", unit)
	}
	return nil
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// chunkRowBytes is the decoded size of one row of a chunk.
func (r *Raster) chunkRowBytes() uint64 {
	n := uint64(r.chunkW) * uint64(r.bytesPS)
	if !r.planar {
		n *= uint64(r.spp)
	}
	return n
}

// chunkRows is how many rows of chunk i lie inside the image: the rest of a
// bottom tile is padding that is never read, and the last strip is short.
func (r *Raster) chunkRows(i int) int {
	perPlane := r.across * r.down
	row := (i % perPlane) / r.across
	return min(r.chunkH, r.height-row*r.chunkH)
}

// sparse reports a chunk GDAL left unwritten (SPARSE_OK): offset and
// length 0. It reads as nodata, or 0 without a nodata value, as in GDAL.
func (r *Raster) sparse(i int) bool { return r.offsets[i] == 0 && r.counts[i] == 0 }

// chunkName names chunk i in errors: "strip 12" or "tile 7 (row 0, column 7)".
func (r *Raster) chunkName(i int) string {
	if !r.tiled {
		return fmt.Sprintf("strip %d", i)
	}
	perPlane := r.across * r.down
	j := i % perPlane
	s := fmt.Sprintf("tile %d (tile row %d, tile column %d", i, j/r.across, j%r.across)
	if r.planar {
		s += fmt.Sprintf(", band %d", i/perPlane+1)
	}
	return s + ")"
}

func (r *Raster) checkChunk(i int) error {
	if r.sparse(i) {
		return nil
	}
	off, cnt := r.offsets[i], r.counts[i]
	size := uint64(r.t.size)
	if off > size || cnt > size-off {
		return r.t.errf("%s: its data (offset %d, %d bytes) runs past the end of the file (%d bytes): file truncated or corrupt", r.chunkName(i), off, cnt, size)
	}
	need := uint64(r.chunkRows(i)) * r.chunkRowBytes()
	if r.comp == compNone {
		if cnt < need {
			return r.t.errf("%s holds %d bytes but its %d rows need %d: corrupt", r.chunkName(i), cnt, r.chunkRows(i), need)
		}
	} else if need > cnt*maxRatio(r.comp)+1024 {
		return r.t.errf("%s: %d compressed bytes cannot hold %d bytes of pixels under %s: corrupt", r.chunkName(i), cnt, need, compressionName(r.comp))
	}
	return nil
}

// Width returns the raster's width in pixels.
func (r *Raster) Width() int { return r.width }

// Height returns the raster's height in pixels.
func (r *Raster) Height() int { return r.height }

// Bands returns the number of bands (samples per pixel), numbered from 1.
func (r *Raster) Bands() int { return r.spp }

// NoData returns the GDAL_NODATA value and whether the file has one.
// Pixels equal to it (compared in the band's sample type) and NaN pixels
// count as missing.
func (r *Raster) NoData() (float64, bool) { return r.nodata, r.hasNodata }

// PixelSize returns the pixel width and height in degrees (both positive).
func (r *Raster) PixelSize() (dx, dy float64) { return r.tr.dx, r.tr.dy }

// Bounds returns the raster's outer edges in degrees, after GDAL's
// half-pixel shift for PixelIsPoint rasters. It may extend past the world's
// edges; pixels outside ±180°/±90° are ignored by Frames.
func (r *Raster) Bounds() grid.Box {
	return grid.Box{
		MinLon: r.tr.x0,
		MaxLon: r.tr.x0 + float64(r.width)*r.tr.dx,
		MaxLat: r.tr.y0,
		MinLat: r.tr.y0 - float64(r.height)*r.tr.dy,
	}
}

// Describe returns a one-line human description: size, bands and sample
// type, storage, pixel size and alignment to the frame lattice, CRS,
// bounds and nodata value.
func (r *Raster) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d×%d pixels, %d band", r.t.name, r.width, r.height, r.spp)
	if r.spp != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " of %s", kindNames[r.kind])
	if r.t.big {
		b.WriteString(", BigTIFF")
	}
	if r.tiled {
		fmt.Fprintf(&b, ", %d×%d tiles", r.chunkW, r.chunkH)
	} else {
		fmt.Fprintf(&b, ", strips of %d row", r.chunkH)
		if r.chunkH != 1 {
			b.WriteString("s")
		}
	}
	fmt.Fprintf(&b, ", compression %s", compressionName(r.comp))
	switch r.pred {
	case predHorizontal:
		b.WriteString(" with horizontal predictor")
	case predFloatingPnt:
		b.WriteString(" with floating-point predictor")
	}
	fmt.Fprintf(&b, "; pixel %s × %s", describePixel(r.tr.dx), describePixel(r.tr.dy))
	if kx, ky, ok := r.aligned(); ok {
		fmt.Fprintf(&b, " (%d×%d pixels a frame, aligned to the frame lattice)", kx, ky)
	} else {
		b.WriteString(" (not aligned to the frame lattice: pixels are split among frames by area)")
	}
	bb := r.Bounds()
	fmt.Fprintf(&b, "; %s; lon %.7g…%.7g, lat %.7g…%.7g", r.crs, bb.MinLon, bb.MaxLon, bb.MinLat, bb.MaxLat)
	if r.hasNodata {
		fmt.Fprintf(&b, "; nodata %s", r.nodataText)
	} else {
		b.WriteString("; no nodata value")
	}
	return b.String()
}

// aligned reports whether whole pixels tile each frame: a pixel is 1/kx of
// a frame wide and 1/ky high and the raster's corner lies on a pixel line
// of the lattice's subdivision.
func (r *Raster) aligned() (kx, ky int, ok bool) {
	al := func(origin, d float64) (int, bool) {
		p := d * grid.CellsPerDegree
		k := math.Round(1 / p)
		if k < 1 || math.Abs(k*p-1) > 1e-9 {
			return 0, false
		}
		o := origin * grid.CellsPerDegree * k
		return int(k), math.Abs(o-math.Round(o)) < 1e-6
	}
	kx, okx := al(r.tr.x0+180, r.tr.dx)
	ky, oky := al(90-r.tr.y0, r.tr.dy)
	return kx, ky, okx && oky
}
