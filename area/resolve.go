package area

import (
	"errors"
	"fmt"
	"frameindex/state"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"frameindex/access"
	"frameindex/grid"
	"frameindex/index"
	"frameindex/plan"
)

// Area is an area resolved on the grid: the frames it covers and how much
// of each.
type Area struct {
	Name string `json:"name"`
	// Kind is "state", "lga", "ward" or another zones attribute for a
	// place; "country" for the whole grid; "bbox", "polygon" or "ring"
	// for a drawn area; "frames" for a selection of frames.
	Kind       string  `json:"kind"`
	Parent     string  `json:"parent,omitempty"`
	Dataset    string  `json:"dataset,omitempty"` // the boundary dataset of a place
	FrameCount int     `json:"frameCount"`
	Km2        float64 `json:"km2"`
	// Partial is set when frames count by the fraction of their area
	// inside (a drawn area that does not follow frame edges).
	Partial bool `json:"partial,omitempty"`

	// Pos are the frames' positions in the grid (index.Pos), ascending;
	// shared with the place cache for a place: do not modify.
	Pos []int32 `json:"-"`
	// Weights are the fractions (0, 1] of each frame inside, parallel to
	// Pos; nil when every frame counts whole.
	Weights []float64 `json:"-"`
	// Place is the place of a place area.
	Place *Place `json:"-"`
}

// Subject names an area in the answer's sentences: "Dala LGA",
// "Kano State", "Nigeria", "the 5 km ring around 8.52, 12".
func (a *Area) Subject() string {
	switch a.Kind {
	case "state":
		return a.Name + " State"
	case "lga":
		return a.Name + " LGA"
	case "ward", "country":
		return a.Name
	case "bbox", "polygon", "ring", "frames":
		return "the " + a.Name
	}
	return a.Name + " (" + a.Kind + ")"
}

// Catalogue resolves areas for one request: the boundary datasets a key
// reads without charge over one grid. Places come from the datasets read
// without charge only (owned, or licensed by subscription): finding a
// place reads the whole of its dataset, which no request could fairly be
// charged for.
type Catalogue struct {
	places   *Places
	ix       *index.Index
	datasets []state.Dataset
}

// Index is the grid the catalogue resolves areas on.
func (c *Catalogue) Index() *index.Index { return c.ix }

// Catalogue returns the catalogue of the datasets of readable (a key's
// readable datasets) over ix.
func (ps *Places) Catalogue(ix *index.Index, readable []state.Access) *Catalogue {
	return &Catalogue{places: ps, ix: ix, datasets: placeDatasets(readable)}
}

// placeDatasets are the datasets of readable that may record places: read
// without charge, with a category or text attribute.
func placeDatasets(readable []state.Access) []state.Dataset {
	var out []state.Dataset
	for _, a := range readable {
		if a.PerQuery {
			continue
		}
		if slices.ContainsFunc(a.Dataset.Attributes, func(at state.Attribute) bool { return at.Type != state.TypeNumber }) {
			out = append(out, a.Dataset)
		}
	}
	return out
}

// AttrLevel returns the level ("state", "lga", "ward") an attribute of
// that name records, or "".
func AttrLevel(attr string) string {
	if i := levelOf(attr); i >= 0 {
		return levels[i].kind
	}
	return ""
}

// A LevelSource is where the places of one level are read from.
type LevelSource struct {
	Kind    string // "state", "lga" or "ward"
	Dataset state.Dataset
	Attr    string
}

// LevelSources returns, for each level some dataset of readable records
// (readable: a key's readable datasets), the dataset and attribute
// questions read its places from: the newest such dataset read without
// charge. Whatever else lists places (the console's place search) reads
// them from here, so that a place has the same frames everywhere.
func LevelSources(readable []state.Access) []LevelSource {
	c := &Catalogue{datasets: placeDatasets(readable)}
	srcs, _ := c.sources("")
	out := make([]LevelSource, len(srcs))
	for i, s := range srcs {
		out[i] = LevelSource{Kind: levels[levelOf(s.attr)].kind, Dataset: s.d, Attr: s.attr}
	}
	return out
}

// source is one attribute of one dataset that records places.
type source struct {
	d    state.Dataset
	attr string
}

