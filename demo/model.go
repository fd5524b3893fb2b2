package demo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"

	"frameindex/grid"
)

// seed fixes every pseudo-random choice of the demo. Changing it changes
// every synthetic figure; keep it fixed so that two builds agree byte for
// byte.
const seed uint64 = 0x6e6761_2020

// Random streams: each choice draws from its own stream so that adding a
// choice never shifts another.
const (
	streamRegion uint64 = iota + 1
	streamLocal
	streamEmpty
	streamJitter
	streamBuildings
	streamWard
	streamHealthCount
	streamHealthType
	streamHealthPos
	streamLight
	streamFlare
	streamFootprint
)

// mix is SplitMix64's finaliser: a bijective 64-bit hash.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash3 hashes a stream and two values, seeded.
func hash3(stream, a, b uint64) uint64 {
	return mix(mix(mix(seed^stream*0x9e3779b97f4a7c15)^a) ^ b)
}

// unit returns a uniform number in [0, 1) from h.
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// rnd returns a uniform number in [0, 1) for (stream, a, b).
func rnd(stream, a, b uint64) float64 { return unit(hash3(stream, a, b)) }

// valueNoise is smooth noise in [0, 1): random values on a square lattice
// of the given spacing in degrees, interpolated with a smoothstep.
func valueNoise(stream uint64, lat, lon, spacing float64) float64 {
	x, y := (lon+180)/spacing, (90-lat)/spacing
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	fx, fy = fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	ix, iy := uint64(x0), uint64(y0)
	v00 := rnd(stream, ix, iy)
	v10 := rnd(stream, ix+1, iy)
	v01 := rnd(stream, ix, iy+1)
	v11 := rnd(stream, ix+1, iy+1)
	return (v00*(1-fx)+v10*fx)*(1-fy) + (v01*(1-fx)+v11*fx)*fy
}

// Ground distances use an equirectangular approximation, good to well
// under 1% over the few hundred kilometres the model ever measures.
const (
	kmPerDegLat = 110.57
	kmPerDegLon = 111.32 // at the equator
)

// cellAreaKm2 is the area of a lattice cell whose centre is at lat.
func cellAreaKm2(lat float64) float64 {
	return (kmPerDegLat / grid.CellsPerDegree) * (kmPerDegLon / grid.CellsPerDegree) * math.Cos(lat*math.Pi/180)
}

// lattice is the stored national grid as runs, with each cell's position
// in frame order (ascending id), the order every per-frame slice uses.
type lattice struct {
	runs   []grid.Run
	start  []int // start[i] is the position of runs[i]'s first cell
	n      int   // cells in all
	row0   int   // first row
	rowRun []int // rowRun[r-row0] is the index of row r's first run; one extra entry at the end
}

func newLattice(runs []grid.Run) *lattice {
	l := &lattice{runs: runs, start: make([]int, len(runs))}
	if len(runs) == 0 {
		return l
	}
	for i, r := range runs {
		l.start[i] = l.n
		l.n += r.Len()
	}
	l.row0 = int(runs[0].Row)
	last := int(runs[len(runs)-1].Row)
	l.rowRun = make([]int, last-l.row0+2)
	i := 0
	for r := l.row0; r <= last+1; r++ {
		for i < len(runs) && int(runs[i].Row) < r {
			i++
		}
		l.rowRun[r-l.row0] = i
	}
	return l
}

// index returns the position of cell (row, col), or -1 when the grid does
// not hold it.
func (l *lattice) index(row, col int) int {
	if row < l.row0 || row-l.row0 >= len(l.rowRun)-1 {
		return -1
	}
	lo, hi := l.rowRun[row-l.row0], l.rowRun[row-l.row0+1]
	rs := l.runs[lo:hi]
	i := sort.Search(len(rs), func(i int) bool { return int(rs[i].Col1) >= col })
	if i == len(rs) || int(rs[i].Col0) > col {
		return -1
	}
	return l.start[lo+i] + col - int(rs[i].Col0)
}

