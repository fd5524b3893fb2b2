package plan

// Agg is what a plan computes.
type Agg string

const (
	AggProfile      Agg = "profile"      // an overview of the frames
	AggTotal        Agg = "total"        // sum of a summed measure (weighted by frame fraction)
	AggMean         Agg = "mean"         // mean per frame
	AggMedian       Agg = "median"       // median per frame
	AggMin          Agg = "min"          // smallest per-frame value (and its frame)
	AggMax          Agg = "max"          // largest per-frame value (and its frame)
	AggCount        Agg = "count"        // frames that meet the filters
	AggShare        Agg = "share"        // share of frames (or of Measures[0]'s total) meeting the filters
	AggRatio        Agg = "ratio"        // total of Measures[0] per Scale of Measures[1]'s total
	AggDensity      Agg = "density"      // total of Measures[0] per km² (or ha)
	AggRank         Agg = "rank"         // the top or bottom K frames (or groups) by a measure
	AggCompare      Agg = "compare"      // two measures side by side
	AggNearest      Agg = "nearest"      // the frame nearest to any feature of Distance.Feature, or the nearest features
	AggFarthest     Agg = "farthest"     // the frame farthest from any feature of Distance.Feature
	AggCoverage     Agg = "coverage"     // Measures[0] (or frames) within / beyond Distance.Km of the nearest feature
	AggFeatureCount Agg = "featurecount" // features of a features dataset on the frames
	AggUnsupported  Agg = "unsupported"  // nothing computable
)

// Op compares a measure with a value.
type Op string

const (
	OpGT      Op = ">"
	OpGE      Op = ">="
	OpLT      Op = "<"
	OpLE      Op = "<="
	OpEq      Op = "="
	OpNe      Op = "!="
	OpBetween Op = "between" // Value <= x <= Value2
)

// Measure is one attribute of a readable dataset, and how it was matched.
type Measure struct {
	Dataset   string `json:"dataset"`
	Attribute string `json:"attribute"`
	// Match is how the words named it: "name", "label", "alias",
	// "value" or "inflection" read exactly (see Exact); "synonym",
	// "stem", "spelling", "dataset", "embedding" or "capita" (the
	// population inferred from "per capita") read it from other wording
	// (the answer is then partial).
	Match string `json:"match"`
	Words []int  `json:"words,omitempty"` // indexes into Plan.Words
}

// Exact reports whether the measure was named rather than inferred: by
// its name, label or an alias, by one of its category values ("urban"
// names settlement_class), by an inflection of the population's name
// ("populated"). The population read as the denominator of "per
// capita" or "per person" is inferred, not named (the contract, §4):
// such a plan is partial.
func (m Measure) Exact() bool {
	switch m.Match {
	case "name", "label", "alias", "value", "inflection":
		return true
	}
	return false
}

// Filter keeps the frames whose measure compares with a value, or whose
// category measure is (or is not) Text.
type Filter struct {
	Measure Measure `json:"measure"`
	Op      Op      `json:"op"`
	Value   float64 `json:"value,omitempty"`
	Value2  float64 `json:"value2,omitempty"`
	Text    string  `json:"text,omitempty"` // a category value, lower case
	// Not, when set, negates the comparison. Parse never sets it: it
	// writes every negation into Op and Value ("no clinic" is = 0, "not
	// urban" is != urban), so a parsed plan reads as it stands.
	Not bool `json:"not,omitempty"`
	// Per, when set ("km2" or "ha"), compares the measure's density on
	// each frame: "more than 500 people per km²".
	Per string `json:"per,omitempty"`
	// Of, when set, compares the ratio of the measure to Of on each frame
	// ("where people per facility exceed 10,000"), an unrecorded value
	// reading as 0 as in every filter: a frame with some of the measure
	// and none of Of has an unbounded ratio (more than any number), one
	// with none of either has no ratio and meets no comparison.
	Of    *Measure `json:"of,omitempty"`
	Words []int    `json:"words,omitempty"`
}