// sources returns where places of kind are recorded: for a level
// ("state", "lga", "ward") the newest dataset recording it (a boundary
// import replaces an older one, such as the demo's approximate admin);
// for another kind, every dataset with a category or text attribute of
// that name; for kind "", every level. ok is false when no dataset
// records kind.
func (c *Catalogue) sources(kind string) ([]source, bool) {
	var out []source
	if kind != "" && levelIndex(kind) < 0 {
		for _, d := range c.datasets {
			for _, at := range d.Attributes {
				if at.Name == kind && at.Type != state.TypeNumber {
					out = append(out, source{d, at.Name})
				}
			}
		}
		return out, len(out) > 0
	}
	for li, l := range levels {
		if kind != "" && kind != l.kind {
			continue
		}
		var best *state.Dataset
		attr := ""
		for i := range c.datasets {
			d := &c.datasets[i]
			for _, at := range d.Attributes {
				if at.Type != state.TypeNumber && levelOf(at.Name) == li {
					if best == nil || d.ImportedAt.After(best.ImportedAt) {
						best, attr = d, at.Name
					}
					break
				}
			}
		}
		if best != nil {
			out = append(out, source{*best, attr})
		}
	}
	return out, len(out) > 0
}

// Kinds lists the kinds of place the catalogue knows, for messages.
func (c *Catalogue) Kinds() []string {
	var out []string
	for _, l := range levels {
		if _, ok := c.sources(l.kind); ok {
			out = append(out, l.kind)
		}
	}
	for _, d := range c.datasets {
		for _, at := range d.Attributes {
			if at.Type != state.TypeNumber && levelOf(at.Name) < 0 && !slices.Contains(out, at.Name) {
				out = append(out, at.Name)
			}
		}
	}
	return out
}

// setsOf returns the place sets of srcs, one scan per dataset: the level
// attributes of a dataset are read together.
func (c *Catalogue) setsOf(srcs []source) ([]*placeSet, error) {
	var out []*placeSet
	for _, s := range srcs {
		attrs := []string{s.attr}
		if levelOf(s.attr) >= 0 {
			attrs = attrs[:0]
			for _, at := range s.d.Attributes {
				if at.Type != state.TypeNumber && levelOf(at.Name) >= 0 {
					attrs = append(attrs, at.Name)
				}
			}
		}
		sets, err := c.places.sets(c.ix, s.d, attrs)
		if err != nil {
			return nil, err
		}
		out = append(out, sets[s.attr])
	}
	return out, nil
}

// lookup returns the places name may mean (several when ambiguous, none
// when unknown), or national for the whole grid. Errors: an unknown kind
// or no place data (*Error), or the store's.
func (c *Catalogue) lookup(name, kind string) (cands []*Place, national bool, srcs []source, sets []*placeSet, err error) {
	// "Obi, Benue": a place and its parent.
	parent := ""
	if i := strings.LastIndexByte(name, ','); i > 0 {
		if pk, _ := Key(name[i+1:]); pk != "" {
			name, parent = name[:i], pk
		}
	}
	key, said := Key(name)
	kind = strings.ToLower(strings.TrimSpace(kind))
	if kind == "" {
		kind = said
	}
	if key == "" {
		return nil, false, nil, nil, invalid("area.place %q holds no letters or digits; name a place", name)
	}
	if (kind == "" || kind == "country") && countryKeys[key] {
		return nil, true, nil, nil, nil
	}
	srcs, ok := c.sources(kind)
	if !ok {
		if kind == "" {
			return nil, false, nil, nil, &Error{Code: CodeNotFound, Message: "no dataset this key reads without charge records places (states, LGAs, wards): import boundaries as zones, or ask about a bbox, geometry or ring"}
		}
		return nil, false, nil, nil, invalid("area.kind %q is not a kind of place the key's boundary datasets record; the kinds are %s", kind, strings.Join(c.Kinds(), ", "))
	}
	if sets, err = c.setsOf(srcs); err != nil {
		return nil, false, nil, nil, err
	}
	cands = match(sets, key)
	if len(cands) == 0 {
		if syn, ok := synonyms[key]; ok {
			cands = match(sets, syn)
		}
	}
	if len(cands) == 0 {
		cands = fuzzy(sets, key)
	}
	if sp := spelling(name); len(cands) > 1 && slices.ContainsFunc(cands, func(p *Place) bool { return p.spelt == sp }) {
		cands = slices.DeleteFunc(cands, func(p *Place) bool { return p.spelt != sp })
	}
	if parent != "" {
		cands = slices.DeleteFunc(cands, func(p *Place) bool {
			k, _ := Key(p.Parent)
			return k != parent
		})
	}
	return cands, false, srcs, sets, nil
}

