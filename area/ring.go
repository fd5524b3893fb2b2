package area

import (
	"math"
	"sync"

	"frameindex/grid"
)

// EarthRadiusKm is the mean Earth radius of every distance (haversine),
// as the distance rule states.
const EarthRadiusKm = 6371.0088

// MaxRadiusKm is the largest ring.
const MaxRadiusKm = 100

// ringVertices is the number of vertices of a ring's polygon. The radius
// is widened so that the regular polygon has the circle's area: what is
// left is the difference between a polygon and a circle of the same area
// along the edge, far below 0.1 % for frames of 1 km.
const ringVertices = 256

// Ring returns the polygon of the points within radiusKm great-circle
// distance (haversine, EarthRadiusKm) of (lon, lat): vertices at that
// distance on 256 bearings, counter-clockwise, closed, with the radius
// widened by sqrt(θ/sin θ), θ = 2π/256, so the polygon's area is the
// circle's.
func Ring(lon, lat, radiusKm float64) grid.MultiPolygon {
	theta := 2 * math.Pi / ringVertices
	d := radiusKm * math.Sqrt(theta/math.Sin(theta)) / EarthRadiusKm
	phi1, lam1 := lat*math.Pi/180, lon*math.Pi/180
	// The terms that do not change along the ring, and the bearings'
	// sines and cosines (the same for every ring), computed once: the
	// same numbers as computed in the loop.
	sinPhi1, cosPhi1, sinD, cosD := math.Sin(phi1), math.Cos(phi1), math.Sin(d), math.Cos(d)
	bearings := ringBearings()
	r := make(grid.Ring, ringVertices+1)
	for i := 0; i < ringVertices; i++ {
		sinB, cosB := bearings[i][0], bearings[i][1]
		phi2 := math.Asin(sinPhi1*cosD + cosPhi1*sinD*cosB)
		lam2 := lam1 + math.Atan2(sinB*sinD*cosPhi1, cosD-sinPhi1*math.Sin(phi2))
		r[i] = grid.Point{round7(lam2 * 180 / math.Pi), round7(phi2 * 180 / math.Pi)}
	}
	r[ringVertices] = r[0]
	return grid.MultiPolygon{{r}}
}

// ringBearings are the sine and cosine of each vertex's bearing,
// counter-clockwise from north.
var ringBearings = sync.OnceValue(func() (b [ringVertices][2]float64) {
	theta := 2 * math.Pi / ringVertices
	for i := range b {
		brg := -float64(i) * theta
		b[i] = [2]float64{math.Sin(brg), math.Cos(brg)}
	}
	return b
})

func round7(v float64) float64 { return math.Round(v*1e7) / 1e7 }

// HaversineKm is the great-circle distance between two points (degrees).
func HaversineKm(lon1, lat1, lon2, lat2 float64) float64 {
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	dp, dl := p2-p1, (lon2-lon1)*math.Pi/180
	h := math.Sin(dp/2)*math.Sin(dp/2) + math.Cos(p1)*math.Cos(p2)*math.Sin(dl/2)*math.Sin(dl/2)
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(h)))
}
