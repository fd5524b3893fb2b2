// Package crs identifies the coordinate reference systems that Nigerian
// agencies deliver data in and transforms their coordinates to WGS 84
// longitude/latitude (degrees).
//
// Supported systems (anything else is refused with an error that names its
// EPSG code or WKT name and wraps ErrUnsupported):
//
//	EPSG:4326, OGC CRS84        WGS 84 longitude/latitude (identity)
//	EPSG:32631, 32632, 32633    WGS 84 / UTM zones 31N-33N
//	EPSG:4263                   Minna longitude/latitude
//	EPSG:26331, 26332           Minna / UTM zones 31N, 32N
//	"EPSG:26333"                Minna / UTM zone 33N (ESRI "Minna_UTM_Zone_33N";
//	                            not in the EPSG dataset, the code is a label)
//	EPSG:26391, 26392, 26393    Minna / Nigeria West, Mid, East Belt
//
// Systems are found by EPSG code (FromEPSG), by "EPSG:n", OGC URN or URL, or
// CRS84 names (Parse), and by WKT (FromWKT): OGC WKT1, ESRI .prj and WKT2,
// by the root AUTHORITY/ID when it is EPSG, otherwise by datum, projection
// method and parameters, with the ESRI/GDAL names as a fallback when
// parameters are missing.
//
// # Why no library
//
// The projections and datum shifts are implemented here rather than taken
// from a library because none reproduces GDAL's results for Minna, and pure
// Go is required (github.com/twpayne/go-proj wraps the C PROJ through cgo).
// github.com/wroge/wgs84 (v2 is still being rewritten, its README says)
// applies one fixed Helmert transformation per datum, and
// github.com/go-spatial/proj is a partial port of the old PROJ.4 without
// the EPSG operation database. GDAL (through PROJ) does not use one Minna
// transformation: it picks, point by point, among the EPSG Minna → WGS 84
// transformations whose area of use holds the point (see below); the picks
// differ by up to 25 m. The transverse Mercator is the Krüger series to
// sixth order in n, summed as in Poder/Engsager (PROJ's default tmerc);
// geocentric conversions and the Helmert transformation follow PROJ's cart
// and helmert (position vector convention, linearised rotations).
//
// # Minna → WGS 84
//
// The per-point choice reproduces PROJ 9.1 (pj_get_suggested_operation), as
// GDAL 3.6 applies it through gdaltransform and ogr2ogr, including when GDAL
// reads a shapefile whose .prj is ESRI WKT (GDAL identifies it as the EPSG
// system). For each source system the candidate transformations (datum.go:
// minnaOrder) are PROJ's, in PROJ's order, with each area of use (a
// latitude/longitude box) turned into a box in the source coordinates. The
// first candidate whose box holds the point is taken and replaced by a later
// one that is not offshore and is more accurate (or as accurate with a box
// strictly inside). Points in no box use the first candidate (for Minna /
// UTM 33N, the ballpark: no shift). In practice, onshore, where the source
// system's list holds them:
//
//   - EPSG:1168 Minna to WGS 84 (2) (-92, -93, 122 m; EPSG accuracy 15 m)
//     over most of Nigeria;
//   - EPSG:1754 (3) (7 parameters, 5 m) in its box 4.22°N-6.95°N,
//     4.35°E-9.45°E; inside it EPSG:6196 (16) (5 m) in block OML 124; and
//     EPSG:15493 (15) (5 m) between 3.99°N and 4.22°N, 5.99°E-8.01°E;
//   - EPSG:26331 and 26332 have offshore areas of use in EPSG, so PROJ sorts
//     the offshore EPSG:15706 (13) (7 m) first for them and uses it in its
//     box (south of 6.14°N, west of 7.82°E), onshore too; further north,
//     EPSG:1168;
//   - EPSG:1167 (1) (Cameroon, 44 m) east of 14.65°E.
//
// Tests compare with gdaltransform on 0.1° grids across Nigeria in all nine
// projected systems and EPSG:4263: the largest difference is below 1e-6 m
// (WGS 84 UTM and Minna alike; the brief's bounds were 0.01 m and 1 m).
// The accuracy against the truth is the EPSG accuracy of the chosen
// transformation (5 to 44 m), not better: Minna coordinates cannot be
// placed on WGS 84 more precisely without a local transformation.
//
// A WKT TOWGS84 clause on the Minna datum (or a WKT2 BOUNDCRS to WGS 84)
// replaces the EPSG candidates by that one Helmert transformation, as GDAL
// does.
//
// # Caveats
//
//   - The candidate lists come from PROJ 9.1.1's database (EPSG v10.076, in
//     Debian 12). Another PROJ version can sort or filter them differently;
//     TestAgainstGDAL then reports where.
//   - For geographic systems x is the longitude and y the latitude, the
//     order GDAL uses in shapefiles and GeoPackages, whatever the EPSG axis
//     order.
//   - Only metre projected units and degree angular units are accepted.
//
// A System is immutable and safe for concurrent use; ToWGS84 does not
// allocate (0.1-0.6 µs a point on the busy 2-core test machine).
package crs
