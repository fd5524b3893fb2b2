package raster

import (
	"fmt"
	"math"
	"strings"
)

// GeoKey ids (GeoTIFF 1.0 §6.2 / OGC GeoTIFF 1.1).
const (
	keyModelType       = 1024
	keyRasterType      = 1025
	keyCitation        = 1026
	keyGeographicType  = 2048
	keyGeogCitation    = 2049
	keyGeodeticDatum   = 2050
	keyGeogAngularUnit = 2054
	keyProjectedCSType = 3072
	keyProjCitation    = 3073

	modelProjected  = 1
	modelGeographic = 2
	modelGeocentric = 3

	rasterPixelIsPoint = 2

	epsgWGS84       = 4326
	epsgWGS84_3D    = 4979
	datumWGS84      = 6326
	unitDegree      = 9102
	userDefined     = 32767
	minPixel        = 1e-7 // degrees, about 1 cm
	reprojectAdvice = "reproject it to EPSG:4326 first, e.g. gdalwarp -t_srs EPSG:4326 in.tif out.tif"
)

// geoKeys holds the parsed GeoKeyDirectory: short values and text values.
type geoKeys struct {
	short map[uint16]uint16
	text  map[uint16]string
}

func (t *tiffFile) readGeoKeys(m map[uint16]entry) (*geoKeys, error) {
	e, ok := m[tagGeoKeyDirectory]
	if !ok {
		return nil, nil
	}
	dir, err := t.uints(e)
	if err != nil {
		return nil, err
	}
	if len(dir) < 4 {
		return nil, t.errf("GeoKeyDirectory holds %d values, fewer than its 4-value header: corrupt", len(dir))
	}
	var asciiParams string
	if a, ok := m[tagGeoASCIIParams]; ok {
		if asciiParams, err = t.ascii(a); err != nil {
			return nil, err
		}
	}
	n := int(dir[3])
	if 4+4*n > len(dir) {
		return nil, t.errf("GeoKeyDirectory declares %d keys but holds %d values: corrupt", n, len(dir))
	}
	g := &geoKeys{short: map[uint16]uint16{}, text: map[uint16]string{}}
	for i := 0; i < n; i++ {
		k := dir[4+4*i:]
		id, loc, count, val := uint16(k[0]), k[1], k[2], k[3]
		switch loc {
		case 0:
			g.short[id] = uint16(val)
		case tagGeoASCIIParams:
			if val <= uint64(len(asciiParams)) && count <= uint64(len(asciiParams))-val {
				g.text[id] = strings.TrimRight(asciiParams[val:val+count], "|\x00")
			}
		}
		// Keys held in GeoDoubleParams (ellipsoid axes, etc.) are not needed.
	}
	return g, nil
}

// citation joins the citation keys, for recognising WGS 84 by name when a
// file gives no EPSG code.
func (g *geoKeys) citation() string {
	return g.text[keyCitation] + " " + g.text[keyGeogCitation] + " " + g.text[keyProjCitation]
}

// checkCRS accepts geographic WGS 84 and refuses anything else with a
// message that says what to do. It returns a short description of the CRS.
func (t *tiffFile) checkCRS(g *geoKeys) (string, error) {
	if g == nil {
		return "", t.errf("no GeoKeyDirectory, so the coordinate reference system is unknown; if the raster is in WGS 84 longitude/latitude, assign it with gdal_translate -a_srs EPSG:4326 in.tif out.tif, otherwise %s", reprojectAdvice)
	}
	model := g.short[keyModelType]
	proj := g.short[keyProjectedCSType]
	geog := g.short[keyGeographicType]
	switch {
	case model == modelGeocentric:
		return "", t.errf("the raster is in a geocentric (3-D) coordinate system; %s", reprojectAdvice)
	case proj != 0 && proj != userDefined:
		return "", t.errf("the raster is in projected CRS EPSG:%d, not longitude/latitude; %s", proj, reprojectAdvice)
	case model == modelProjected || proj == userDefined:
		name := strings.TrimSpace(g.text[keyProjCitation] + " " + g.text[keyCitation])
		if strings.EqualFold(name, "unknown") {
			name = ""
		}
		if name != "" {
			name = " (" + name + ")"
		}
		return "", t.errf("the raster is in a user-defined projected CRS%s, not longitude/latitude; %s", name, reprojectAdvice)
	case model != 0 && model != modelGeographic:
		return "", t.errf("unknown GTModelTypeGeoKey %d; %s", model, reprojectAdvice)
	}
	if u, ok := g.short[keyGeogAngularUnit]; ok && u != unitDegree && u != 0 {
		return "", t.errf("geographic coordinates in angular unit EPSG:%d, not degrees; %s", u, reprojectAdvice)
	}
	switch geog {
	case epsgWGS84:
		return "WGS 84 (EPSG:4326)", nil
	case epsgWGS84_3D:
		return "WGS 84 (EPSG:4979, heights ignored)", nil
	case 0, userDefined:
		datum := g.short[keyGeodeticDatum]
		switch {
		case datum == datumWGS84:
			return "WGS 84 (datum EPSG:6326)", nil
		case datum == 0 || datum == userDefined:
			c := strings.ToUpper(g.citation())
			if strings.Contains(c, "WGS 84") || strings.Contains(c, "WGS84") || strings.Contains(c, "CRS84") {
				return "WGS 84 (by citation)", nil
			}
			if model == 0 && geog == 0 {
				return "", t.errf("the GeoKeyDirectory names no coordinate reference system; if the raster is in WGS 84 longitude/latitude, assign it with gdal_translate -a_srs EPSG:4326 in.tif out.tif, otherwise %s", reprojectAdvice)
			}
			return "", t.errf("geographic CRS with an unnamed datum, not known to be WGS 84; %s", reprojectAdvice)
		default:
			return "", t.errf("geographic CRS on datum EPSG:%d, not WGS 84; %s", datum, reprojectAdvice)
		}
	default:
		return "", t.errf("geographic CRS EPSG:%d is not WGS 84 (EPSG:4326); %s", geog, reprojectAdvice)
	}
}