// Distance is a reach condition: frames whose centre lies within (or
// beyond, or in the band between Km and Km2) of the nearest feature of
// the features dataset Feature.
type Distance struct {
	Feature string  `json:"feature"`       // features dataset id
	Km      float64 `json:"km,omitempty"`  // 0 for nearest / farthest
	Km2     float64 `json:"km2,omitempty"` // the band's outer bound (Op "between")
	Op      string  `json:"op,omitempty"`  // "within", "beyond" or "between"
	// Match is how the words named the features dataset: "feature" (its
	// id, name or an alias), or a measure of it named as Measure.Match
	// says ("clinics": "alias"; "clinc": "spelling").
	Match string `json:"match,omitempty"`
	Words []int  `json:"words,omitempty"`
	// List is, for a nearest question about the features ("where is
	// the nearest clinic", "the 3 closest hospitals"), how many of the
	// features nearest the selection to list (1 to MaxList); 0 when the
	// question asks which frame is nearest.
	List int `json:"list,omitempty"`
}

// Holds reports whether a frame whose centre lies km from the nearest
// feature meets the condition: within is km <= Km, beyond km > Km,
// between Km < km <= Km2 (so that the bands 0-2, 2-5 and beyond 5 km
// split the frames without overlap). +Inf (no feature within the search)
// is beyond every distance.
func (d *Distance) Holds(km float64) bool {
	switch d.Op {
	case "beyond":
		return km > d.Km
	case "between":
		return km > d.Km && km <= d.Km2
	}
	return km <= d.Km
}

// Limit is the farthest distance Holds needs to know exactly: a search
// may stop there (anything farther is beyond it).
func (d *Distance) Limit() float64 {
	if d.Op == "between" {
		return d.Km2
	}
	return d.Km
}

// MaxList is the most features a nearest question lists.
const MaxList = 10

// Group splits the figures by the values of a category measure ("by
// ward", "for each LGA").
type Group struct {
	Measure Measure `json:"measure"`
	Words   []int   `json:"words,omitempty"`
}

// Order ranks frames or groups.
type Order struct {
	Desc  bool  `json:"desc"`
	K     int   `json:"k,omitempty"`
	Words []int `json:"words,omitempty"`
}

// Word is one word of the question and what read it.
type Word struct {
	Text  string `json:"text"`
	Start int    `json:"start"` // byte offset in the question
	// Role is what consumed the word: "measure", "agg", "filter",
	// "distance", "group", "order", "place", "format", "register",
	// "function" (a known word that carries no meaning here) or
	// "unread".
	Role string `json:"role"`
	// Meaning marks a word that bears meaning (a number, a unit, a
	// comparison, a place, a measure or aggregation word, "not",
	// "without", "per", "within", "farthest"...): left unread, it makes
	// the answer partial or unsupported, never exact.
	Meaning bool `json:"meaning,omitempty"`
}

// Plan is the typed reading of a question.
type Plan struct {
	Agg      Agg       `json:"agg"`
	Measures []Measure `json:"measures,omitempty"` // the primary first; ratio: numerator, denominator
	Filters  []Filter  `json:"filters,omitempty"`
	Join     string    `json:"join,omitempty"` // "and" (default) or "or"
	Group    *Group    `json:"group,omitempty"`
	Order    *Order    `json:"order,omitempty"`
	Distance *Distance `json:"distance,omitempty"`
	// Per is a density's area unit ("km2" or "ha"); Scale a ratio's
	// "per 10,000".
	Per   string  `json:"per,omitempty"`
	Scale float64 `json:"scale,omitempty"`
	// Places are place names the question mentions ("Dala", "Kano
	// State"), as written; the caller resolves them (package area) and
	// the engine says when one is not in the frames asked about.
	Places   []string `json:"places,omitempty"`
	Register string   `json:"register,omitempty"` // plain | gis
	Format   string   `json:"format,omitempty"`   // answer | report
	Words    []Word   `json:"words"`
	// Notes say what the parser read loosely or left out beyond the
	// unread words ("The year 2015 was not read: population_2020 is of
	// 2020."); any note makes the plan partial.
	Notes []string `json:"notes,omitempty"`
}

// Unread lists the meaning-bearing words no part of the plan read.
func (p *Plan) Unread() []string {
	var out []string
	for _, w := range p.Words {
		if w.Role == "unread" && w.Meaning {
			out = append(out, w.Text)
		}
	}
	return out
}
