package area

import (
	"frameindex/access"
	"frameindex/grid"
	"frameindex/index"
)

// Frames are an area's frames as the engine's columns: ids, centres
// (degrees), areas on the WGS84 ellipsoid (km²), and the fraction of each
// that counts (nil: whole frames). They are shared between requests
// (places and the country are cached) and must not be modified.
type Frames struct {
	IDs     []uint64
	Lon     []float64
	Lat     []float64
	AreaKm2 []float64
	Weight  []float64
}

// maxCachedFrames bounds the frames whose columns the cache keeps (about
// 32 bytes each): the whole national grid and a few states.
const maxCachedFrames = 3_000_000

// Frames returns a's frames as columns, from the cache for a place or the
// country (built on first use), or built for a drawn area.
func (c *Catalogue) Frames(a *Area) *Frames {
	if a.Weights != nil || (a.Place == nil && a.Kind != "country") {
		f := buildFrames(c.ix, a.Pos)
		f.Weight = a.Weights
		return f
	}
	ac := c.places.cacheFor(c.ix)
	ac.mu.Lock()
	key := a.Place
	f, ok := ac.frames[key]
	ac.mu.Unlock()
	if ok {
		return f
	}
	f = buildFrames(c.ix, a.Pos)
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if old, ok := ac.frames[key]; ok {
		return old
	}
	if ac.framesHeld+len(f.IDs) > maxCachedFrames {
		clear(ac.frames)
		ac.framesHeld = 0
	}
	ac.frames[key] = f
	ac.framesHeld += len(f.IDs)
	return f
}

// buildFrames reads the frames at pos from ix.
func buildFrames(ix *index.Index, pos []int32) *Frames {
	n := len(pos)
	f := &Frames{IDs: make([]uint64, n), Lon: make([]float64, n), Lat: make([]float64, n), AreaKm2: make([]float64, n)}
	lastRow, rowArea := -1, 0.0
	for i, p := range pos {
		if ix.Polygons() {
			s := ix.ShapeAt(int(p))
			f.IDs[i] = s.ID
			f.Lon[i], f.Lat[i] = (s.Box.MinLon+s.Box.MaxLon)/2, (s.Box.MinLat+s.Box.MaxLat)/2
			f.AreaKm2[i] = access.ShapeAreaKm2(s)
			continue
		}
		id := ix.IDAt(int(p))
		row, col, _ := grid.RowCol(id)
		b := grid.CellBox(row, col)
		if row != lastRow {
			lastRow, rowArea = row, access.BoxAreaKm2(b)
		}
		f.IDs[i] = id
		f.Lon[i], f.Lat[i] = (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2
		f.AreaKm2[i] = rowArea
	}
	return f
}
