package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"frameindex/grid"
	"frameindex/insight"
	"frameindex/state"
)

// Question is a checked question: what the engine is asked about the
// frames of an Answer.
type Question struct {
	Text     string
	Format   string // "answer" or "report"
	Register string // "", "plain" or "gis"
}

// settleUsed charges the per-query datasets used() names that
// contributed, in one Charge call, and while some are left out calls
// recompute with their ids (it answers again without them), then charges
// what the new answer uses in turn. Each round settles at least one
// dataset, so this ends. Errors are Charge's.
func (a *Answer) settleUsed(ctx context.Context, store Store, key state.Key, requestID string, now time.Time,
	used func() []string, recompute func(leftOut []string)) error {
	for {
		asks := a.UsedPerQuery(used())
		if len(asks) == 0 {
			return nil
		}
		leftOut, err := a.Charge(ctx, store, key, requestID, asks, now)
		if err != nil || len(leftOut) == 0 {
			return err
		}
		recompute(leftOut)
	}
}

// Values parses a stored attributes object for the question engine: numbers
// become Num (IsNum), strings Str; a member given twice keeps its last
// value, as encoding/json does. Other values (booleans, null, arrays,
// objects) and numbers beyond float64 are left out: no figure is computed
// from them. An empty record is nil. Strings with invalid UTF-8 are decoded
// as json.Unmarshal does (U+FFFD for each bad byte).
func Values(b []byte) (map[string]insight.Value, error) {
	if len(b) == 0 {
		return nil, nil
	}
	out := make(map[string]insight.Value, 8)
	err := eachValue(b, func(name string, v insight.Value, ok bool) {
		if ok {
			out[name] = v
		} else {
			delete(out, name) // a later duplicate replaces an earlier value
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachValue calls fn with every member of a stored attributes object, in
// order, as Values reads it: ok is false for a member Values leaves out
// (which also drops an earlier value of the same name). It runs on every
// record of every question: gjson walks the object without building a
// tree, and the caller keeps what it needs without a map.
func eachValue(b []byte, fn func(name string, v insight.Value, ok bool)) error {
	if !gjson.ValidBytes(b) {
		return errors.New("not valid JSON")
	}
	obj := gjson.ParseBytes(b)
	if !obj.IsObject() {
		return errors.New("not a JSON object")
	}
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		name := k.Str
		if !utf8.ValidString(name) {
			if name, err = unmarshalString(k.Raw); err != nil {
				return false
			}
		}
		switch v.Type {
		case gjson.String:
			s := v.Str
			if !utf8.ValidString(s) {
				if s, err = unmarshalString(v.Raw); err != nil {
					return false
				}
			}
			fn(name, insight.Value{Str: s}, true)
		case gjson.Number:
			n, perr := strconv.ParseFloat(v.Raw, 64)
			fn(name, insight.Value{Num: n, IsNum: true}, perr == nil && !math.IsInf(n, 0))
		default: // true, false, null, an array or an object: skipped
			fn(name, insight.Value{}, false)
		}
		return true
	})
	return err
}

// unmarshalString decodes a JSON string's text the way encoding/json does,
// for the rare string that is not valid UTF-8.
func unmarshalString(raw string) (string, error) {
	var s string
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

// Frame areas for densities, on the WGS84 ellipsoid.
//
// The ellipsoid is mapped onto its authalic sphere (radius R_q, about
// 6,371,007.2 m) by the authalic latitude β, an equal-area mapping, and
// areas are taken there in the cylindrical equal-area projection (x = λ,
// y = R_q·sin β), where they equal the ellipsoid's:
//
//   - a lattice cell, bounded by two meridians and two parallels, is a
//     rectangle in that projection, so its area is exact:
//     (a²·Δλ/2)·(q(φ₂) − q(φ₁));
//   - an imported polygon's area is the shoelace formula over its rings in
//     that projection (holes subtracted), which takes each edge as a
//     straight line there; for frames of a few kilometres this differs
//     from geodesic edges by far less than a part in a million.

// AreaBasis says how areas are computed, for answers.
const AreaBasis = "WGS84 ellipsoid"

// WGS84 and its authalic quantities.
const (
	wgs84A = 6378137.0
	wgs84F = 1 / 298.257223563
)

var (
	wgs84E2 = wgs84F * (2 - wgs84F)
	wgs84E  = math.Sqrt(wgs84E2)
	qPole   = authalicQ(math.Pi / 2)
	// authalicR2 is R_q² in km².
	authalicR2 = wgs84A * wgs84A * qPole / 2 / 1e6
)

// authalicQ is q(φ) of the authalic latitude: sin β = q(φ)/q(π/2).
func authalicQ(phi float64) float64 {
	s := math.Sin(phi)
	es := wgs84E * s
	return (1 - wgs84E2) * (s/(1-wgs84E2*s*s) - math.Log((1-es)/(1+es))/(2*wgs84E))
}

// sinAuthalic is sin β of latitude lat (degrees).
func sinAuthalic(lat float64) float64 { return authalicQ(lat*math.Pi/180) / qPole }

// BoxAreaKm2 is the area on the WGS84 ellipsoid, in km², of the region
// between two meridians and two parallels (degrees), such as a lattice
// cell. A box with min > max has area 0.
func BoxAreaKm2(b grid.Box) float64 {
	if !(b.MaxLon > b.MinLon) || !(b.MaxLat > b.MinLat) {
		return 0
	}
	dl := (b.MaxLon - b.MinLon) * math.Pi / 180
	return authalicR2 * dl * (sinAuthalic(b.MaxLat) - sinAuthalic(b.MinLat))
}

// PolygonAreaKm2 is the area on the WGS84 ellipsoid, in km², of polygons
// whose edges are taken as straight in the cylindrical equal-area
// projection of the authalic sphere: each polygon's outer ring less its
// holes, whatever the rings' orientation.
func PolygonAreaKm2(m grid.MultiPolygon) float64 {
	total := 0.0
	for _, p := range m {
		for k, r := range p {
			a := math.Abs(ringArea(r))
			if k == 0 {
				total += a
			} else {
				total -= a
			}
		}
	}
	return max(total, 0)
}

// ringArea is the signed shoelace area of a ring in the projection, km².
func ringArea(r grid.Ring) float64 {
	if len(r) < 3 {
		return 0
	}
	// Coordinates relative to the first vertex keep the products small:
	// a frame's area is a tiny difference of large terms otherwise.
	x0, y0 := r[0][0], sinAuthalic(r[0][1])
	s := 0.0
	for i := 0; i+1 < len(r); i++ {
		x1, y1 := (r[i][0]-x0)*math.Pi/180, sinAuthalic(r[i][1])-y0
		x2, y2 := (r[i+1][0]-x0)*math.Pi/180, sinAuthalic(r[i+1][1])-y0
		s += x1*y2 - x2*y1
	}
	return s / 2 * authalicR2
}

// EqualAreaXY projects a point (degrees) into the cylindrical equal-area
// projection of the authalic sphere, in km: the area of a polygon whose
// edges are straight there is its shoelace area, equal to the ellipsoid's
// (as PolygonAreaKm2 takes it), and a lattice cell is a rectangle whose
// area is BoxAreaKm2's. The origin is lon 0 on the equator.
func EqualAreaXY(lon, lat float64) (x, y float64) {
	return EqualAreaX(lon), EqualAreaY(lat)
}

// EqualAreaX and EqualAreaY are EqualAreaXY's x and y alone.
func EqualAreaX(lon float64) float64 { return authalicR * lon * math.Pi / 180 }
func EqualAreaY(lat float64) float64 { return authalicR * sinAuthalic(lat) }

var authalicR = math.Sqrt(authalicR2)

// ShapeAreaKm2 is a frame's area on the WGS84 ellipsoid, km²: exact for a
// lattice cell, the polygons' for an imported frame.
func ShapeAreaKm2(s grid.Shape) float64 {
	if s.Geom == nil {
		return BoxAreaKm2(s.Box)
	}
	return PolygonAreaKm2(s.Geom)
}

// The nearest search of a frames_nearest question that lists features.
//
// The engine stays pure: it is handed what this search found
// (insight.Nearest). The search reads a features dataset on rings of
// frames around the selection: the frames touching the selection's
// bounding box grown by 1, 2, 5, 10, 20, 35, 50, 75 and then 100 km,
// each ring reading only the frames the previous one did not touch. A
// feature's distance is the great circle from the centre of the nearest
// selected frame (the rule of every distance question). The search stops
// at the first ring whose radius is at least the distance of the
// count-th nearest feature found: a feature outside a ring is farther
// than its radius from every point of the selection, centres included.
// The dataset must be among the Answer's readable datasets (licences and
// narrowing as for the selection), is never read once left out, and is
// marked as having contributed when a feature within the limit was
// found, so that it is charged as any other (per query, once per
// request).

// NearestLimitKm is how far the search looks, in km from the centre of
// the nearest selected frame (insight.SearchLimitKm, as every distance
// question).
const NearestLimitKm = 100

// EarthRadiusKm is the mean Earth radius (IUGG) of great-circle distances.
const EarthRadiusKm = 6371.0088

// nearestRings are the search radii, km.
var nearestRings = []float64{1, 2, 5, 10, 20, 35, 50, 75, NearestLimitKm}

// Reads of the nearest search: frames per ReadFrames call, and the
// features one call may return (more on a ring's frames are counted as
// unread).
const (
	nearestChunk   = 4096
	nearestReadCap = 100_000
)

// BoxGrid walks the frames touching a box; *index.Index implements it.
type BoxGrid interface {
	Box(b grid.Box, limit int, fn func(grid.Shape) bool) (truncated bool)
}

// nearCand is a feature found, before its properties are read.
type nearCand struct {
	dist     float64
	from     uint64
	frame    uint64
	lon, lat float64
	raw      []byte
}

// Nearest searches dataset for the count features nearest the Answer's
// known frames, within NearestLimitKm, reading rings of frames of g from
// store. Names, positions and properties are given only with
// showFeatures (the key's feature.read); otherwise Hidden is set. It
// returns nil, and reads nothing, when no requested frame is known, when
// the dataset is not readable or was left out. Errors are the store's
// (wrapped) and ErrStore for an answer that breaks the Store contract.
func (a *Answer) Nearest(store Store, g BoxGrid, dataset string, count int, showFeatures bool) (*insight.Nearest, error) {
	ds, ok := a.find(dataset)
	if !ok || a.State[ds].LeftOut {
		return nil, nil
	}
	var sel [][2]float64 // centres
	var selIDs []uint64
	var bounds grid.Box
	for i := range a.Frames {
		if f := &a.Frames[i]; f.Known {
			b := f.Shape.Box
			if len(sel) == 0 {
				bounds = b
			} else {
				bounds = bounds.Union(b)
			}
			sel = append(sel, [2]float64{(b.MinLon + b.MaxLon) / 2, (b.MinLat + b.MaxLat) / 2})
			selIDs = append(selIDs, f.ID)
		}
	}
	if len(sel) == 0 {
		return nil, nil
	}
	count = min(max(count, 1), 10)
	out := &insight.Nearest{Dataset: dataset, LimitKm: NearestLimitKm, Hidden: !showFeatures}
	var cands []nearCand
	var prev grid.Box
	havePrev := false
	for _, r := range nearestRings {
		box := grownBox(bounds, r)
		var ids []uint64
		g.Box(box, math.MaxInt32, func(s grid.Shape) bool {
			if !havePrev || !s.Box.Intersects(prev) {
				ids = append(ids, s.ID)
			}
			return true
		})
		for start := 0; start < len(ids); start += nearestChunk {
			chunk := ids[start:min(start+nearestChunk, len(ids))]
			fd, err := store.ReadFrames([]string{dataset}, chunk, true, nearestReadCap)
			if err != nil {
				return nil, fmt.Errorf("reading dataset %s on %d frames around the selection: %w", dataset, len(chunk), err)
			}
			for k := range fd {
				for _, d := range fd[k].Datasets {
					if d.Dataset != dataset {
						return nil, storeError("ReadFrames returned dataset %q on frame %d, which was not asked for", d.Dataset, fd[k].Frame)
					}
					out.Unread += max(d.FeatureCount-len(d.Features), 0)
					for _, ft := range d.Features {
						if !isObject(ft) {
							return nil, storeError("a feature of dataset %q on frame %d is not a JSON object", dataset, fd[k].Frame)
						}
						lon, lat, ok := featurePoint(ft)
						if !ok {
							out.Unread++
							continue
						}
						dist, from := math.Inf(1), uint64(0)
						for i, ctr := range sel {
							if d := HaversineKm(ctr[0], ctr[1], lon, lat); d < dist {
								dist, from = d, selIDs[i]
							}
						}
						if dist <= NearestLimitKm {
							cands = append(cands, nearCand{dist: dist, from: from, frame: fd[k].Frame, lon: lon, lat: lat, raw: ft})
						}
					}
				}
			}
		}
		prev, havePrev = box, true
		out.Searched = r
		slices.SortStableFunc(cands, func(x, y nearCand) int {
			switch {
			case x.dist < y.dist:
				return -1
			case x.dist > y.dist:
				return 1
			}
			return 0
		})
		if len(cands) >= count && cands[count-1].dist <= r {
			break
		}
	}
	if len(cands) > count {
		cands = cands[:count]
	}
	for _, c := range cands {
		nf := insight.NearFeature{Frame: strconv.FormatUint(c.frame, 10), From: strconv.FormatUint(c.from, 10),
			DistanceKm: c.dist}
		if showFeatures {
			nf.Lon, nf.Lat = c.lon, c.lat
			nf.Name, nf.Properties = featureProperties(c.raw)
		}
		out.Features = append(out.Features, nf)
	}
	if len(out.Features) > 0 {
		a.State[ds].Contributed = true
	}
	return out, nil
}

// grownBox is b grown by r km on every side, so that every point outside
// it lies more than r km (great circle) from every point of b: latitude
// by r along a meridian, longitude by the angle whose great-circle
// distance at the box's latitude farthest from the equator is r.
func grownBox(b grid.Box, r float64) grid.Box {
	dLat := r / EarthRadiusKm * 180 / math.Pi
	out := grid.Box{MinLat: math.Max(b.MinLat-dLat, -90), MaxLat: math.Min(b.MaxLat+dLat, 90)}
	phi := math.Max(math.Abs(out.MinLat), math.Abs(out.MaxLat)) * math.Pi / 180
	s := math.Sin(r/EarthRadiusKm) / math.Cos(phi)
	dLon := 180.0
	if s < 1 && math.Cos(phi) > 1e-9 {
		dLon = math.Asin(s) * 180 / math.Pi
	}
	out.MinLon, out.MaxLon = math.Max(b.MinLon-dLon, -180), math.Min(b.MaxLon+dLon, 180)
	return out
}

// HaversineKm is the great-circle distance between two points (degrees)
// on a sphere of the mean Earth radius.
func HaversineKm(lon1, lat1, lon2, lat2 float64) float64 {
	const rad = math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLon := (lon2 - lon1) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * EarthRadiusKm * math.Asin(math.Min(1, math.Sqrt(h)))
}

// featurePoint is the point a feature's distance is measured from: a
// Point's position, a MultiPoint's first, otherwise the centre of the
// geometry's bounding box. ok is false for a feature without usable
// coordinates.
func featurePoint(ft []byte) (lon, lat float64, ok bool) {
	geom := gjson.GetBytes(ft, "geometry")
	coords := geom.Get("coordinates")
	if !coords.IsArray() {
		return 0, 0, false
	}
	switch geom.Get("type").String() {
	case "Point":
		return position(coords)
	case "MultiPoint":
		return position(coords.Get("0"))
	}
	b := grid.Box{MinLon: math.Inf(1), MinLat: math.Inf(1), MaxLon: math.Inf(-1), MaxLat: math.Inf(-1)}
	n := 0
	var walk func(r gjson.Result, depth int)
	walk = func(r gjson.Result, depth int) {
		if depth > 6 {
			return
		}
		if x, y, ok := position(r); ok {
			b.MinLon, b.MaxLon = math.Min(b.MinLon, x), math.Max(b.MaxLon, x)
			b.MinLat, b.MaxLat = math.Min(b.MinLat, y), math.Max(b.MaxLat, y)
			n++
			return
		}
		r.ForEach(func(_, v gjson.Result) bool {
			if v.IsArray() {
				walk(v, depth+1)
			}
			return true
		})
	}
	walk(coords, 0)
	if n == 0 {
		return 0, 0, false
	}
	return (b.MinLon + b.MaxLon) / 2, (b.MinLat + b.MaxLat) / 2, true
}

// position reads [lon, lat, ...] in world range.
func position(r gjson.Result) (lon, lat float64, ok bool) {
	x, y := r.Get("0"), r.Get("1")
	if !r.IsArray() || x.Type != gjson.Number || y.Type != gjson.Number {
		return 0, 0, false
	}
	lon, lat = x.Num, y.Num
	if math.IsNaN(lon) || math.IsNaN(lat) || lon < -180 || lon > 180 || lat < -90 || lat > 90 {
		return 0, 0, false
	}
	return lon, lat, true
}

// nameKeys are the properties read as a feature's name, in order.
var nameKeys = []string{"name", "Name", "NAME", "facility_name", "title", "label"}

// maxProperties bounds the properties kept of one feature.
const maxProperties = 20

// featureProperties reads a feature's name and its properties (strings,
// numbers and booleans as text; others left out), in the feature's order.
func featureProperties(ft []byte) (string, []insight.Property) {
	props := gjson.GetBytes(ft, "properties")
	name := ""
	for _, k := range nameKeys {
		if v := props.Get(gjson.Escape(k)); v.Type == gjson.String && v.Str != "" {
			name = v.Str
			break
		}
	}
	var out []insight.Property
	props.ForEach(func(k, v gjson.Result) bool {
		if len(out) == maxProperties {
			return false
		}
		switch v.Type {
		case gjson.String:
			out = append(out, insight.Property{Key: k.Str, Value: insight.Value{Str: v.Str}})
		case gjson.Number:
			out = append(out, insight.Property{Key: k.Str, Value: insight.Value{Num: v.Num, IsNum: true}})
		case gjson.True, gjson.False:
			out = append(out, insight.Property{Key: k.Str, Value: insight.Value{Str: v.Raw}})
		}
		return true
	})
	return name, out
}
