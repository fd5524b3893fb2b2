// Package shapefile streams the features of an ESRI shapefile as GeoJSON
// Feature objects in WGS 84 longitude/latitude.
//
// Open takes the .shp path (its .dbf, .prj, optional .cpg and .shx beside
// it, extensions in any case) or a .zip holding the shapefile; a .zip with
// several shapefiles needs Options.Layer, and the error lists them. Open
// checks, before any feature is read, that the .dbf and the .prj exist (the
// .prj is not needed when Options.System is given), the .shp and .dbf
// headers, the dBASE field types, the code page, the coordinate system (see
// package crs: unsupported systems are refused, naming their EPSG code or
// WKT name) and, when a .shx is present, that it lists as many records as
// the .dbf. Next then returns one Feature per record:
//
//	{"type":"Feature","properties":{…},"geometry":…}
//
// compact, with no "id" member, coordinates written to 7 decimals (about
// 1 cm) by grid.AppendCoord.
//
// # Streaming
//
// The .shp and .dbf are read front to back in lock-step through 256 KiB
// buffers (zip members are decompressed as they are read); one record of
// each is held at a time and the buffers are reused, so memory does not
// grow with the file: reading a 1,000,000-point shapefile allocates about
// 0.5 MB in 140 allocations in all. The .shx is only used to check the
// record count up front; without it a .shp and .dbf of different lengths are
// found out when the shorter one ends.
//
// # Geometry
//
// Point, MultiPoint, PolyLine and Polygon and their Z and M variants (Z and
// M are dropped); Null shapes, and shapes with no parts or points, give
// "geometry":null. Every record must be Null or of the header's base type.
// PolyLine gives LineString for one part and MultiLineString otherwise.
// Polygon rings are grouped as GDAL groups them: clockwise rings are
// exteriors; a counter-clockwise ring is a hole of the smallest exterior
// that contains it (tested with a vertex not on that exterior's boundary),
// or an exterior of its own when none does. Output follows RFC 7946:
// exteriors counter-clockwise, holes clockwise; one polygon gives Polygon,
// more give MultiPolygon (exteriors in file order). Rings that are not
// closed are closed; a ring with fewer than 4 points, a line part with
// fewer than 2, part indexes out of order, counts that overflow the record,
// a shape of the wrong type and a coordinate that does not transform to a
// valid longitude/latitude (usually a wrong .prj) are errors. Orientation
// is judged in the source coordinates (the projections keep it).
//
// # Attributes
//
// Properties follow the dBASE field order. C is text, trimmed, and empty
// text is null (GDAL reads it so). N and F are numbers: blank or all-'*'
// is null; a field with no decimals and a value with no fraction or
// exponent gives a JSON integer with all its digits, anything else a decimal
// (shortest float64 text, "12.0" for whole values); other text is an error.
// L gives true (T, t, Y, y), false (F, f, N, n) or null (?, blank). D gives
// "YYYY-MM-DD", or null when blank or all zeros. Other field types (memo,
// binary, date-time…) are refused at Open, naming the field. A field name
// repeated in the file gets "_2", "_3" … appended. Records the .dbf marks
// deleted are skipped (Feature.Index keeps counting them), as GDAL does.
//
// Text encoding: the .cpg decides (UTF-8, ISO-8859-n, Windows and DOS code
// pages, KOI8; an unknown one is refused); without it, the dBASE language
// driver byte gives the code page as GDAL maps it; driver 0 (none), 0x57
// (ANSI, which GDAL and ArcGIS write) and code pages without a table here
// read each value as UTF-8 when it is valid UTF-8, else as ISO-8859-1.
// GDAL reads 0x57 as ISO-8859-1 only: text that is valid UTF-8 reads
// differently (correctly, for UTF-8 data written without a .cpg).
//
// # Errors
//
// Errors name the file (for a zip member "F.shp in archive.zip"), the
// record ("record 13 (FID 12)": the 1-based record number of the shapefile
// specification and the 0-based Feature.Index, which is GDAL's FID) and the
// reason. After an error Next keeps returning it.
//
// # Why not a library
//
// github.com/jonas-p/go-shp (no release since 2019) seeks into the .dbf
// for every attribute (ReadAttribute; so not from a zip stream), ignores
// read errors there and returns the text undecoded.
// github.com/twpayne/go-shapefile streams records through a Scanner, but
// builds go-geom geometries and []any attribute values per record, refuses
// dBASE files whose version is not 3, and decodes text only through a .cpg
// (no language-driver mapping, no UTF-8/ISO-8859-1 fallback); GeoJSON
// output, polygon ring grouping, reprojection and record-level error
// messages would still be ours, and it would add go-geom and x/net as
// dependencies. The formats are simple and fully specified, so this
// package reads them itself, using golang.org/x/text/encoding/charmap for
// code-page tables only.
//
// A Reader is not safe for concurrent use; distinct Readers are
// independent.
package shapefile
