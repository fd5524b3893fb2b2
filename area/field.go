package area

import (
	"math"
	"sync/atomic"

	"frameindex/grid"
	"frameindex/index"
	"frameindex/internal/cache"
)

// Nearness finds the great-circle distance (km) from a point to the
// nearest feature of one features dataset, searching no farther than
// limitKm (+Inf beyond); insight.Nearness and reach.Index have its
// method.
type Nearness interface {
	NearestKm(lon, lat, limitKm float64) float64
}

// FieldLimitKm is the search limit the fields keep distances to (the
// distance rule's).
const FieldLimitKm = 100

// Fields keeps, per grid and features dataset version, each frame's
// distance to the nearest feature, filled as frames are asked about: a
// question over the whole country searches every frame once, later ones
// read the field (8 bytes a frame: 9 MB for the national grid). Frames
// are found by their centres, as questions measure from them; another
// point, a polygon grid or a limit beyond FieldLimitKm goes to the index
// itself. At most max fields are kept, the least recently used dropped.
// Safe for concurrent use.
type Fields struct {
	c *cache.Cache[fieldKey, *field]
}

type fieldKey struct {
	ix      *index.Index
	dataset string
	version int
}

// field is one distance field: float64 bits per position, unknownBits
// until searched.
type field struct {
	ix   *index.Index
	near Nearness
	bits []atomic.Uint64
}

// unknownBits marks a distance not yet searched (a NaN no search gives).
const unknownBits = 0x7ff8_dead_beef_0001

// NewFields returns a cache of at most maxFields fields (<= 0: 8).
func NewFields(maxFields int) *Fields {
	if maxFields <= 0 {
		maxFields = 8
	}
	return &Fields{cache.New[fieldKey, *field](int64(maxFields), nil)}
}

// Wrap returns near answering through the field of dataset at version on
// ix (near itself on a polygon grid). near must search that dataset
// version.
func (f *Fields) Wrap(ix *index.Index, dataset string, version int, near Nearness) Nearness {
	if ix == nil || ix.Polygons() || ix.Len() == 0 {
		return near
	}
	fl, _ := f.c.Get(fieldKey{ix, dataset, version}, func() (*field, error) {
		fl := &field{ix: ix, near: near, bits: make([]atomic.Uint64, ix.Len())}
		for i := range fl.bits {
			fl.bits[i].Store(unknownBits)
		}
		return fl, nil
	})
	return fl
}

// NearestKm answers from the field for a frame's centre.
func (fl *field) NearestKm(lon, lat, limitKm float64) float64 {
	if limitKm > FieldLimitKm || math.IsNaN(lon) || math.IsNaN(lat) {
		return fl.near.NearestKm(lon, lat, limitKm)
	}
	row, col := grid.CellAt(lat, lon)
	b := grid.CellBox(row, col)
	if (b.MinLon+b.MaxLon)/2 != lon || (b.MinLat+b.MaxLat)/2 != lat {
		return fl.near.NearestKm(lon, lat, limitKm)
	}
	pos, ok := fl.ix.Pos(grid.CellID(row, col))
	if !ok {
		return fl.near.NearestKm(lon, lat, limitKm)
	}
	v := fl.bits[pos].Load()
	if v == unknownBits {
		d := fl.near.NearestKm(lon, lat, FieldLimitKm)
		v = math.Float64bits(d)
		fl.bits[pos].Store(v) // racing searches store the same distance
	}
	if d := math.Float64frombits(v); d <= limitKm {
		return d
	}
	return math.Inf(1)
}
