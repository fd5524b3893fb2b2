// Package raster reads GeoTIFF rasters as agencies deliver them and
// aggregates one band onto the frame lattice (1/120° cells, see grid), for
// `frameindex import --raster`.
//
// # Reading
//
// Open reads the header only: classic TIFF or BigTIFF, either byte order,
// the first image directory (overviews and masks in later directories are
// ignored), strips or tiles, PlanarConfiguration 1 (chunky) or 2 (planar),
// 8/16/32/64-bit unsigned and signed integers and 32/64-bit floats, no
// compression, LZW, Deflate (8 and 32946) or PackBits, with the horizontal
// (2) or floating-point (3) predictor. GDAL_NODATA (tag 42113) gives the
// nodata value, compared as GDAL does (in the band's type; for floats with
// GDAL's relative tolerance of 2 × FLT_EPSILON). Sparse strips or tiles
// (offset and length 0, as GDAL writes with SPARSE_OK) read as nodata, or 0
// without a nodata value, as in GDAL.
//
// Georeferencing comes from ModelTiepoint + ModelPixelScale or from a
// ModelTransformation without rotation or shear. The CRS must be
// geographic WGS 84: GeographicTypeGeoKey 4326 (also what GDAL writes for
// OGC:CRS84) or 4979, or a user-defined geographic CRS on the WGS 84 datum
// (6326) or whose citation names WGS 84. A PixelIsPoint raster is moved
// half a pixel up and left as GDAL does. Everything else is refused with a
// message that says what to do: a projected raster's error names its EPSG
// code and says to reproject it with gdalwarp -t_srs EPSG:4326, a rotated
// one to warp it north-up, one without a CRS to assign EPSG:4326 with
// gdal_translate -a_srs if that is what it is; so are bottom-up rasters,
// JPEG, ZSTD, LERC and other compressions, 1-, 4-, 12- and 24-bit samples,
// 16-bit floats and complex numbers.
//
// The TIFF parser is this package's own. No maintained pure-Go reader
// covers what agency rasters use: golang.org/x/image/tiff decodes to
// image.Image only (no float samples, no BigTIFF, no floating-point
// predictor) and reads whole images; the GeoTIFF packages found
// (github.com/gden173/geotiff, github.com/google/tiff, chai2010/tiff,
// jblindsay/go-spatial) are unmaintained, lack compression or predictors,
// or load the whole raster into memory. Only the TIFF-flavoured LZW
// decoder is borrowed, from golang.org/x/image/tiff/lzw (maintained by the
// Go team); Deflate is compress/zlib.
//
// Every offset and length is checked against the file size before anything
// is allocated or read, every strip or tile's length against what its
// compression can expand to (Deflate 1032:1, LZW about 2730:1), and
// buffers over 64 MiB must be justified by a file at least a sixteenth as
// large. Errors name the file and, for pixel data, the strip or tile (and
// row) and the reason. Nothing panics on bad input (see FuzzOpen).
//
// A strip or tile is decoded as a stream, row by row, through a 64 KiB
// buffer, so memory never depends on the strip size: a whole-image single
// strip costs what a one-row strip does. Rows are decoded in blocks (a row
// of tiles, or strip rows up to 8 MiB of float64 values) on GOMAXPROCS
// worker goroutines, three blocks alive at most: one being aggregated, two
// being decoded.
//
// # Aggregation
//
// Frames turns pixel rows, north to south, into one value per frame,
// weighting every pixel by the area it shares with the frame (planar, in
// degree space): Sum splits each pixel's value among the frames it overlaps
// by the share of its area in each (the raster's total is kept); Mean is
// the area-weighted mean of the valid pixels; Mode is the value with the
// largest total area, ties to the smallest value. Pixel edges within 1e-9
// of a frame width of a lattice line count as on it, so rounding in the
// geotransform leaves no slivers. Only the lattice rows the current pixel
// row touches are held, and each is emitted (ascending frame ids) as soon
// as no later pixel row can touch it. Rasters aligned to the lattice (for
// example 3 arc-seconds: exactly 10 × 10 pixels a frame) take a fast path
// with one addition per pixel.
//
// Measured on the two-core machine (LZW float32, 14,400 × 11,600 pixels,
// 3 arc-seconds, the national extent): 2.7 s (strips, predictor 3) to
// 4.6 s (no predictor) wall time with both cores free, peak RSS 54 MiB for
// strips and 120 MiB for 256 × 256 tiles.
//
// # Differences from gdalwarp (GDAL 3.6)
//
// The GDAL tests in this package compare Sum and Mean with gdalwarp -r sum
// and -r average onto the lattice (relative error < 1e-6) and Mode with
// -r mode. Known, deliberate differences:
//
//   - gdalwarp -r sum gives frames a value near 0 (|v| ~ 1e-11) where a
//     pixel edge lies exactly on a lattice line and floating-point rounding
//     leaves a sliver of ~1e-13 of a pixel in the next frame; Frames gives
//     those frames no value.
//   - gdalwarp -r average, on frames the raster covers only partly, weighs
//     the first pixel as if it reached the frame's edge outside the raster;
//     Mean uses the true overlap. Frames inside the raster agree.
//   - gdalwarp -r mode counts every pixel touching a frame once whatever
//     its overlap (ties: the value first reaching the top count); Mode
//     weighs by area (ties: the smallest value). They agree when whole
//     pixels tile each frame; for unaligned rasters about one frame in ten
//     differs.
//
// # Caveats
//
//   - Pixels outside longitudes -180…180 and latitudes -90…90 are ignored;
//     a raster in 0…360° longitudes loses its eastern half.
//   - Infinite pixel values count as missing, like NaN, since a frame value
//     must be a finite number.
//   - 64-bit integers beyond 2^53 lose precision in float64.
//   - The floating-point predictor in big-endian files is read as libtiff
//     and GDAL write and read it on little-endian machines (the byte planes
//     follow the file's byte order); libtiff itself is host-dependent here.
//   - Band scale and offset (GDAL metadata) are not applied, nor are
//     masks: GDAL internal mask images and alpha bands count as data (an
//     alpha band is just another band); only nodata marks missing pixels.
//   - Pixels larger than about 1° make each pixel row touch many lattice
//     rows; rasters whose pixel row would need more than 2^24 accumulators
//     are refused with advice to resample first.
package raster
