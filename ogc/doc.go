// Package ogc serves the frames and the datasets a key may read as OGC API
// - Features (Part 1: core, GeoJSON, OpenAPI 3.0) and OGC API - Tiles
// (Mapbox Vector Tiles in WebMercatorQuad), so that QGIS, GDAL's OAPIF
// and MVT drivers and web maps connect natively.
//
// # Calls (under /ogc)
//
//	GET /ogc                                   landing page
//	GET /ogc/conformance                       conformance classes
//	GET /ogc/api                               OpenAPI 3.0 definition (openapi.json)
//	GET /ogc/collections                       the key's collections, with extents
//	GET /ogc/collections/{id}                  one collection
//	GET /ogc/collections/{id}/items            bbox, limit (1..10,000, default 1,000), cursor
//	GET /ogc/collections/{id}/items/{itemId}   one item
//	GET /ogc/collections/{id}/schema           JSON Schema of the items (describedby)
//	GET /ogc/collections/{id}/queryables       their properties and types
//	GET /ogc/collections/{id}/tiles[/WebMercatorQuad[/{z}/{y}/{x}]]
//	GET /ogc/tileMatrixSets[/WebMercatorQuad]
//
// # Collections
//
//   - frames: the grid, one item per frame; item id and frame_id are the
//     frame id.
//   - {dataset}: for each readable dataset that declares attributes, the
//     frames it records something on, each with every declared attribute
//     (null where the frame has none; numbers of a number attribute
//     written with a decimal point, so that clients, which type a field
//     from the values they see first, make it a real field).
//   - {dataset}-features: for each readable dataset holding features, with
//     feature.read, one item per feature (id FRAME-SEQ), its stored
//     geometry and properties, frame_id (the frame holding its
//     representative point) and its own id, if any, as source_id.
//
// # Rules
//
// Server does no authentication: the mounting server (package handlers)
// reads the key (Bearer, or under /ogc HTTP Basic with the key as the
// password), meters it, checks frame.read, and hands ServeKeyed the key
// and the request id. Which datasets a key reads is package access's
// answer (the store's Readable): a collection the key may not read is 404,
// exactly as one that does not exist. Attributes of items and of tiles at
// zoom 9 and above are read through access.Read with the key narrowed to
// the collection's dataset, so no other dataset is read or charged. A
// per-query dataset is charged through access (Answer.Charge), once for
// each page, item or tile that carries its values, recorded in the ledger
// with the request id (OGC answers have no "charged" member); when the
// organisation's credits do not cover it, the answer is 402
// insufficient_credits, nothing is charged, and every other collection
// keeps working. Errors are returned to the mounting server, which writes
// them as OGC exceptions {"code","description"}.
//
// # Paging
//
// Items are in ascending frame id (features: frame id, then sequence). A
// page holds at most limit items after the cursor of the next link (the
// last frame id shown, or the next feature's id), so a page costs the same
// at any depth and the same request gives the same page. On a lattice grid
// the index walks the rest of the cursor's row and the rows after it as
// two boxes; a dataset is scanned with a bolt cursor over id ranges (one
// per row of the box, or one when the box spans the grid's columns). See
// walk.go. numberMatched is given without bbox (from a scan of the dataset
// kept per dataset version and grid), and left out with one.
//
// # Tiles
//
// See tiles.go: frames and features as they are at zoom 9 to 16; at zoom 6
// to 8 the lattice's frames merged into cells of 8, 4 and 2 frames a side
// with counts and aggregated values (and cells twice as large whenever a
// tile of frames would exceed 500 KB); no tiles below 6 or above 16 (404);
// 204 for an empty tile; at most 500 KB of MVT; gzip when accepted.
//
// # Caveats
//
//   - Imported polygon grids have no row order: every page walks the
//     candidates of its box in the index (or the dataset's records from
//     the cursor on), which costs the same at any depth but more than on
//     the lattice; tiles draw their frames unmerged.
//   - A features collection selects by bbox on the frame holding each
//     feature (its representative point), not on its whole geometry; a
//     tile reads features of frames up to two frames beyond its edge.
//   - Merged cells at zoom 6 to 8 read a dataset's records with one scan
//     rather than access.Read (a zoom-6 tile spans up to 450,000 frames);
//     the dataset is still found readable and charged through access.
//   - Only CRS84 and WebMercatorQuad; only JSON (f is ignored); query
//     parameters other than bbox, limit and cursor are ignored, as under
//     /v1, rather than refused.
//   - Links are absolute, built from the request's Host (X-Forwarded-Proto
//     and X-Forwarded-Host when a proxy sets them), because GDAL resolves a
//     link beginning with "/" against the URL it was given.
//   - Collection links carry both "describedby" and "describedBy": link
//     relations are case-insensitive, GDAL's OAPIF driver compares them
//     as written.
package ogc
