package area

import (
	"fmt"
	"frameindex/internal/cache"
	"frameindex/state"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"frameindex/bolt"
	"frameindex/index"
)

// Scanner reads a dataset's frame records in ascending frame order;
// *bolt.Store implements it.
type Scanner interface {
	ScanRecords(id string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error
}

// Levels of the administrative hierarchy, largest first, and the
// attribute names that record each (the demo's admin dataset, and
// boundaries imported with --take state_name:state or as they are named
// in common boundary files).
var levels = []struct {
	kind  string
	attrs []string
	label string
}{
	{"state", []string{"state", "state_name", "statename", "adm1_en", "admin1name", "admin1"}, "State"},
	{"lga", []string{"lga", "lga_name", "lganame", "adm2_en", "admin2name", "admin2"}, "LGA"},
	{"ward", []string{"ward", "ward_name", "wardname", "adm3_en", "admin3name", "admin3"}, "Ward"},
}

// levelOf returns the level index of an attribute name, or -1.
func levelOf(attr string) int {
	a := strings.ToLower(attr)
	for i, l := range levels {
		if slices.Contains(l.attrs, a) {
			return i
		}
	}
	return -1
}

// levelIndex returns the level index of a kind ("lga"), or -1.
func levelIndex(kind string) int {
	for i, l := range levels {
		if l.kind == kind {
			return i
		}
	}
	return -1
}

// KindLabel is how a kind is shown: "LGA", "State", "Ward", or the
// attribute name of another kind.
func KindLabel(kind string) string {
	if i := levelIndex(kind); i >= 0 {
		return levels[i].label
	}
	return kind
}

// Place is one named unit of a boundary dataset: the frames that dataset
// assigns to it. A Place is shared by every request that finds it and must
// not be modified.
type Place struct {
	Name    string // as the dataset stores it
	Kind    string // "state", "lga", "ward", or the attribute name of another kind
	Attr    string // the attribute that records it
	Dataset string
	// Parent is the unit of the next level up that holds most of its
	// frames (an LGA's state, a ward's LGA), when the dataset records one.
	Parent     string
	ParentKind string
	Pos        []int32 // positions of its frames in the index (index.Pos), ascending
	key, spelt string  // see storedKey
}

// Describe names the place with its kind, parent and size: "Dala (LGA
// in Kano, 27 frames)".
func (p *Place) Describe() string {
	s := p.Name + " (" + KindLabel(p.Kind)
	if p.Parent != "" {
		s += " in " + p.Parent
	}
	return s + ", " + thousands(len(p.Pos)) + " frames)"
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// placeSet is the places of one attribute of one dataset version.
type placeSet struct {
	byKey map[string][]*Place
	all   []*Place
}

// Places builds and keeps the place sets of boundary datasets, one per
// dataset version, attribute and grid, built on first use by one scan of
// the dataset (concurrent callers wait for that one build) and kept for
// the most recently used few, so memory stays bounded: a set holds one
// int32 per frame of the grid. Safe for concurrent use.
type Places struct {
	scan    Scanner
	entries *cache.Cache[string, map[string]*placeSet] // attribute -> places
	fields  *Fields                                    // nearest-feature distances per frame

	mu   sync.Mutex
	area *areaCache // of the grid last asked about
}

// NewPlaces returns a place cache over s keeping at most maxSets dataset
// versions' places (maxSets <= 0: 8).
func NewPlaces(s Scanner, maxSets int) *Places {
	if maxSets <= 0 {
		maxSets = 8
	}
	return &Places{scan: s, entries: cache.New[string, map[string]*placeSet](int64(maxSets), nil), fields: NewFields(0)}
}

// Near returns near (the nearest-feature search of a features dataset
// version) answering through that version's distance field on ix (see
// Fields).
func (ps *Places) Near(ix *index.Index, dataset string, version int, near Nearness) Nearness {
	return ps.fields.Wrap(ix, dataset, version, near)
}

// sets returns the place sets of the attributes attrs of d over ix,
// building them on first use. A failed build is retried by the next call.
func (ps *Places) sets(ix *index.Index, d state.Dataset, attrs []string) (map[string]*placeSet, error) {
	attrs = slices.Clone(attrs)
	slices.Sort(attrs)
	key := fmt.Sprintf("%p|%s@%d|%s", ix, d.ID, d.Version, strings.Join(attrs, ","))
	return ps.entries.Get(key, func() (map[string]*placeSet, error) { return ps.build(ix, d, attrs) })
}

// build scans d once for the places of attrs: for each attribute, the
// frames recording each value, and the value of the attribute of the
// next level up (in the same dataset) most of them record.
func (ps *Places) build(ix *index.Index, d state.Dataset, attrs []string) (map[string]*placeSet, error) {
	// The parent attribute of each level attribute, when d records one.
	paths := slices.Clone(attrs)
	parentOf := make([]int, len(attrs))
	for i, a := range attrs {
		parentOf[i] = -1
		l := levelOf(a)
		if l <= 0 {
			continue
		}
		for _, at := range d.Attributes {
			if at.Type != state.TypeNumber && levelOf(at.Name) == l-1 {
				j := slices.Index(paths, at.Name)
				if j < 0 {
					paths = append(paths, at.Name)
					j = len(paths) - 1
				}
				parentOf[i] = j
				break
			}
		}
	}
	// Frames are grouped by value and parent: two LGAs of one name in
	// different states are two places.
	type acc struct {
		name, parent string
		pos          []int32
	}
	found := make([]map[[2]string]*acc, len(attrs))
	for i := range found {
		found[i] = map[[2]string]*acc{}
	}
	var key [2]string
	err := ps.scan.ScanRecords(d.ID, []bolt.IDRange{bolt.AllFrames}, func(frame uint64, _ int, rec []byte) bool {
		if len(rec) == 0 {
			return true
		}
		pos, ok := ix.Pos(frame)
		if !ok {
			return true
		}
		vals := gjson.GetManyBytes(rec, paths...)
		for i := range attrs {
			v := vals[i]
			if v.Type != gjson.String || v.Str == "" {
				continue
			}
			key[0], key[1] = v.Str, ""
			if j := parentOf[i]; j >= 0 && vals[j].Type == gjson.String {
				key[1] = vals[j].Str
			}
			a := found[i][key]
			if a == nil {
				a = &acc{name: strings.Clone(key[0]), parent: strings.Clone(key[1])}
				found[i][[2]string{a.name, a.parent}] = a
			}
			a.pos = append(a.pos, int32(pos))
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("reading the places of dataset %q: %w", d.ID, err)
	}
	out := make(map[string]*placeSet, len(attrs))
	for i, a := range attrs {
		kind := a
		if l := levelOf(a); l >= 0 {
			kind = levels[l].kind
		}
		parentKind := ""
		if j := parentOf[i]; j >= 0 {
			parentKind = levels[levelOf(paths[j])].kind
		}
		// A unit whose frames mostly lie in one parent and a few (under
		// 5 %) in another is one place there: boundary data that do not
		// nest exactly must not make a name ambiguous.
		byName := map[string][]*acc{}
		for _, x := range found[i] {
			byName[x.name] = append(byName[x.name], x)
		}
		set := &placeSet{byKey: map[string][]*Place{}}
		for name, groups := range byName {
			total := 0
			for _, g := range groups {
				total += len(g.pos)
			}
			sort.Slice(groups, func(x, y int) bool {
				if len(groups[x].pos) != len(groups[y].pos) {
					return len(groups[x].pos) > len(groups[y].pos)
				}
				return groups[x].parent < groups[y].parent
			})
			var kept []*acc
			for _, g := range groups {
				if len(kept) > 0 && len(g.pos)*20 < total {
					kept[0].pos = append(kept[0].pos, g.pos...)
					continue
				}
				kept = append(kept, g)
			}
			for _, g := range kept {
				p := &Place{Name: name, Kind: kind, Attr: a, Dataset: d.ID, Parent: g.parent, Pos: slices.Clip(g.pos)}
				p.key, p.spelt = storedKey(name, kind)
				if !slices.IsSorted(p.Pos) {
					slices.Sort(p.Pos)
				}
				if p.Parent != "" {
					p.ParentKind = parentKind
				}
				set.byKey[p.key] = append(set.byKey[p.key], p)
				set.all = append(set.all, p)
			}
		}
		sort.Slice(set.all, func(x, y int) bool {
			if set.all[x].Name != set.all[y].Name {
				return set.all[x].Name < set.all[y].Name
			}
			return set.all[x].Parent < set.all[y].Parent
		})
		out[a] = set
	}
	return out, nil
}
