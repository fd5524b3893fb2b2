package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"frameindex/area"
	"frameindex/grid"
	"frameindex/insight"
	"frameindex/reach"
)

// MapMeasures are what the map's frames may be coloured by.
var MapMeasures = []string{"density", "buildings", "distance", "settlement"}

// mapMeasure checks a measure's name.
func mapMeasure(m string) (string, error) {
	if m == "" {
		return "density", nil
	}
	if !slices.Contains(MapMeasures, m) {
		return "", &area.Error{Code: area.CodeInvalid, Message: "the map measure " + strconv.Quote(m) + " is not one of " + strings.Join(MapMeasures, ", ")}
	}
	return m, nil
}

// Map is the report's map: an inline SVG of the area's frames coloured
// by a measure, its outline and the facilities, and its legend.
type Map struct {
	SVG     template.HTML
	Title   string
	Legend  []LegendItem
	Cells   int // cells drawn (frames, or blocks of frames on a large area)
	Block   int // frames a side of a cell (1: each frame)
	Points  int // facilities drawn
	Colours int // distinct fill colours used
}

// LegendItem is one class of the map's colours.
type LegendItem struct {
	Colour, Label string
}

// Map size and bounds.
const (
	mapWidth  = 680.0
	mapHeight = 620.0
	maxCells  = 12000 // more frames than this are drawn in blocks
	maxPoints = 3000
)

// sequential is the fill of a numeric measure's classes, light to dark.
var sequential = []string{"#fff5b8", "#fed976", "#fd8d3c", "#e8532a", "#bd0026", "#6b0020"}

// classColours are the settlement classes' fills.
var classColours = map[string]string{"urban": "#b2182b", "peri-urban": "#ef8a62", "rural": "#a6d96a", "uninhabited": "#e0e0e0"}

// cell is one drawn square: the frames of a block, their sums.
type cell struct {
	x, y       int
	num, den   float64
	inside     bool
	classes    map[string]float64
	best, bval string
}