// each calls fn for every cell in frame order with its position, row,
// column and centre. It stops early with ctx's error, checked every row.
func (l *lattice) each(ctx context.Context, fn func(i, row, col int, lat, lon float64)) error {
	i := 0
	for k, r := range l.runs {
		if k == 0 || r.Row != l.runs[k-1].Row {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := int(r.Row)
		lat := grid.Lat(row) - 0.5/grid.CellsPerDegree
		for col := int(r.Col0); col <= int(r.Col1); col++ {
			fn(i, row, col, lat, grid.Lon(col)+0.5/grid.CellsPerDegree)
			i++
		}
	}
	return nil
}

// centre returns the centre of cell (row, col).
func centre(row, col int) (lat, lon float64) {
	return grid.Lat(row) - 0.5/grid.CellsPerDegree, grid.Lon(col) + 0.5/grid.CellsPerDegree
}

// blob is a broad region of denser (or sparser) rural settlement: amp
// people per km² at its centre, falling off as a Gaussian of sigma degrees.
type blob struct {
	lat, lon, amp, sigma float64
}

// ruralBlobs sketch where Nigeria's countryside is densely settled: the
// close-settled zone around Kano, the Sokoto-Rima valley, the Igbo and
// Ibibio heartlands of the south-east, the Yoruba south-west, the Tiv lands
// of Benue; the middle belt and the north-east stay near the background.
var ruralBlobs = []blob{
	{12.0, 8.5, 330, 0.9},  // Kano close-settled zone
	{12.4, 7.4, 170, 0.8},  // Katsina
	{13.0, 5.3, 170, 0.7},  // Sokoto-Rima valley
	{12.2, 4.5, 60, 1.0},   // Kebbi, western Zamfara
	{12.3, 9.8, 110, 0.8},  // Jigawa, Hadejia valley
	{10.5, 10.5, 60, 1.0},  // Bauchi, Gombe
	{10.6, 7.8, 110, 0.9},  // Kaduna and Zaria plains
	{9.6, 9.0, 100, 0.6},   // Jos Plateau
	{7.3, 8.8, 170, 0.8},   // Benue (Tiv lands)
	{5.9, 7.2, 560, 0.55},  // Igbo heartland
	{5.0, 7.8, 420, 0.5},   // Akwa Ibom
	{5.8, 6.0, 150, 0.7},   // Delta, southern Edo
	{7.4, 4.3, 190, 1.0},   // Yoruba south-west
	{7.5, 5.3, 110, 0.6},   // Ekiti, northern Ondo
	{12.0, 13.0, 40, 1.0},  // central Borno
	{10.2, 13.0, 70, 0.6},  // Mubi, Michika hills
	{6.6, 3.4, 250, 0.35},  // Lagos-Ogun fringe
	{9.1, 7.4, 40, 0.45},   // around Abuja
	{11.1, 7.7, 120, 0.4},  // around Zaria
	{4.9, 7.0, 200, 0.35},  // around Port Harcourt
	{6.1, 6.8, 250, 0.35},  // around Onitsha
	{8.5, 4.6, 80, 0.4},    // around Ilorin
	{9.9, 8.9, 80, 0.35},   // around Jos
	{11.8, 13.1, 60, 0.4},  // around Maiduguri
	{6.3, 5.6, 120, 0.4},   // around Benin City
	{7.4, 3.9, 150, 0.4},   // around Ibadan
	{9.4, 12.3, 40, 0.5},   // Yola, Numan
	{8.0, 9.8, 40, 0.6},    // southern Taraba
	{13.0, 8.0, 80, 0.5},   // Daura, Katsina east
	{11.7, 11.1, 40, 0.5},  // Potiskum
	{7.8, 6.5, 60, 0.6},    // Kogi
	{8.8, 5.5, -20, 1.2},   // middle belt of Niger and Kwara: sparser
	{7.2, 11.5, -25, 0.5},  // Mambilla and Gashaka: sparser
	{13.3, 13.6, -25, 0.6}, // Lake Chad shores: sparser
}

// empty is an area the model leaves uninhabited: lakes, national parks,
// forest reserves (an ellipse, radii in degrees).
type empty struct {
	lat, lon, rLat, rLon float64
}

var emptyAreas = []empty{
	{13.45, 14.25, 0.45, 0.45}, // Lake Chad (open water and swamp)
	{10.35, 4.55, 0.35, 0.10},  // Kainji Lake
	{10.10, 4.05, 0.35, 0.35},  // Kainji Lake National Park (Borgu)
	{9.75, 10.50, 0.18, 0.22},  // Yankari Game Reserve
	{7.30, 11.65, 0.40, 0.30},  // Gashaka-Gumti National Park
	{8.65, 3.90, 0.25, 0.30},   // Old Oyo National Park
	{5.40, 8.55, 0.20, 0.25},   // Cross River National Park (Oban)
	{6.30, 9.15, 0.12, 0.12},   // Cross River National Park (Okwangwo)
	{9.10, 5.80, 0.12, 0.25},   // Lake Jebba and Kainji backwaters
	{11.00, 13.85, 0.30, 0.25}, // Sambisa forest
	{7.95, 4.20, 0.08, 0.10},   // Ikere Gorge reservoir
}

// ruralCalibration scales the rural density so that the national total,
// cities included, is about 206 million (the UN estimate for 2020) on the
// national 30-arc-second grid built from the embedded outline.
const ruralCalibration = 0.85

// ruralDensity is the model's rural density at a cell centre, people per
// km², before the local jitter; 0 where the model leaves the land empty.
func ruralDensity(lat, lon float64) float64 {
	for _, e := range emptyAreas {
		dy, dx := (lat-e.lat)/e.rLat, (lon-e.lon)/e.rLon
		if dx*dx+dy*dy <= 1 {
			return 0
		}
	}
	// Forest reserves, rock and swamp: patches of a few kilometres where
	// the smooth noise is lowest.
	if valueNoise(streamEmpty, lat, lon, 0.08) < 0.12 {
		return 0
	}
	d := 45.0
	for _, b := range ruralBlobs {
		dy, dx := lat-b.lat, lon-b.lon
		d += b.amp * math.Exp(-(dx*dx+dy*dy)/(2*b.sigma*b.sigma))
	}
	d = max(d, 8)
	region := 0.45 + 1.1*valueNoise(streamRegion, lat, lon, 0.5)
	local := 0.6 + 0.8*valueNoise(streamLocal, lat, lon, 0.1)
	return d * region * local * ruralCalibration
}

// kernelShare is the part of a place's population in its compact core;
// the rest spreads over a halo three times as wide.
const kernelShare = 0.75

// coreDensity is the density at the centre of a place of pop people, per
// km²: 8,000 for a town of 100,000, about 36,000 for Lagos.
func coreDensity(pop float64) float64 { return 8000 * math.Pow(pop/1e5, 0.3) }

// addPlaces adds each place's population to pop, spread as two
// exponential kernels around its centre (a compact core and a wider halo),
// each scaled so that what lands on the grid's cells sums to the place's
// population, unless most of the kernel falls outside the grid (a small
// test grid): the scale is capped at 2.5.
func addPlaces(ctx context.Context, l *lattice, places []place, pop []float64) error {
	var idx []int
	var w []float64
	for _, p := range places {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := math.Sqrt(p.Pop / (2 * math.Pi * coreDensity(p.Pop)))
		for _, part := range [2]struct{ share, r float64 }{{kernelShare, r}, {1 - kernelShare, 3 * r}} {
			cut := 6 * part.r
			cosLat := math.Cos(p.Lat * math.Pi / 180)
			dLat, dLon := cut/kmPerDegLat, cut/(kmPerDegLon*cosLat)
			r0, r1 := grid.RowSpan(p.Lat-dLat, p.Lat+dLat)
			c0, c1 := grid.ColSpan(p.Lon-dLon, p.Lon+dLon)
			idx, w = idx[:0], w[:0]
			sum := 0.0
			for row := r0; row <= r1; row++ {
				for col := c0; col <= c1; col++ {
					i := l.index(row, col)
					if i < 0 {
						continue
					}
					lat, lon := centre(row, col)
					dy, dx := (lat-p.Lat)*kmPerDegLat, (lon-p.Lon)*kmPerDegLon*cosLat
					d := math.Sqrt(dx*dx + dy*dy)
					if d > cut {
						continue
					}
					v := math.Exp(-d/part.r) / (2 * math.Pi * part.r * part.r) * cellAreaKm2(lat)
					idx, w = append(idx, i), append(w, v)
					sum += v
				}
			}
			if sum == 0 {
				continue
			}
			scale := p.Pop * part.share / max(sum, 0.4)
			for k, i := range idx {
				pop[i] += w[k] * scale
			}
		}
	}
	return nil
}

// model is the synthetic picture of the country, one entry per frame in
// frame order.
type model struct {
	l      *lattice
	places []place  // capitals, then towns
	pop    []int32  // people (2020)
	state  []uint8  // index into capitals
	lga    []uint16 // index into places
	ward   []int32  // ward number within the LGA, from 1
}

// allPlaces returns the capitals followed by the towns.
func allPlaces() []place {
	return append(slices.Clip(capitals), towns...)
}

// buildModel computes population and administrative identity per frame.
func buildModel(ctx context.Context, l *lattice) (*model, error) {
	m := &model{
		l:      l,
		places: allPlaces(),
		pop:    make([]int32, l.n),
		state:  make([]uint8, l.n),
		lga:    make([]uint16, l.n),
		ward:   make([]int32, l.n),
	}
	pop := make([]float64, l.n)
	err := l.each(ctx, func(i, row, col int, lat, lon float64) {
		d := ruralDensity(lat, lon)
		if d > 0 {
			d *= 0.5 + rnd(streamJitter, uint64(row), uint64(col))
		}
		pop[i] = d * cellAreaKm2(lat)
	})
	if err != nil {
		return nil, err
	}
	if err := addPlaces(ctx, l, m.places, pop); err != nil {
		return nil, err
	}
	for i, v := range pop {
		m.pop[i] = int32(min(math.Round(v), math.MaxInt32))
	}
	if err := m.assignAdmin(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Ward cells: a frame's ward is the nearest of seeds jittered on a square
// lattice of wardStep cells (about 14 km), or of urbanWardStep cells
// (about 3.7 km) where the frame is urban.
const (
	wardStep      = 15
	urbanWardStep = 4
)

// wardSeed returns the key and squared distance (in cells) of the nearest
// ward seed to cell (row, col) on a lattice of step cells.
func wardSeed(row, col, step int) (key uint64, d2 float64) {
	br, bc := row/step, col/step
	y, x := float64(row)+0.5, float64(col)+0.5
	best := math.Inf(1)
	for r := br - 1; r <= br+1; r++ {
		for c := bc - 1; c <= bc+1; c++ {
			k := uint64(step)<<48 | uint64(r)<<24 | uint64(c)
			h := hash3(streamWard, k, 0)
			sy := float64(r*step) + float64(step)*(0.15+0.7*unit(h))
			sx := float64(c*step) + float64(step)*(0.15+0.7*unit(mix(h)))
			dy, dx := y-sy, x-sx
			if d := dy*dy + dx*dx; d < best {
				best, key = d, k
			}
		}
	}
	return key, best
}

// assignAdmin gives each frame its LGA, the nearest place (a plain
// nearest-point Voronoi split of the grid among the embedded places), the
// state of that place, and its ward.
func (m *model) assignAdmin(ctx context.Context) error {
	stateOf := map[string]uint8{}
	for i, c := range capitals {
		stateOf[c.State] = uint8(i)
	}
	seeds := make([]uint64, m.l.n)
	err := m.l.each(ctx, func(i, row, col int, lat, lon float64) {
		cosLat := math.Cos(lat * math.Pi / 180)
		best, lga := math.Inf(1), 0
		for k, p := range m.places {
			dy, dx := lat-p.Lat, (lon-p.Lon)*cosLat
			if d := dy*dy + dx*dx; d < best {
				best, lga = d, k
			}
		}
		m.state[i], m.lga[i] = stateOf[m.places[lga].State], uint16(lga)
		step := wardStep
		if isUrban(float64(m.pop[i]) / cellAreaKm2(lat)) {
			step = urbanWardStep
		}
		seeds[i], _ = wardSeed(row, col, step)
	})
	if err != nil {
		return err
	}
	// Number each LGA's wards in the order of their seeds.
	type pair struct {
		lga  uint16
		seed uint64
	}
	pairs := map[pair]int32{}
	for i := range seeds {
		pairs[pair{m.lga[i], seeds[i]}] = 0
	}
	keys := make([]pair, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pair) int {
		if c := cmp.Compare(a.lga, b.lga); c != 0 {
			return c
		}
		return cmp.Compare(a.seed, b.seed)
	})
	n := int32(0)
	for k, p := range keys {
		if k == 0 || p.lga != keys[k-1].lga {
			n = 0
		}
		n++
		pairs[p] = n
	}
	for i := range seeds {
		m.ward[i] = pairs[pair{m.lga[i], seeds[i]}]
	}
	return nil
}

// Settlement classes by density (people per km²), after the thresholds of
// the Degree of Urbanisation (urban centres 1,500, urban clusters 300).
const (
	urbanDensity     = 1500
	periUrbanDensity = 300
)

func isUrban(density float64) bool { return density >= urbanDensity }

// settlementClass names a frame's class from its population and area.
func settlementClass(pop int32, areaKm2 float64) string {
	d := float64(pop) / areaKm2
	switch {
	case pop <= 0:
		return "uninhabited"
	case d >= urbanDensity:
		return "urban"
	case d >= periUrbanDensity:
		return "peri-urban"
	}
	return "rural"
}
