// Package reach finds, for any point, the great-circle distance to the
// nearest of a set of points (a features dataset's facilities): the
// distance rule of every "nearest", "farthest", "within N km" and
// "more than N km from" question. An Index is built once per dataset
// version and shared by every request (see Cache); it is read-only after
// Build and safe for concurrent use.
//
// Distances are haversine on a sphere of the mean Earth radius
// (EarthRadiusKm), from the point asked about to each feature's point;
// the search is exact (no approximation of the distance), over a bucket
// grid of the points.
package reach

import (
	"math"
	"slices"
)

// EarthRadiusKm is the mean Earth radius (IUGG) of great-circle distances.
const EarthRadiusKm = 6371.0088

// Point is a feature's position, degrees.
type Point struct{ Lon, Lat float64 }

// Index is a bucket grid of points: the points' bounding box cut into
// square cells of cell degrees, each cell's points stored together
// (cellStart[c] to cellStart[c+1] in pts). A search visits rings of cells
// around the asked point's cell, outward, and stops once nothing outside
// the rings can be nearer than the best found (or than the limit).
type Index struct {
	pts       []Point // sorted by cell
	cellStart []int32
	minLon    float64
	minLat    float64
	cell      float64 // degrees
	nx, ny    int
	// cosMax is the cosine of the largest |latitude| a point may have
	// (for the lower bound of a longitude gap).
	cosMax float64
}

// maxCells bounds the grid.
const maxCells = 1 << 22

// Build indexes pts (copied: the Index keeps no reference to the slice).
// Points outside the world's range are left out.
func Build(pts []Point) *Index {
	ix := &Index{cosMax: 1}
	var in []Point
	minLon, minLat, maxLon, maxLat := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		if !(p.Lon >= -180 && p.Lon <= 180 && p.Lat >= -90 && p.Lat <= 90) {
			continue
		}
		in = append(in, p)
		minLon, maxLon = math.Min(minLon, p.Lon), math.Max(maxLon, p.Lon)
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
	}
	if len(in) == 0 {
		return ix
	}
	w, h := maxLon-minLon, maxLat-minLat
	// About two points a cell, between 0.01 and 1 degree, at most maxCells.
	cell := math.Sqrt(math.Max(w*h, 1e-6) / float64(len(in)) * 2)
	cell = math.Min(math.Max(cell, 0.01), 1)
	for (w/cell+1)*(h/cell+1) > maxCells {
		cell *= 2
	}
	ix.minLon, ix.minLat, ix.cell = minLon, minLat, cell
	ix.nx, ix.ny = int(w/cell)+1, int(h/cell)+1
	ix.cosMax = math.Cos(math.Min(math.Max(math.Abs(minLat), math.Abs(maxLat))*math.Pi/180, math.Pi/2))
	cellOf := func(p Point) int {
		x := min(int((p.Lon-minLon)/cell), ix.nx-1)
		y := min(int((p.Lat-minLat)/cell), ix.ny-1)
		return y*ix.nx + x
	}
	ix.cellStart = make([]int32, ix.nx*ix.ny+1)
	for _, p := range in {
		ix.cellStart[cellOf(p)+1]++
	}
	for c := 1; c < len(ix.cellStart); c++ {
		ix.cellStart[c] += ix.cellStart[c-1]
	}
	ix.pts = make([]Point, len(in))
	next := slices.Clone(ix.cellStart[:len(ix.cellStart)-1])
	for _, p := range in {
		c := cellOf(p)
		ix.pts[next[c]] = p
		next[c]++
	}
	return ix
}

// Len is the number of points indexed.
func (ix *Index) Len() int { return len(ix.pts) }

// Bytes is the memory the index holds.
func (ix *Index) Bytes() int64 { return int64(len(ix.pts))*16 + int64(len(ix.cellStart))*4 }

// flatSlack scales a squared flat-earth estimate down to below the
// squared great-circle distance: the estimate is within 1 % of it up to a
// few hundred km at Nigeria's latitudes; 0.9 (5 % on the distance) leaves
// room everywhere a search goes.
const flatSlack = 0.9

// kmPerDegree is the great-circle length of a degree of latitude.
const kmPerDegree = EarthRadiusKm * math.Pi / 180