// Check reports whether name (a place the question names) is a place of
// the catalogue (found), and whether any place it may mean shares a frame
// with pos (ascending positions: the frames asked about). An unknown kind
// word or missing place data is not found; errors are the store's.
func (c *Catalogue) Check(name string, pos []int32) (found, in bool, err error) {
	cands, national, _, _, err := c.lookup(name, "")
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return false, false, nil
		}
		return false, false, err
	}
	if national {
		return true, len(pos) > 0, nil
	}
	for _, p := range cands {
		if overlaps(p.Pos, pos) {
			return true, true, nil
		}
	}
	return len(cands) > 0, false, nil
}

// overlaps reports whether two ascending position lists share one.
func overlaps(a, b []int32) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// Find returns the place name names, of kind when kind is not "" (a kind
// word in the name, "Kano State", "Dala LGA", says it too). The country's
// name or "national" is the whole grid (national set, place nil).
// Errors: *Error CodeNotFound for a name no dataset records, CodeInvalid
// for an unknown kind or a name several places answer to (the message
// lists them with kind and parent); other errors are the store's.
func (c *Catalogue) Find(name, kind string) (p *Place, national bool, err error) {
	cands, national, srcs, sets, err := c.lookup(name, kind)
	if err != nil || national {
		return nil, national, err
	}
	switch len(cands) {
	case 0:
		key, said := Key(name)
		what := "place"
		if kind == "" {
			kind = said
		}
		if kind != "" {
			what = KindLabel(kind)
		}
		return nil, false, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no %s called %q in the boundary datasets this key reads (%s)%s", what, name, datasetList(srcs), suggest(sets, key))}
	case 1:
		return cands[0], false, nil
	}
	sort.Slice(cands, func(i, j int) bool {
		if a, b := levelIndex(cands[i].Kind), levelIndex(cands[j].Kind); a != b {
			return a < b
		}
		return cands[i].Parent < cands[j].Parent
	})
	var list []string
	for _, p := range cands[:min(len(cands), 10)] {
		list = append(list, p.Describe())
	}
	more := ""
	if len(cands) > 10 {
		more = fmt.Sprintf(" and %d more", len(cands)-10)
	}
	hint := fmt.Sprintf("give area.kind (state, lga, ward) or the name with its kind (\"%s State\", \"%s LGA\")", cands[0].Name, cands[0].Name)
	if p := cands[len(cands)-1]; p.Parent != "" {
		hint += fmt.Sprintf(", or with the place it lies in (\"%s, %s\")", p.Name, p.Parent)
	}
	return nil, false, invalid("%q names %d places: %s%s; %s", name, len(cands), strings.Join(list, "; "), more, hint)
}

func datasetList(srcs []source) string {
	var ids []string
	for _, s := range srcs {
		if !slices.Contains(ids, s.d.ID) {
			ids = append(ids, s.d.ID)
		}
	}
	return "dataset " + strings.Join(ids, ", ")
}

// match returns the places whose key is key.
func match(sets []*placeSet, key string) []*Place {
	var out []*Place
	for _, s := range sets {
		out = append(out, s.byKey[key]...)
	}
	return out
}

// fuzzy returns the places whose key is nearest key within a light
// misspelling (closeEnough), all of those at the nearest distance.
func fuzzy(sets []*placeSet, key string) []*Place {
	if len([]rune(key)) < 6 {
		return nil
	}
	best, bestD := []*Place(nil), 2
	for _, s := range sets {
		for k, ps := range s.byKey {
			if !closeEnough(key, k) {
				continue
			}
			d := plan.EditDistance(key, k, 1)
			switch {
			case d < bestD:
				best, bestD = slices.Clone(ps), d
			case d == bestD:
				best = append(best, ps...)
			}
		}
	}
	return best
}

