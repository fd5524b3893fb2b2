package console

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"frameindex/area"
	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/internal/cache"
	"frameindex/state"
)

// Place search, state and LGA boundary lines (cut into tiles by
// explore_lines.go), and choropleth colour steps are computed by the web
// application from the store, once per dataset version, and kept in
// memory. They read the datasets the person's Explore key reads; places
// and boundaries only those read without charge (owned, or licensed by
// subscription), since a scan of a whole dataset is not a request anyone
// could be charged for fairly. Colour steps of a per-query dataset are
// refused: they summarise every frame of it, which the price rule
// (access.Price) would charge as reading the whole dataset.

// placeKinds are the category or text attributes a place is searched by,
// with the kind shown.
var placeKinds = map[string]string{"state": "State", "lga": "LGA", "ward": "Ward", "town": "Town"}

// boundaryLevels are the attributes whose boundaries are drawn.
var boundaryLevels = []string{"state", "lga"}

// place is one search result.
type place struct {
	Name   string     `json:"name"`
	Kind   string     `json:"kind"`
	Within string     `json:"within,omitempty"` // the LGA of a ward, the state of an LGA
	BBox   [4]float64 `json:"bbox"`
	Frames int        `json:"frames"`
}

// placeData is the index of one set of datasets.
type placeData struct {
	places []place
	lower  []string            // lower-case names, parallel to places
	lines  map[string]*lineSet // level -> boundary lines ready for tiles
}

// placeIndex keeps placeData per set of dataset versions (a few: every
// organisation of a file usually reads the same open datasets).
type placeIndex struct {
	sets *cache.Cache[string, *placeData]
}

const maxPlaceSets = 8

func newPlaceIndex() *placeIndex {
	return &placeIndex{sets: cache.New[string, *placeData](maxPlaceSets, nil)}
}

// placeSource is one dataset the place index reads, and the attribute it
// reads each kind of place from.
type placeSource struct {
	d     state.Dataset
	attrs map[string]string // kind ("state", "lga", "ward", "town") -> attribute
	// parents are levels read from this dataset only to say which larger
	// area holds a place (an LGA's state) when another dataset is where
	// that level's places come from.
	parents map[string]string
}

// placeKindOrder is the order kinds are read in.
var placeKindOrder = []string{"state", "lga", "ward", "town"}

// placeSources returns what the place index of acc reads: each level
// from where questions read it (area.LevelSources: the newest dataset
// read without charge that records it, so that a place found here has the
// frames a question about it counts), and towns from every dataset read
// without charge with a "town" attribute; in dataset id order.
func placeSources(acc []state.Access) []placeSource {
	byID := map[string]*placeSource{}
	add := func(d state.Dataset, kind, attr string) {
		src := byID[d.ID]
		if src == nil {
			src = &placeSource{d: d, attrs: map[string]string{}}
			byID[d.ID] = src
		}
		src.attrs[kind] = attr
	}
	for _, l := range area.LevelSources(acc) {
		add(l.Dataset, l.Kind, l.Attr)
	}
	for _, a := range acc {
		if a.PerQuery {
			continue
		}
		for _, at := range a.Dataset.Attributes {
			if at.Name == "town" && at.Type != state.TypeNumber {
				add(a.Dataset, "town", at.Name)
			}
		}
	}
	out := make([]placeSource, 0, len(byID))
	for _, src := range byID {
		for _, at := range src.d.Attributes {
			k := area.AttrLevel(at.Name)
			if _, ok := src.attrs[k]; k != "" && !ok && at.Type != state.TypeNumber {
				if src.parents == nil {
					src.parents = map[string]string{}
				}
				src.parents[k] = at.Name
			}
		}
		out = append(out, *src)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d.ID < out[j].d.ID })
	return out
}

// get returns the index over the datasets of acc that are read without
// charge and record places (placeSources), building it on first use
// (about a second per national dataset; concurrent callers wait for one
// build). A failed build is retried by the next call.
func (pi *placeIndex) get(store *bolt.Store, acc []state.Access) (*placeData, error) {
	srcs := placeSources(acc)
	var sig strings.Builder
	for _, src := range srcs {
		sig.WriteString(src.d.ID + "@" + strconv.Itoa(src.d.Version))
		for _, k := range placeKindOrder {
			if at, ok := src.attrs[k]; ok {
				sig.WriteString(":" + k + "=" + at)
			}
			if at, ok := src.parents[k]; ok {
				sig.WriteString(":" + k + "~" + at)
			}
		}
		sig.WriteString(",")
	}
	return pi.sets.Get(sig.String(), func() (*placeData, error) { return buildPlaces(store, srcs) })
}

// extent is the lattice rows and columns a place covers.
type extent struct {
	r0, r1, c0, c1 int
	n              int
	within         map[string]int
}