// NearestKm is the great-circle distance (km) from (lon, lat) to the
// nearest point, or +Inf when none lies within limitKm.
func (ix *Index) NearestKm(lon, lat, limitKm float64) float64 {
	d, _, _ := ix.Nearest(lon, lat, limitKm)
	return d
}

// Nearest is NearestKm and the nearest point (ok false when none lies
// within limitKm).
func (ix *Index) Nearest(lon, lat, limitKm float64) (float64, Point, bool) {
	best, bp := math.Inf(1), Point{}
	if len(ix.pts) == 0 {
		return best, bp, false
	}
	if math.IsNaN(lon) || math.IsNaN(lat) {
		return best, bp, false
	}
	// The asked point's cell, possibly outside the grid.
	cx := int(math.Floor((lon - ix.minLon) / ix.cell))
	cy := int(math.Floor((lat - ix.minLat) / ix.cell))
	// A cell r rings away is at least (r-1) cells away in latitude or in
	// longitude from the asked point; the latter is no shorter than a
	// parallel arc at the highest latitude of the grid (scaled down a
	// little for the difference between a great circle and a parallel).
	cos := math.Min(ix.cosMax, math.Cos(math.Min(math.Abs(lat), 90)*math.Pi/180))
	// kx is km per degree of longitude at the asked latitude, for the
	// flat-earth estimate.
	kx := kmPerDegree * math.Cos(lat*math.Pi/180)
	perCell := ix.cell * kmPerDegree * cos * 0.995
	// Rings start where the grid begins, for a point outside it.
	r0 := max(0, -cx, -cy, cx-(ix.nx-1), cy-(ix.ny-1))
	rMax := max(cx, ix.nx-1-cx, cy, ix.ny-1-cy)
	for r := r0; r <= rMax; r++ {
		if lb := float64(r-1) * perCell; lb > best || lb > limitKm {
			break
		}
		for y := cy - r; y <= cy+r; y++ {
			if y < 0 || y >= ix.ny {
				continue
			}
			step := 1
			if y != cy-r && y != cy+r {
				step = 2 * r // only the ring's two sides
			}
			for x := cx - r; x <= cx+r; x += max(step, 1) {
				if x < 0 || x >= ix.nx {
					continue
				}
				c := y*ix.nx + x
				for _, p := range ix.pts[ix.cellStart[c]:ix.cellStart[c+1]] {
					// A flat-earth estimate first: within a few percent of
					// the great circle at these ranges, it spares the
					// haversine for points that cannot be nearer.
					dx, dy := (p.Lon-lon)*kx, (p.Lat-lat)*kmPerDegree
					if e := dx*dx + dy*dy; e*flatSlack > best*best || e*flatSlack > limitKm*limitKm {
						continue
					}
					if d := HaversineKm(lon, lat, p.Lon, p.Lat); d < best {
						best, bp = d, p
					}
				}
			}
		}
	}
	if best > limitKm {
		return math.Inf(1), Point{}, false
	}
	return best, bp, true
}

// HaversineKm is the great-circle distance between two points (degrees)
// on a sphere of the mean Earth radius.
func HaversineKm(lon1, lat1, lon2, lat2 float64) float64 {
	const rad = math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLon := (lon2 - lon1) * rad
	s1, s2 := math.Sin(dLat/2), math.Sin(dLon/2)
	h := s1*s1 + math.Cos(lat1*rad)*math.Cos(lat2*rad)*s2*s2
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(h)))
}

// InBox calls fn for each point inside the closed box, in no set order,
// until fn returns false.
func (ix *Index) InBox(minLon, minLat, maxLon, maxLat float64, fn func(Point) bool) {
	if len(ix.pts) == 0 || !(minLon <= maxLon && minLat <= maxLat) {
		return
	}
	clamp := func(v float64, n int) int { return min(max(int(v), 0), n-1) }
	x0, x1 := clamp((minLon-ix.minLon)/ix.cell, ix.nx), clamp((maxLon-ix.minLon)/ix.cell, ix.nx)
	y0, y1 := clamp((minLat-ix.minLat)/ix.cell, ix.ny), clamp((maxLat-ix.minLat)/ix.cell, ix.ny)
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			c := y*ix.nx + x
			for _, p := range ix.pts[ix.cellStart[c]:ix.cellStart[c+1]] {
				if p.Lon >= minLon && p.Lon <= maxLon && p.Lat >= minLat && p.Lat <= maxLat && !fn(p) {
					return
				}
			}
		}
	}
}
