package ingest

import (
	"context"
	"fmt"
	"math"
	"slices"

	"frameindex/grid"
	"frameindex/internal/jsonscan"
	"frameindex/state"

	"github.com/tidwall/gjson"
)

// zonesInput is a zones input: every frame whose centre a zone contains
// gets the zone's mapped properties; the first zone containing a centre
// wins.
type zonesInput struct {
	im    *importer
	src   vectorSource
	path  string
	input int
	props []zoneProp
}

// openZones marks the attributes a zones input gives and checks its
// properties against the fields its format declares.
func (im *importer) openZones(src vectorSource, in checkedInput, input int) (*zonesInput, error) {
	im.register(in.path, input, inputZones)
	if err := checkFields(src, in); err != nil {
		return nil, err
	}
	for _, p := range in.props {
		im.given[p.attr] = true
	}
	return &zonesInput{im: im, src: src, path: in.path, input: input, props: in.props}, nil
}

func (z *zonesInput) read(ctx context.Context) error {
	im, path, input, props := z.im, z.path, z.input, z.props
	claimed := map[uint64]struct{}{}
	type zoneVal struct {
		attr   uint16
		off, n uint32
	}
	var zv []zoneVal
	n := 0
	err := z.src.each(ctx, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s feature %d: %s", state.ErrInvalid, path, i, fmt.Sprintf(format, args...))
		}
		if f.Geometry == nil {
			return bad("has no geometry; a zone is a Polygon or MultiPolygon")
		}
		m, err := grid.ParseGeometry(f.Geometry)
		if err != nil {
			return bad("%v", err)
		}
		if err := m.Validate(); err != nil {
			return bad("%v", err)
		}
		zv = zv[:0]
		values := map[string]gjson.Result{}
		if len(f.RawProperties) > 0 {
			gjson.ParseBytes(f.RawProperties).ForEach(func(k, v gjson.Result) bool {
				values[k.Str] = v // a later duplicate wins, as in encoding/json
				return true
			})
		}
		for _, p := range props {
			v, ok := values[p.property]
			if !ok || v.Type == gjson.Null {
				continue
			}
			a := im.attrs[p.attr]
			var text []byte
			switch v.Type {
			case gjson.Number:
				if a.Type != state.TypeNumber {
					return bad("property %q is the number %s, but attribute %q is a %s (want a string)", p.property, clip(v.Raw), a.Name, a.Type)
				}
				text = []byte(v.Raw)
			case gjson.String:
				if a.Type == state.TypeNumber {
					return bad("property %q is the string %q, but attribute %q is a number", p.property, clip(v.Str), a.Name)
				}
				text = grid.AppendJSONString(nil, v.Str)
			default:
				return bad("property %q is %s; attribute %q takes a %s", p.property, jsonscan.KindOf(v.Raw).String(), a.Name,
					map[bool]string{true: "number", false: "string"}[a.Type == state.TypeNumber])
			}
			off, ln, err := im.addValue(text)
			if err != nil {
				return bad("%v", err)
			}
			zv = append(zv, zoneVal{attr: uint16(p.attr), off: off, n: ln})
		}
		zc := newZoneContainer(m)
		im.ix.Box(m.Bounds(), im.ix.Len(), func(sh grid.Shape) bool {
			lon, lat := (sh.Box.MinLon+sh.Box.MaxLon)/2, (sh.Box.MinLat+sh.Box.MaxLat)/2
			if !zc.contains(lon, lat) {
				return true
			}
			if _, taken := claimed[sh.ID]; taken {
				return true
			}
			claimed[sh.ID] = struct{}{}
			for _, v := range zv {
				im.entries = append(im.entries, attrEntry{frame: sh.ID, attr: v.attr, input: uint16(input),
					pos: int32(min(i, math.MaxInt32)), off: v.off, n: v.n})
			}
			return true
		})
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: no zones", state.ErrInvalid, path)
	}
	return nil
}

// zoneContainer answers grid.MultiPolygon.ContainsPoint for many points,
// fast for points that share a latitude (the cells of one lattice row): the
// crossings of each polygon's rings with that latitude are found once and
// sorted, and a point is inside when an odd number of them lie east of it.
// Points within rounding distance of a crossing are decided by the exact
// ContainsPoint, so the answer is always the same as ContainsPoint's.
type zoneContainer struct {
	m     grid.MultiPolygon
	bound []grid.Box
	lat   float64
	have  bool
	xs    [][]float64 // per polygon, for lat
}

func newZoneContainer(m grid.MultiPolygon) *zoneContainer {
	z := &zoneContainer{m: m, bound: make([]grid.Box, len(m)), xs: make([][]float64, len(m))}
	for i, p := range m {
		z.bound[i] = grid.MultiPolygon{p}.Bounds()
	}
	return z
}

func (z *zoneContainer) contains(lon, lat float64) bool {
	if !z.have || lat != z.lat {
		z.lat, z.have = lat, true
		for i, p := range z.m {
			xs := z.xs[i][:0]
			if lat >= z.bound[i].MinLat && lat <= z.bound[i].MaxLat {
				xs = p.AppendCrossings(xs, lat)
				slices.Sort(xs)
			}
			z.xs[i] = xs
		}
	}
	for i, p := range z.m {
		xs := z.xs[i]
		if len(xs) == 0 {
			continue
		}
		k, _ := slices.BinarySearch(xs, lon) // first crossing at or east of lon
		near := false
		if k < len(xs) && xs[k]-lon <= 1e-9*(1+math.Abs(lon)) {
			near = true
		}
		if k > 0 && lon-xs[k-1] <= 1e-9*(1+math.Abs(lon)) {
			near = true
		}
		if near {
			if p.ContainsPoint(lon, lat) {
				return true
			}
			continue
		}
		if (len(xs)-k)%2 == 1 {
			return true
		}
	}
	return false
}
