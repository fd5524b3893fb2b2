package mvt

import (
	"math"

	"github.com/paulmach/orb"
)

const (
	// Extent is the size of a tile in tile units.
	Extent = 4096
	// Buffer is how many tile units beyond each edge a tile draws.
	Buffer = 64
	// MaxLat is the latitude of the edges of WebMercatorQuad.
	MaxLat = 85.05112877980659
)

// Bounds is tile z/x/y in degrees, widened by buffer tile units on every
// side, within longitude ±180 and latitude ±MaxLat.
func Bounds(z, x, y int, buffer float64) orb.Bound {
	n := math.Exp2(float64(z))
	d := buffer / Extent
	lon := func(x float64) float64 { return max(-180, min(x/n*360-180, 180)) }
	lat := func(y float64) float64 {
		return max(-MaxLat, min(math.Atan(math.Sinh(math.Pi*(1-2*y/n)))*180/math.Pi, MaxLat))
	}
	return orb.Bound{Min: orb.Point{lon(float64(x) - d), lat(float64(y+1) + d)}, Max: orb.Point{lon(float64(x+1) + d), lat(float64(y) - d)}}
}

// Bounds is the tile in degrees, widened by buffer tile units.
func (t *Tile) Bounds(buffer float64) orb.Bound { return Bounds(t.z, t.x, t.y, buffer) }

// TileOf returns the column and row of the tile at zoom z holding a
// point, within the zoom's matrix (a point beyond it is in its edge tile).
func TileOf(lon, lat float64, z int) (x, y int) {
	n := math.Exp2(float64(z))
	lat = max(-MaxLat, min(lat, MaxLat)) * math.Pi / 180
	fx := (lon + 180) / 360 * n
	fy := (1 - math.Log(math.Tan(lat)+1/math.Cos(lat))/math.Pi) / 2 * n
	last := int(n) - 1
	return max(0, min(int(fx), last)), max(0, min(int(fy), last))
}

// Range returns the tiles at zoom z that b's corners are in: columns x0
// to x1 and rows y0 to y1 (rows grow southward). A bound ending exactly on
// a tile's edge reaches into that tile.
func Range(b orb.Bound, z int) (x0, y0, x1, y1 int) {
	x0, y0 = TileOf(b.Min[0], b.Max[1], z)
	x1, y1 = TileOf(b.Max[0], b.Min[1], z)
	return x0, y0, x1, y1
}