// drawMap draws a's frames coloured by measure.
func (r *Reader) drawMap(a *area.Area, spec area.Spec, inp *input, measure string) (*Map, error) {
	fs := &inp.in.Frames
	n := fs.Len()
	if n == 0 {
		return &Map{}, nil
	}
	// The frame size, in degrees, from the first frame's shape.
	sh := r.ix.ShapeAt(int(a.Pos[0]))
	cw, ch := sh.Box.MaxLon-sh.Box.MinLon, sh.Box.MaxLat-sh.Box.MinLat
	minLon, minLat, maxLon, maxLat := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range n {
		minLon, maxLon = math.Min(minLon, fs.Lon[i]-cw/2), math.Max(maxLon, fs.Lon[i]+cw/2)
		minLat, maxLat = math.Min(minLat, fs.Lat[i]-ch/2), math.Max(maxLat, fs.Lat[i]+ch/2)
	}
	block := max(1, int(math.Ceil(math.Sqrt(float64(n)/maxCells))))
	bw, bh := cw*float64(block), ch*float64(block)
	m := &Map{Block: block}
	num, den, cat := r.perFrame(measure, inp)
	cells := map[[2]int]*cell{}
	for i := range n {
		w := 1.0
		if fs.Weight != nil {
			w = fs.Weight[i]
		}
		if w <= 0 {
			continue
		}
		k := [2]int{int((fs.Lon[i] - minLon) / bw), int((maxLat - fs.Lat[i]) / bh)}
		c := cells[k]
		if c == nil {
			c = &cell{x: k[0], y: k[1], inside: true}
			cells[k] = c
		}
		switch {
		case cat != nil:
			if v := cat[i]; v != "" {
				if c.classes == nil {
					c.classes = map[string]float64{}
				}
				c.classes[v] += w
			}
		case !math.IsNaN(num[i]) && !math.IsNaN(den[i]):
			c.num += num[i] * w
			c.den += den[i] * w
		}
	}
	// The projection: degrees of longitude shortened by the cosine of
	// the middle latitude, scaled into the map's box.
	kx := math.Cos((minLat + maxLat) / 2 * math.Pi / 180)
	scale := math.Min(mapWidth/((maxLon-minLon)*kx), mapHeight/(maxLat-minLat))
	width, height := (maxLon-minLon)*kx*scale, (maxLat-minLat)*scale
	px := func(lon float64) float64 { return (lon - minLon) * kx * scale }
	py := func(lat float64) float64 { return (maxLat - lat) * scale }
	sx, sy := bw*kx*scale, bh*scale

	// Classes: quantile breaks of the cells' values (six classes), or
	// the settlement classes.
	keys := make([][2]int, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[1] != b[1] {
			return a[1] - b[1]
		}
		return a[0] - b[0]
	})
	fill := map[[2]int]string{}
	if cat != nil {
		seen := map[string]bool{}
		for _, k := range keys {
			c := cells[k]
			best, bv := "", -1.0
			for v, w := range c.classes {
				if w > bv || w == bv && v < best {
					best, bv = v, w
				}
			}
			if best != "" {
				col := classColours[strings.ToLower(best)]
				if col == "" {
					col = "#9e9ac8"
				}
				fill[k] = col
				seen[best] = true
			}
		}
		names := make([]string, 0, len(seen))
		for v := range seen {
			names = append(names, v)
		}
		slices.SortFunc(names, func(a, b string) int { return classOrder(a) - classOrder(b) })
		for _, v := range names {
			col := classColours[strings.ToLower(v)]
			if col == "" {
				col = "#9e9ac8"
			}
			m.Legend = append(m.Legend, LegendItem{col, v})
		}
	} else {
		var vals []float64
		for _, k := range keys {
			if c := cells[k]; c.den > 0 {
				vals = append(vals, c.num/c.den)
			}
		}
		breaks := quantiles(vals, len(sequential))
		pal := sequential
		for _, k := range keys {
			if c := cells[k]; c.den > 0 {
				fill[k] = pal[classOf(c.num/c.den, breaks)]
			}
		}
		unit := map[string]string{"density": "people per km²", "buildings": "buildings per km²", "distance": "km to the nearest facility"}[measure]
		lo := 0.0
		if len(vals) > 0 {
			lo = slices.Min(vals)
		}
		for i, b := range breaks {
			m.Legend = append(m.Legend, LegendItem{pal[i], legendNumber(lo) + " to " + legendNumber(b) + " " + unit})
			lo = b
		}
	}
	m.Title = map[string]string{"density": "People per km²", "buildings": "Buildings per km²", "distance": "Distance to the nearest facility (km)",
		"settlement": "Settlement class"}[measure]
	if block > 1 {
		m.Title += fmt.Sprintf(" (blocks of %d × %d frames)", block, block)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-4 -4 %.1f %.1f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		width+8, height+8, width+8, height+8, template.HTMLEscapeString(m.Title))
	// Frames: one path per colour (a few kB rather than a rect each).
	byColour := map[string]*strings.Builder{}
	var order []string
	for _, k := range keys {
		col := fill[k]
		if col == "" {
			col = "#f0f0f0"
		}
		b := byColour[col]
		if b == nil {
			b = &strings.Builder{}
			byColour[col] = b
			order = append(order, col)
		}
		fmt.Fprintf(b, "M%.1f %.1fh%.2fv%.2fh%.2fz", float64(k[0])*sx, float64(k[1])*sy, sx, sy, -sx)
	}
	for _, col := range order {
		fmt.Fprintf(&sb, `<path fill="%s" d="%s"/>`, col, byColour[col].String())
		if col != "#f0f0f0" {
			m.Colours++
		}
	}
	m.Cells = len(keys)
	// The outline: cell edges with no cell of the area beyond them.
	var ol strings.Builder
	for _, k := range keys {
		x, y := float64(k[0])*sx, float64(k[1])*sy
		if cells[[2]int{k[0], k[1] - 1}] == nil {
			fmt.Fprintf(&ol, "M%.1f %.1fh%.2f", x, y, sx)
		}
		if cells[[2]int{k[0], k[1] + 1}] == nil {
			fmt.Fprintf(&ol, "M%.1f %.1fh%.2f", x, y+sy, sx)
		}
		if cells[[2]int{k[0] - 1, k[1]}] == nil {
			fmt.Fprintf(&ol, "M%.1f %.1fv%.2f", x, y, sy)
		}
		if cells[[2]int{k[0] + 1, k[1]}] == nil {
			fmt.Fprintf(&ol, "M%.1f %.1fv%.2f", x+sx, y, sy)
		}
	}
	fmt.Fprintf(&sb, `<path fill="none" stroke="#222" stroke-width="1.6" stroke-linecap="square" d="%s"/>`, ol.String())
	// A drawn area's own shape, dashed, over its frames.
	if shape := drawnShape(spec); shape != nil {
		var d strings.Builder
		for _, poly := range shape {
			for _, ring := range poly {
				for i, p := range ring {
					op := "L"
					if i == 0 {
						op = "M"
					}
					fmt.Fprintf(&d, "%s%.1f %.1f", op, px(p[0]), py(p[1]))
				}
				d.WriteString("z")
			}
		}
		fmt.Fprintf(&sb, `<path fill="none" stroke="#0b3d91" stroke-width="1.4" stroke-dasharray="5 3" d="%s"/>`, d.String())
	}
	// Facilities: the points of the features dataset in the area's box
	// that lie on one of its frames' cells.
	if r.M.Facilities != "" {
		ix, err := r.reachIndex()
		if err != nil {
			return nil, err
		}
		if ix != nil {
			var pts strings.Builder
			radius := 3.0
			if a.FrameCount > 5000 {
				radius = 1.8
			}
			ix.InBox(minLon, minLat, maxLon, maxLat, func(p reach.Point) bool {
				// Only the points on a frame of the area (with a part
				// inside it, for a drawn area).
				sh, ok := r.ix.At(p.Lat, p.Lon)
				if !ok {
					return true
				}
				pos, ok := r.ix.Pos(sh.ID)
				if !ok {
					return true
				}
				k, found := slices.BinarySearch(a.Pos, int32(pos))
				if !found || (a.Weights != nil && a.Weights[k] <= 0) {
					return true
				}
				fmt.Fprintf(&pts, `<circle cx="%.1f" cy="%.1f" r="%.1f"/>`, px(p.Lon), py(p.Lat), radius)
				m.Points++
				return m.Points < maxPoints
			})
			fmt.Fprintf(&sb, `<g fill="#1f4e9e" stroke="#fff" stroke-width="0.8">%s</g>`, pts.String())
		}
	}
	sb.WriteString("</svg>")
	m.SVG = template.HTML(sb.String())
	return m, nil
}

