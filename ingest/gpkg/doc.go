// Package gpkg reads the features of one GeoPackage layer as GeoJSON
// Feature objects, streaming: rows come from an SQLite cursor one at a time,
// so memory does not grow with the table (building footprints come by the
// tens of millions).
//
// Open checks, before any feature is read, that the file is a GeoPackage,
// which layer to read (the named one, or the only feature layer) and that
// its coordinate system is WGS 84 longitude/latitude or can be transformed
// to it through Options.Transform; the caller plugs in a coordinate library
// there (frameindex/ingest/crs), so this package does not depend on one.
// Next then returns each row as compact GeoJSON text: geometry in lon/lat
// with polygon rings wound as RFC 7946 asks (exterior counter-clockwise,
// holes clockwise), Z and M dropped, coordinates rounded to 7 decimals as
// everywhere in frameindex; every column but the geometry and the integer
// primary key as a property. The fid is Feature.FID and deliberately not
// the GeoJSON "id", which frameindex reads as a frame id.
//
// # SQLite
//
// modernc.org/sqlite, a translation of SQLite's C source to Go, is the
// database engine (frameindex/export writes GeoPackages with it too). It
// needs no cgo, so the binary stays one static file; it carries SQLite's
// own code, so file-format and SQL behaviour are SQLite's, R-tree module
// included. github.com/ncruces/go-sqlite3, the other pure-Go choice, runs
// SQLite compiled to WebAssembly inside the wazero runtime: also no cgo,
// but it compiles the module at start-up and adds a WebAssembly runtime to
// an air-gapped binary for no gain here. modernc adds about 7 MB to a
// static binary (measured: 2.2 MB for a main using frameindex/grid alone,
// 9.2 MB with modernc.org/sqlite linked in).
//
// Files are opened read-only (SQLite's mode=ro), and also immutable (no
// locking) unless a non-empty write-ahead log (path-wal) sits beside the
// file, which an immutable open would ignore. trusted_schema is off, so
// SQL functions named in the file's own views and triggers do not run with
// full rights.
//
// # Geometry
//
// Blobs are GeoPackage binary: the "GP" header (version 0, flags, srs_id,
// an envelope of 0, 32, 48 or 64 bytes, the empty flag, either byte order)
// followed by WKB, decoded by hand with a bounds check on every read and
// every count (a forged count is refused before it can drive a loop or an
// allocation). Point, LineString, Polygon, MultiPoint, MultiLineString,
// MultiPolygon and GeometryCollection are read in 2D, Z, M and ZM, in ISO
// codes (1000s) and in the older extended codes with high bits (an EWKB
// SRID is skipped). Empty geometries (the header flag, NaN points, zero
// counts) become "geometry":null; empty members of multi-geometries and
// collections are dropped.
//
// Caveats: the curved and surface types of GeoPackage's non-linear geometry
// extension (CircularString, CompoundCurve, CurvePolygon, MultiCurve,
// MultiSurface, PolyhedralSurface, TIN, Triangle) and the
// ExtendedGeoPackageBinary form (the X flag) are refused with an error
// naming the type; ogr2ogr -nlt CONVERT_TO_LINEAR converts them. Rings are
// not checked for closure or validity. The blob's own srs_id is not
// checked against the column's. A BLOB property is written as a base64
// string (as GDAL's GeoJSON driver does), never refused.
//
// A Reader is not safe for concurrent use; separate Readers are
// independent.
package gpkg
