package crs

import "math"

// ellipsoid is a reference ellipsoid given by its semi-major axis (metres)
// and inverse flattening.
type ellipsoid struct {
	a, rf float64
}

var (
	wgs84Ellipsoid = ellipsoid{a: 6378137, rf: 298.257223563}
	// clarke1880RGS is the ellipsoid of the Minna datum (EPSG:7012).
	clarke1880RGS = ellipsoid{a: 6378249.145, rf: 293.465}
)

// tmerc is an ellipsoidal transverse Mercator projection evaluated with
// Krüger's series to sixth order in the third flattening n, written in the
// form of Poder and Engsager that PROJ's tmerc uses (Clenshaw summation of
// the complex series). Within a few thousand kilometres of the central
// meridian the series are exact to well under a millimetre.
type tmerc struct {
	lon0      float64 // central meridian, radians
	fe, fn    float64 // false easting and northing, metres
	kA        float64 // k0 times the rectifying radius A
	m0        float64 // k0·A·ξ of the latitude of origin (northing of the origin)
	e         float64 // first eccentricity
	alpha     [6]float64
	beta      [6]float64
	delta     [6]float64
	ellipsoid ellipsoid
}

func newTmerc(el ellipsoid, lat0, lon0, k0, fe, fn float64) *tmerc {
	f := 1 / el.rf
	n := f / (2 - f)
	n2 := n * n
	n3 := n2 * n
	n4 := n3 * n
	n5 := n4 * n
	n6 := n5 * n
	t := &tmerc{
		lon0:      lon0 * math.Pi / 180,
		fe:        fe,
		fn:        fn,
		e:         math.Sqrt(f * (2 - f)),
		ellipsoid: el,
	}
	A := el.a / (1 + n) * (1 + n2/4 + n4/64 + n6/256)
	t.kA = k0 * A
	// Karney (2011), "Transverse Mercator with an accuracy of a few
	// nanometers", eqs. 35 (α), 36 (β) and the conformal → geodetic
	// latitude series (δ).
	t.alpha = [6]float64{
		n/2 - 2*n2/3 + 5*n3/16 + 41*n4/180 - 127*n5/288 + 7891*n6/37800,
		13*n2/48 - 3*n3/5 + 557*n4/1440 + 281*n5/630 - 1983433*n6/1935360,
		61*n3/240 - 103*n4/140 + 15061*n5/26880 + 167603*n6/181440,
		49561*n4/161280 - 179*n5/168 + 6601661*n6/7257600,
		34729*n5/80640 - 3418889*n6/1995840,
		212378941 * n6 / 319334400,
	}
	t.beta = [6]float64{
		n/2 - 2*n2/3 + 37*n3/96 - n4/360 - 81*n5/512 + 96199*n6/604800,
		n2/48 + n3/15 - 437*n4/1440 + 46*n5/105 - 1118711*n6/3870720,
		17*n3/480 - 37*n4/840 - 209*n5/4480 + 5569*n6/90720,
		4397*n4/161280 - 11*n5/504 - 830251*n6/7257600,
		4583*n5/161280 - 108847*n6/3991680,
		20648693 * n6 / 638668800,
	}
	t.delta = [6]float64{
		2*n - 2*n2/3 - 2*n3 + 116*n4/45 + 26*n5/45 - 2854*n6/675,
		7*n2/3 - 8*n3/5 - 227*n4/45 + 2704*n5/315 + 2323*n6/945,
		56*n3/15 - 136*n4/35 - 1262*n5/105 + 73814*n6/2835,
		4279*n4/630 - 332*n5/35 - 399572*n6/14175,
		4174*n5/315 - 144838*n6/6237,
		601676 * n6 / 22275,
	}
	// On the central meridian η' = 0 and ξ' is the conformal latitude.
	chi0 := t.conformal(lat0 * math.Pi / 180)
	xi0 := chi0
	for j := 0; j < 6; j++ {
		xi0 += t.alpha[j] * math.Sin(2*float64(j+1)*chi0)
	}
	t.m0 = t.kA * xi0
	return t
}

// conformal returns the conformal latitude of the geodetic latitude phi.
func (t *tmerc) conformal(phi float64) float64 {
	s := math.Sin(phi)
	return math.Atan(math.Sinh(math.Asinh(math.Tan(phi)) - t.e*math.Atanh(t.e*s)))
}

// forward projects geodetic longitude and latitude (radians) to easting
// and northing. It is used to place the areas of use of the datum
// transformations in projected coordinates, as PROJ does, and in tests.
func (t *tmerc) forward(lon, lat float64) (x, y float64) {
	chi := t.conformal(lat)
	dl := lon - t.lon0
	xip := math.Atan2(math.Tan(chi), math.Cos(dl))
	etap := math.Atanh(math.Cos(chi) * math.Sin(dl))
	xi, eta := xip, etap
	for j := 0; j < 6; j++ {
		k := 2 * float64(j+1)
		xi += t.alpha[j] * math.Sin(k*xip) * math.Cosh(k*etap)
		eta += t.alpha[j] * math.Cos(k*xip) * math.Sinh(k*etap)
	}
	return t.fe + t.kA*eta, t.fn + t.kA*xi - t.m0
}

// inverse returns geodetic longitude and latitude (radians) of an easting
// and northing; NaN when the point is too far from the central meridian
// for the series (more than about 150° of spherical arc, as in PROJ).
func (t *tmerc) inverse(x, y float64) (lon, lat float64) {
	xi := (y - t.fn + t.m0) / t.kA
	eta := (x - t.fe) / t.kA
	if !(math.Abs(eta) <= 2.623395162778) || math.IsNaN(xi) || math.Abs(xi) > 4 {
		return math.NaN(), math.NaN()
	}
	// Clenshaw summation of Σ β_j sin(2jξ)cosh(2jη) and
	// Σ β_j cos(2jξ)sinh(2jη) as the real and imaginary parts of
	// Σ β_j sin(2j(ξ+iη)).
	sin2, cos2 := math.Sincos(2 * xi)
	sh2, ch2 := math.Sinh(2*eta), math.Cosh(2*eta)
	// r = 2cos(2ζ) as a complex number.
	rr := 2 * cos2 * ch2
	ri := -2 * sin2 * sh2
	var hr, hi, h1r, h1i float64 // h_{j}, h_{j+1}
	for j := 5; j >= 0; j-- {
		h2r, h2i := h1r, h1i
		h1r, h1i = hr, hi
		hr = rr*h1r - ri*h1i - h2r + t.beta[j]
		hi = rr*h1i + ri*h1r - h2i
	}
	// Σ = h_0 · sin(2ζ)
	sr := sin2 * ch2
	si := cos2 * sh2
	dxi := hr*sr - hi*si
	deta := hr*si + hi*sr
	xip := xi - dxi
	etap := eta - deta
	sxi, cxi := math.Sincos(xip)
	shEta := math.Sinh(etap)
	chEta := math.Sqrt(1 + shEta*shEta)
	chi := math.Asin(sxi / chEta)
	lon = t.lon0 + math.Atan2(shEta, cxi)
	lat = chi
	s2, c2 := math.Sincos(2 * chi)
	// Σ δ_j sin(2jχ) by Clenshaw on the real recurrence.
	var b0, b1 float64
	r := 2 * c2
	for j := 5; j >= 0; j-- {
		b0, b1 = r*b0-b1+t.delta[j], b0
	}
	lat += b0 * s2
	return lon, lat
}