// transform is the north-up affine map from pixel (col, row) corners to
// degrees: lon = x0 + col*dx, lat = y0 - row*dy, with dx, dy > 0.
type transform struct {
	x0, y0, dx, dy float64
}

// readTransform reads ModelPixelScale + ModelTiepoint or ModelTransformation,
// applying GDAL's half-pixel shift for PixelIsPoint rasters.
func (t *tiffFile) readTransform(m map[uint16]entry, g *geoKeys) (transform, error) {
	var tr transform
	_, hasScale := m[tagModelPixelScale]
	_, hasTie := m[tagModelTiepoint]
	_, hasMat := m[tagModelTransform]
	switch {
	case hasMat:
		mat, err := t.floats(m[tagModelTransform])
		if err != nil {
			return tr, err
		}
		if len(mat) < 16 {
			return tr, t.errf("ModelTransformation holds %d values, want 16: corrupt", len(mat))
		}
		a, b, c, d, e, f := mat[0], mat[1], mat[3], mat[4], mat[5], mat[7]
		if b != 0 || d != 0 {
			return tr, t.errf("the raster is rotated or sheared (ModelTransformation terms %g and %g are not 0); warp it north-up first, e.g. gdalwarp -t_srs EPSG:4326 in.tif out.tif", b, d)
		}
		tr = transform{x0: c, y0: f, dx: a, dy: -e}
	case hasScale && hasTie:
		sc, err := t.floats(m[tagModelPixelScale])
		if err != nil {
			return tr, err
		}
		tp, err := t.floats(m[tagModelTiepoint])
		if err != nil {
			return tr, err
		}
		if len(sc) < 2 || len(tp) < 6 {
			return tr, t.errf("ModelPixelScale (%d values) or ModelTiepoint (%d values) too short: corrupt", len(sc), len(tp))
		}
		i, j, x, y := tp[0], tp[1], tp[3], tp[4]
		tr = transform{x0: x - i*sc[0], y0: y + j*sc[1], dx: sc[0], dy: sc[1]}
	case hasTie:
		tp, _ := t.floats(m[tagModelTiepoint])
		return tr, t.errf("georeferenced by %d ground control points, not a pixel grid; warp it first, e.g. gdalwarp -t_srs EPSG:4326 in.tif out.tif", len(tp)/6)
	default:
		return tr, t.errf("no georeferencing (neither ModelTiepoint with ModelPixelScale nor ModelTransformation); add it with gdal_translate -a_ullr west north east south -a_srs EPSG:4326 in.tif out.tif")
	}
	for _, v := range []float64{tr.x0, tr.y0, tr.dx, tr.dy} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return tr, t.errf("georeferencing holds a non-finite number: corrupt")
		}
	}
	if tr.dx > 360 || tr.dy > 180 || math.Abs(tr.dx) < minPixel || math.Abs(tr.dy) < minPixel || math.Abs(tr.x0) > 1e6 || math.Abs(tr.y0) > 1e6 {
		return tr, t.errf("pixel size %g°×%g° at origin (%g, %g) is not plausible for longitude/latitude degrees: wrong georeferencing or not EPSG:4326", tr.dx, tr.dy, tr.x0, tr.y0)
	}
	if tr.dx <= 0 {
		return tr, t.errf("pixel width %g is not positive (east-to-west raster); warp it first, e.g. gdalwarp -t_srs EPSG:4326 in.tif out.tif", tr.dx)
	}
	if tr.dy <= 0 {
		return tr, t.errf("pixel height %g: rows run south to north (bottom-up raster); make it north-up first, e.g. gdalwarp -t_srs EPSG:4326 in.tif out.tif", -tr.dy)
	}
	if g != nil && g.short[keyRasterType] == rasterPixelIsPoint {
		// The tiepoint names a pixel centre; GDAL moves the origin to the
		// corner (unless GTIFF_POINT_GEO_IGNORE is set), and so do we.
		tr.x0 -= tr.dx / 2
		tr.y0 += tr.dy / 2
	}
	return tr, nil
}

// describePixel gives the pixel size in words, e.g. "3 arc-seconds".
func describePixel(d float64) string {
	sec := d * 3600
	if r := math.Round(sec); r >= 1 && math.Abs(sec-r) < 1e-6 {
		return fmt.Sprintf("%g arc-seconds", r)
	}
	return fmt.Sprintf("%.9g°", d)
}
