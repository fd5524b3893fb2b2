// Package mvt encodes Mapbox Vector Tiles (specification 2.1) of
// WebMercatorQuad, one layer a tile, and holds the tile maths the API's
// tiles (package ogc) and the console's line tiles share: Bounds of a
// tile in degrees, TileOf a point, the Range of tiles a box spans.
//
// A Tile projects geometries given in degrees to floored world
// coordinates at its zoom (extent 4096), so that an edge shared by two
// frames or two tiles lands on the same integer everywhere, and clips
// them to the tile and Buffer units beyond it. Rect draws a box (a
// frame) straight into tile coordinates; Geometry takes orb's geometries.
// Rings are written as the specification wants them (outer rings
// clockwise on the tile, holes the other way), repeated points and rings
// or lines that collapse to nothing are left out.
//
// # Why not orb's encoding/mvt
//
// orb's encoder goes through GeoJSON features: a map of properties per
// feature, and geometries it projects and clips in place (a caller that
// keeps its geometries must copy them first). On the same tile of 1,900 frames with two properties each, which orb's
// decoder reads back to the same features from both encoders
// (TestTile_AgreesWithOrb), BenchmarkEncode measured this encoder 1.9
// to 3 times as fast as orb's (medians of two sets of 15 runs on a
// loaded 2-core machine: 17 against 32 ms, 10 against 31 ms), with a
// sixth of the allocations. On lines (40 of 200 points each) orb's was 5
// to 20 % faster: this package draws them for the projection they share
// with the frames. orb also writes the zero-length steps that flooring
// leaves, which the specification (4.3.3.2) forbids.
//
// # Caveats
//
// A Tile is not safe for concurrent use. New does not check z, x and y.
// Only the protocol buffer types of orb's encoding/mvt/vectortile are
// used, marshalled by their generated code.
package mvt