// edges collects the boundary edges of one attribute over the lattice, in
// one ascending pass over frame ids (row by row).
type edges struct {
	ids        map[string]int32
	prev, cur  []int32 // value id + 1 per column of the previous and current row; 0 none
	row        int
	touched    []int // columns set in cur
	prevTouch  []int
	horizontal [][3]int // row, first column, last column (edge along the top of row)
	vertical   []uint64 // col<<32 | row: edge along the west side of (row, col)
}

func newEdges() *edges {
	return &edges{ids: map[string]int32{}, prev: make([]int32, grid.Cols+1), cur: make([]int32, grid.Cols+1), row: -1}
}

func (e *edges) add(row, col int, v string) {
	if row != e.row {
		// The current row becomes the previous one (if adjacent).
		for _, c := range e.prevTouch {
			e.prev[c] = 0
		}
		e.prev, e.cur = e.cur, e.prev
		e.prevTouch, e.touched = e.touched, e.prevTouch[:0]
		if row != e.row+1 {
			for _, c := range e.prevTouch {
				e.prev[c] = 0
			}
			e.prevTouch = e.prevTouch[:0]
		}
		e.row = row
	}
	id, ok := e.ids[v]
	if !ok {
		id = int32(len(e.ids))
		e.ids[strings.Clone(v)] = id
	}
	id++
	e.cur[col] = id
	e.touched = append(e.touched, col)
	if col > 0 && e.cur[col-1] != 0 && e.cur[col-1] != id {
		e.vertical = append(e.vertical, uint64(col)<<32|uint64(row))
	}
	if p := e.prev[col]; p != 0 && p != id {
		if n := len(e.horizontal); n > 0 && e.horizontal[n-1][0] == row && e.horizontal[n-1][2] == col-1 {
			e.horizontal[n-1][2] = col
		} else {
			e.horizontal = append(e.horizontal, [3]int{row, col, col})
		}
	}
}