// suggest names up to three places whose names begin as key does.
func suggest(sets []*placeSet, key string) string {
	if len(key) < 3 {
		return ""
	}
	var names []string
	for _, s := range sets {
		for _, p := range s.all {
			if strings.HasPrefix(p.key, key[:3]) && len(names) < 3 && !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, ", ") + "?"
}

// maxPhraseWords is the longest place name (with its kind words) Match
// tries.
const maxPhraseWords = 7

// Match reports how many of the words ws, from the first, name a place
// of the catalogue exactly (spelling rules and other names as Find, no
// misspellings), the longest such run: "kano state ..." is 2, "dala
// ..." 1, "federal capital territory" 3; 0 when none. The country's name
// matches too. Words are as a question's tokens are (any case).
func (c *Catalogue) Match(ws []string) (n int, err error) {
	for k := min(len(ws), maxPhraseWords); k >= 1; k-- {
		phrase := strings.Join(ws[:k], " ")
		key, kind := Key(phrase)
		if len([]rune(key)) < 3 {
			continue
		}
		if countryKeys[key] && kind == "" {
			return k, nil
		}
		srcs, ok := c.sources(kind)
		if !ok {
			continue
		}
		sets, err := c.setsOf(srcs)
		if err != nil {
			return 0, err
		}
		if len(match(sets, key)) > 0 {
			return k, nil
		}
		if syn, ok := synonyms[key]; ok && len(match(sets, syn)) > 0 {
			return k, nil
		}
	}
	return 0, nil
}

// PlaceFunc is Match for plan.Catalogue.Place: a store failure reads as
// no place (the question is then answered without it, and says so).
func (c *Catalogue) PlaceFunc() func(ws []string) (int, bool) {
	return func(ws []string) (int, bool) {
		n, err := c.Match(ws)
		return n, err == nil && n > 0
	}
}

// InText finds the first place a question names, the longest name at
// the earliest word: its text as written ("Dala LGA"); "" when none.
func (c *Catalogue) InText(question string) (string, error) {
	type tok struct {
		text       string
		start, end int
	}
	var toks []tok
	start := -1
	for i, r := range question + " " {
		word := r == '\'' || r == '-' || r == '’' || isWordRune(r)
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			toks = append(toks, tok{strings.Trim(question[start:i], "'-’"), start, i})
			start = -1
		}
	}
	ws := make([]string, len(toks))
	for i, t := range toks {
		ws[i] = t.text
	}
	for i := range ws {
		if stopWords[strings.ToLower(ws[i])] {
			continue
		}
		n, err := c.Match(ws[i:])
		if err != nil {
			return "", err
		}
		if n > 0 {
			return question[toks[i].start:toks[i+n-1].end], nil
		}
	}
	return "", nil
}

// stopWords never begin a place name in a question.
var stopWords = map[string]bool{"the": true, "in": true, "of": true, "a": true, "and": true, "for": true,
	"by": true, "each": true, "per": true, "how": true, "many": true, "what": true, "which": true, "state": true,
	"lga": true, "ward": true, "people": true, "live": true, "is": true, "are": true, "with": true, "within": true}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}

// Resolve resolves spec on the catalogue's grid; question is the
// question's text, read for an inQuestion area. Errors: *Error
// (CodeInvalid, CodeNotFound), or the store's.
func (c *Catalogue) Resolve(spec Spec, question string) (*Area, error) {
	switch {
	case spec.Place != "":
		return c.place(spec.Place, spec.Kind)
	case spec.InQuestion:
		name, err := c.InText(question)
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, invalid("the question names no place the key's boundary datasets know (kinds: %s); name one (\"How many people live in Dala?\"), or send area.place", strings.Join(c.Kinds(), ", "))
		}
		return c.place(name, spec.Kind)
	case spec.BBox != nil:
		b := spec.BBox
		r := grid.Ring{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}, {b[0], b[1]}}
		name := fmt.Sprintf("box %s, %s to %s, %s", fmtDeg(b[0]), fmtDeg(b[1]), fmtDeg(b[2]), fmtDeg(b[3]))
		return c.drawn(grid.MultiPolygon{{r}}, name, "bbox")
	case spec.geom != nil:
		return c.drawn(spec.geom, "drawn polygon", "polygon")
	case spec.Frames != nil:
		return c.selection(spec.Frames)
	case spec.Around != nil:
		name := fmt.Sprintf("ring of %s km around %s, %s", strconv.FormatFloat(spec.RadiusKm, 'f', -1, 64), fmtDeg(spec.Around[0]), fmtDeg(spec.Around[1]))
		return c.drawn(Ring(spec.Around[0], spec.Around[1], spec.RadiusKm), name, "ring")
	}
	return nil, invalid("area names no area; give one of place, bbox, geometry, around with radiusKm, or inQuestion")
}

