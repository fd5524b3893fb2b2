// Package export writes the frame grid for GIS software, streaming: every
// frame's id and polygon plus optional attribute columns, in one of three
// formats chosen by the file extension.
//
//   - .gpkg: GeoPackage 1.3 (application_id GPKG, user_version 10300) with
//     gpkg_spatial_ref_sys (-1, 0 and EPSG:4326), gpkg_contents (with the
//     extent), gpkg_geometry_columns, gpkg_extensions, and a feature table
//     ("fid" INTEGER PRIMARY KEY AUTOINCREMENT, "geom" POLYGON or
//     MULTIPOLYGON, "frame_id" TEXT, then the attribute columns as DOUBLE,
//     TEXT or INTEGER). Geometries are GeoPackage binary with an xy
//     envelope and little-endian WKB. The R-tree spatial index
//     (rtree_<layer>_geom, the gpkg_rtree_index extension and its six
//     GeoPackage 1.3 triggers) is built in Close, after all rows are in:
//     the rows' boxes (kept as float32, 16 bytes a frame) are sorted along
//     a Hilbert curve and packed into full nodes written straight into the
//     R-tree's shadow tables, which is several times faster than one
//     insert per row (SQLite's rtreecheck() accepts the result; see
//     rtree.go). The triggers are created last, so this writer never needs
//     the ST_* functions they call. The whole file is written in one
//     transaction without a rollback journal or syncs (it is a temporary
//     file until Close), with an 8 MiB page cache. SQLite is
//     modernc.org/sqlite, pure Go (see the doc of frameindex/ingest/gpkg
//     for why).
//   - .fgb: FlatGeobuf 3 with the packed Hilbert R-tree (node size 16), so
//     GDAL and QGIS filter by area without reading the whole file. The Go
//     writer in the FlatGeobuf repository (src/go, as examined) sorts the
//     index but copies the features in arrival order, so its index points
//     at the wrong features, and it keeps every item in memory; so the format is written
//     here with the flatbuffers runtime (github.com/google/flatbuffers):
//     features and 48-byte index items go to two unlinked scratch files;
//     Close sorts 8-byte keys by the Hilbert value of each box centre,
//     streams the leaves to a third scratch file while building the upper
//     levels in memory, then writes header, index and features in that
//     order. Columns: frame_id String, then Double, String or Long.
//   - .geojsonl: newline-delimited GeoJSON, one Feature a line with
//     "id" the frame id as a string and properties frame_id then the
//     attributes; coordinates at most 7 decimals as in the API (GDAL opens
//     it with its GeoJSONSeq driver).
//
// A lattice frame (Frame.Geom nil) is the cell's 5-point closed square,
// counter-clockwise from the south-west corner, at exact lattice edges
// (grid.Lon, grid.Lat); imported frames are written as given, after a check
// that every point is finite and every ring has at least 4 points.
//
// Files appear only when complete: each writer writes a hidden temporary
// file beside the target (.NAME.*.tmp) and Close syncs and renames it over
// the target. On any error, and on Abort, the temporary file is removed; a
// killed process can leave it behind.
//
// Memory: GeoJSON text sequences use a fixed amount. FlatGeobuf keeps
// about 11 bytes a frame (Hilbert sort keys and the index levels above
// the leaves); GeoPackage about 32 bytes a frame at its peak in Close
// (boxes, sort keys, leaf numbers). Measured for the 1,086,885 cells of a
// 1,100 x 1,000 block with two attribute columns: peak RSS 14 MB
// (.geojsonl), 22 MB (.fgb), 90 MB (.gpkg). Writers are not safe for
// concurrent use.
package export