// buildPlaces scans each source once for its places and boundaries.
// Frames that are not lattice cells (an imported polygon grid) are
// skipped: such grids have no places or boundaries here.
func buildPlaces(store *bolt.Store, srcs []placeSource) (*placeData, error) {
	ext := map[[2]string]*extent{}
	bounds := map[string]*edges{}
	for _, src := range srcs {
		var kinds, paths, levels []string
		for _, k := range placeKindOrder {
			at, ok := src.attrs[k]
			if !ok {
				continue
			}
			kinds, paths = append(kinds, k), append(paths, at)
			if slices.Contains(boundaryLevels, k) && bounds[k] == nil {
				levels = append(levels, k)
				bounds[k] = newEdges()
			}
		}
		// Read after the places, for the larger area holding them.
		places := len(kinds)
		for _, k := range placeKindOrder {
			if at, ok := src.parents[k]; ok {
				kinds, paths = append(kinds, k), append(paths, at)
			}
		}
		err := store.ScanRecords(src.d.ID, []bolt.IDRange{bolt.AllFrames}, func(frame uint64, _ int, attrs []byte) bool {
			row, col, ok := grid.RowCol(frame)
			if !ok || len(attrs) == 0 {
				return true
			}
			vals := gjson.GetManyBytes(attrs, paths...)
			for i, k := range kinds[:places] {
				v := vals[i]
				if v.Type != gjson.String || v.Str == "" {
					continue
				}
				key := [2]string{k, v.Str}
				x := ext[key]
				if x == nil {
					key[1] = strings.Clone(v.Str)
					x = &extent{r0: row, r1: row, c0: col, c1: col, within: map[string]int{}}
					ext[key] = x
				}
				x.r0, x.r1, x.c0, x.c1 = min(x.r0, row), max(x.r1, row), min(x.c0, col), max(x.c1, col)
				x.n++
				// The larger area holding it: a ward's LGA, an LGA's state.
				parent := ""
				switch k {
				case "ward", "town":
					parent = "lga"
				case "lga":
					parent = "state"
				}
				if j := slices.Index(kinds, parent); j >= 0 && vals[j].Type == gjson.String && len(x.within) < 4 {
					x.within[vals[j].Str]++
				}
				if slices.Contains(levels, k) {
					bounds[k].add(row, col, v.Str)
				}
			}
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	pd := &placeData{lines: map[string]*lineSet{}}
	for key, x := range ext {
		within := ""
		best := 0
		for w, n := range x.within {
			if n > best || (n == best && w < within) {
				within, best = strings.Clone(w), n
			}
		}
		pd.places = append(pd.places, place{Name: key[1], Kind: placeKinds[key[0]], Within: within, Frames: x.n,
			BBox: [4]float64{round5(grid.Lon(x.c0)), round5(grid.Lat(x.r1 + 1)), round5(grid.Lon(x.c1 + 1)), round5(grid.Lat(x.r0))}})
	}
	rank := map[string]int{"State": 0, "LGA": 1, "Town": 2, "Ward": 3}
	sort.Slice(pd.places, func(i, j int) bool {
		a, b := pd.places[i], pd.places[j]
		if a.Name != b.Name {
			return naturalLess(a.Name, b.Name)
		}
		return rank[a.Kind] < rank[b.Kind]
	})
	pd.lower = make([]string, len(pd.places))
	for i, p := range pd.places {
		pd.lower[i] = strings.ToLower(p.Name)
	}
	for level, e := range bounds {
		pd.lines[level] = newLineSet(e.lines(), lineMinZoom[level])
	}
	return pd, nil
}

// naturalLess orders names with numbers by their value: "Ward 2" before
// "Ward 10".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digitRun is the length of the run of ASCII digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func round5(v float64) float64 { return math.Round(v*1e5) / 1e5 }

// search returns up to n places whose names hold q (case-insensitive):
// exact names first, then names starting with q, then the rest; larger
// kinds (state, LGA) before smaller within each.
func (pd *placeData) search(q string, n int) []place {
	if pd == nil {
		return []place{}
	}
	q = strings.ToLower(q)
	type hit struct {
		i, score int
	}
	var hits []hit
	rank := map[string]int{"State": 0, "LGA": 1, "Town": 2, "Ward": 3}
	for i, name := range pd.lower {
		score := -1
		switch {
		case name == q:
			score = 0
		case strings.HasPrefix(name, q):
			score = 10
		case strings.Contains(name, q):
			score = 20
		}
		if score >= 0 {
			hits = append(hits, hit{i, score + rank[pd.places[i].Kind]})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score < hits[b].score })
	out := make([]place, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, pd.places[h.i])
	}
	return out
}

// attrRef names a numeric attribute of one dataset version.
type attrRef struct {
	dataset string
	version int
	name    string
	sum     bool

	perQuery bool  // licensed per query: no colour steps (handleBreaks)
	price    int64 // the per-query price
	frames   int   // frames with a record
}

// breaks are a choropleth's colour steps: classes of about as many
// frames each (quantiles), over the values of the frames that record the
// attribute.
type breaks struct {
	Breaks   []float64 `json:"breaks"` // ascending upper bounds of every class but the last
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	Frames   int       `json:"frames"`
	PerFrame bool      `json:"perFrame,omitempty"` // a sum: drawn as the value per frame
}

// breakClasses is the number of colour classes.
const breakClasses = 6

type breakCache struct {
	mu sync.Mutex
	m  map[attrRef]*breakEntry
}

type breakEntry struct {
	once sync.Once
	b    breaks
	err  error
}

func newBreakCache() *breakCache { return &breakCache{m: map[attrRef]*breakEntry{}} }

// get returns the colour steps of a, computing them on first use (a scan
// of the dataset: about a second for a national one). A failure is
// retried by the next call.
func (bc *breakCache) get(store *bolt.Store, a attrRef) (breaks, error) {
	bc.mu.Lock()
	e := bc.m[a]
	if e == nil {
		if len(bc.m) > 256 {
			clear(bc.m)
		}
		e = &breakEntry{}
		bc.m[a] = e
	}
	bc.mu.Unlock()
	e.once.Do(func() { e.b, e.err = computeBreaks(store, a) })
	if e.err != nil {
		bc.mu.Lock()
		if bc.m[a] == e {
			delete(bc.m, a)
		}
		bc.mu.Unlock()
	}
	return e.b, e.err
}

func computeBreaks(store *bolt.Store, a attrRef) (breaks, error) {
	var vals []float64
	err := store.ScanRecords(a.dataset, []bolt.IDRange{bolt.AllFrames}, func(_ uint64, _ int, attrs []byte) bool {
		if len(attrs) == 0 {
			return true
		}
		if v := gjson.GetBytes(attrs, a.name); v.Type == gjson.Number && !math.IsNaN(v.Num) && !math.IsInf(v.Num, 0) {
			vals = append(vals, v.Num)
		}
		return true
	})
	if err != nil {
		return breaks{}, err
	}
	return quantileBreaks(vals, breakClasses, a.sum), nil
}

// quantileBreaks returns up to classes-1 ascending, distinct, rounded
// upper bounds splitting vals into classes of about equal size.
func quantileBreaks(vals []float64, classes int, perFrame bool) breaks {
	b := breaks{Breaks: []float64{}, Frames: len(vals), PerFrame: perFrame}
	if len(vals) == 0 {
		return b
	}
	slices.Sort(vals)
	b.Min, b.Max = vals[0], vals[len(vals)-1]
	for i := 1; i < classes; i++ {
		v := niceRound(vals[i*len(vals)/classes])
		if v <= b.Min || v >= b.Max {
			continue
		}
		if n := len(b.Breaks); n == 0 || v > b.Breaks[n-1] {
			b.Breaks = append(b.Breaks, v)
		}
	}
	return b
}

// niceRound rounds v to two significant digits.
func niceRound(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return math.Round(v/p) * p
}