func fmtDeg(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// place resolves a named place.
func (c *Catalogue) place(name, kind string) (*Area, error) {
	p, national, err := c.Find(name, kind)
	if err != nil {
		return nil, err
	}
	if national {
		pos, km2 := c.places.national(c.ix)
		return &Area{Name: "Nigeria", Kind: "country", FrameCount: len(pos), Km2: km2, Pos: pos}, nil
	}
	return &Area{Name: p.Name, Kind: p.Kind, Parent: p.Parent, Dataset: p.Dataset, FrameCount: len(p.Pos),
		Km2: c.places.km2(c.ix, p), Pos: p.Pos, Place: p}, nil
}

// MaxSelection is the most frames a selection holds (the spec's cap on
// frameIds).
const MaxSelection = 50

// selection resolves frames chosen by id: each counts whole.
func (c *Catalogue) selection(ids []uint64) (*Area, error) {
	if len(ids) == 0 || len(ids) > MaxSelection {
		return nil, invalid("a selection holds 1 to %d frames; it holds %d", MaxSelection, len(ids))
	}
	pos := make([]int32, 0, len(ids))
	for _, id := range ids {
		p, ok := c.ix.Pos(id)
		if !ok {
			return nil, &Error{Code: CodeNotFound, Message: "frame " + strconv.FormatUint(id, 10) + " is not a frame of the grid"}
		}
		pos = append(pos, int32(p))
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	ac := c.places.cacheFor(c.ix)
	ac.mu.Lock()
	km2 := ac.areaOf(pos)
	ac.mu.Unlock()
	name := strconv.Itoa(len(pos)) + " selected frames"
	if len(pos) == 1 {
		name = "selected frame"
	}
	return &Area{Name: name, Kind: "frames", FrameCount: len(pos), Km2: km2, Pos: pos}, nil
}

// drawn resolves a drawn area.
func (c *Catalogue) drawn(m grid.MultiPolygon, name, kind string) (*Area, error) {
	pos, w, km2, _ := weigh(c.ix, m)
	if len(pos) == 0 {
		return nil, &Error{Code: CodeNotFound, Message: "the " + kind + " covers no frame of the grid (it lies outside the country)"}
	}
	partial := false
	for _, f := range w {
		if f < 1-1e-12 {
			partial = true
			break
		}
	}
	if !partial {
		w = nil
	}
	return &Area{Name: name, Kind: kind, FrameCount: len(pos), Km2: km2, Partial: partial, Pos: pos, Weights: w}, nil
}

// areaCache keeps the whole grid's positions and places' areas.
type areaCache struct {
	mu   sync.Mutex
	ix   *index.Index
	all  []int32
	km2  float64
	rows map[int]float64 // lattice row -> cell area
	byP  map[*Place]float64
	// frames are the columns of places (nil key: the country), at most
	// maxCachedFrames frames in all.
	frames     map[*Place]*Frames
	framesHeld int
}

// national returns every position of ix and the grid's area, computed
// once per grid.
func (ps *Places) national(ix *index.Index) ([]int32, float64) {
	ac := ps.cacheFor(ix)
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if ac.all == nil {
		ac.all = make([]int32, ix.Len())
		for i := range ac.all {
			ac.all[i] = int32(i)
		}
		ac.km2 = ac.areaOf(ac.all)
	}
	return ac.all, ac.km2
}

// km2 returns the area of a place's frames, computed once.
func (ps *Places) km2(ix *index.Index, p *Place) float64 {
	ac := ps.cacheFor(ix)
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if v, ok := ac.byP[p]; ok {
		return v
	}
	if len(ac.byP) > 20000 {
		clear(ac.byP)
	}
	v := ac.areaOf(p.Pos)
	ac.byP[p] = v
	return v
}

func (ps *Places) cacheFor(ix *index.Index) *areaCache {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.area == nil || ps.area.ix != ix {
		ps.area = &areaCache{ix: ix, rows: map[int]float64{}, byP: map[*Place]float64{}, frames: map[*Place]*Frames{}}
	}
	return ps.area
}

// areaOf is the area of the frames at pos, km²; ac.mu held.
func (ac *areaCache) areaOf(pos []int32) float64 {
	total := 0.0
	for _, p := range pos {
		if ac.ix.Polygons() {
			total += access.ShapeAreaKm2(ac.ix.ShapeAt(int(p)))
			continue
		}
		row, _, _ := grid.RowCol(ac.ix.IDAt(int(p)))
		a, ok := ac.rows[row]
		if !ok {
			a = access.BoxAreaKm2(grid.CellBox(row, 0))
			ac.rows[row] = a
		}
		total += a
	}
	return total
}

// Level returns the level ("state", "lga", "ward") an attribute name
// records, or "" for another attribute.
func Level(attr string) string {
	if l := levelOf(attr); l >= 0 {
		return levels[l].kind
	}
	return ""
}

// LevelSource returns the dataset and attribute the catalogue reads
// places of level kind from (the newest dataset recording it), so that a
// breakdown by that level groups by the same boundaries places come from.
func (c *Catalogue) LevelSource(kind string) (dataset, attr string, ok bool) {
	if levelIndex(kind) < 0 {
		return "", "", false
	}
	srcs, ok := c.sources(kind)
	if !ok {
		return "", "", false
	}
	return srcs[0].d.ID, srcs[0].attr, true
}