// reachIndex is the point index of the facilities dataset.
func (r *Reader) reachIndex() (*reach.Index, error) {
	for _, acc := range r.ans.Access {
		if acc.Dataset.ID == r.M.Facilities {
			return r.e.Reach.Index(r.e.Scanner, acc.Dataset)
		}
	}
	return nil, nil
}

// perFrame returns, per frame of the input, a numerator and denominator
// whose sums over a cell give its value (people and km² for density), or
// the category of a categorical measure.
func (r *Reader) perFrame(measure string, inp *input) (num, den []float64, cat []string) {
	fs := &inp.in.Frames
	n := fs.Len()
	col := func(ds, attr string) *insight.Column {
		for i := range inp.in.Columns {
			if c := &inp.in.Columns[i]; c.Dataset == ds && c.Attr.Name == attr {
				return c
			}
		}
		return nil
	}
	nan := func() []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.NaN()
		}
		return v
	}
	switch measure {
	case "density", "buildings":
		m := r.M.Population
		if measure == "buildings" {
			m = r.M.Buildings
		}
		c := col(m.Dataset, m.Attribute)
		if c == nil || c.Num == nil {
			return nan(), nan(), nil
		}
		num, den = make([]float64, n), fs.AreaKm2
		for i := range n {
			num[i] = c.Num[i]
			if math.IsNaN(num[i]) {
				num[i] = 0
			}
		}
		return num, den, nil
	case "distance":
		num, den = nan(), make([]float64, n)
		near := inp.in.Near[r.M.Facilities]
		if near == nil {
			return num, den, nil
		}
		for i := range n {
			if d := near.NearestKm(fs.Lon[i], fs.Lat[i], insight.SearchLimitKm); !math.IsInf(d, 0) {
				num[i], den[i] = d, 1
			}
		}
		return num, den, nil
	}
	c := col(r.M.Settlement.Dataset, r.M.Settlement.Attribute)
	cat = make([]string, n)
	if c == nil || c.Codes == nil {
		return nil, nil, cat
	}
	for i := range n {
		if code := c.Codes[i]; code >= 0 && int(code) < len(c.Dict) {
			cat[i] = c.Dict[code]
		}
	}
	return nil, nil, cat
}

// quantiles are the upper bounds of k classes of vals holding about as
// many values each (fewer classes when values repeat).
func quantiles(vals []float64, k int) []float64 {
	if len(vals) == 0 {
		return nil
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	var out []float64
	for i := 1; i <= k; i++ {
		b := s[min(len(s)-1, i*len(s)/k)]
		if i == k {
			b = s[len(s)-1]
		}
		if len(out) == 0 || b > out[len(out)-1] {
			out = append(out, b)
		}
	}
	return out
}

// classOf is the class of v among the upper bounds breaks.
func classOf(v float64, breaks []float64) int {
	for i, b := range breaks {
		if v <= b {
			return i
		}
	}
	return len(breaks) - 1
}

// drawnShape is the shape of a drawn area, nil for a place.
func drawnShape(spec area.Spec) grid.MultiPolygon {
	switch {
	case spec.BBox != nil:
		b := spec.BBox
		return grid.MultiPolygon{{grid.Ring{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}}}
	case spec.Around != nil:
		return area.Ring(spec.Around[0], spec.Around[1], spec.RadiusKm)
	case spec.Geometry != nil:
		m, err := grid.ParseGeometry(spec.Geometry)
		if err != nil {
			return nil
		}
		return m
	}
	return nil
}

// legendNumber is a class bound for the legend: whole from 10 up, else
// to two significant figures.
func legendNumber(v float64) string {
	if math.Abs(v) >= 10 {
		return insight.FormatFigure(math.Round(v))
	}
	if v == 0 {
		return "0"
	}
	p := math.Pow(10, 1-math.Floor(math.Log10(math.Abs(v))))
	return insight.FormatFigure(math.Round(v*p) / p)
}
