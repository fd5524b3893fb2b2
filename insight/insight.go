package insight

// Attribute is a declared attribute of a dataset (as state.Attribute).
type Attribute struct {
	Name        string
	Label       string
	Unit        string
	Type        string // number | category | text
	Aggregation string // sum | mean | mode
	Year        int
	Aliases     []string
}

// Dataset is a dataset the asking key may read.
type Dataset struct {
	ID          string
	Name        string
	Description string // what the dataset holds, for hybrid retrieval (MeasureText)
	Attributes  []Attribute
	Frames      int // frames the dataset records something on, nationally ("In dataset")
	Features    int // features it holds in all ("In dataset" for feature datasets)
}

// Value is one stored attribute value: a number or a string.
type Value struct {
	Num   float64
	Str   string
	IsNum bool
}

// DatasetFrame is what one dataset records on one frame.
type DatasetFrame struct {
	Attrs        map[string]Value // by attribute name
	FeatureCount int
}

// Frame is one selected frame: Known is false for an id the grid does not
// hold; Data is keyed by dataset id and holds only datasets that record
// something there.
type Frame struct {
	ID    string
	Known bool
	Data  map[string]DatasetFrame
	// AreaKm2 is the frame's surface area in square kilometres, for
	// densities; 0 means unknown (a density then says it cannot be
	// computed).
	AreaKm2 float64
}

// Request is everything the engine needs: the question as asked, the
// options of the call, the readable datasets (ascending id) and the frames
// in the order asked (duplicates removed).
type Request struct {
	Question string
	Format   string // "answer" or "report"
	Register string // "", "plain" or "gis"
	Datasets []Dataset
	Frames   []Frame

	// AreaBasis says how Frame.AreaKm2 was measured ("WGS84 ellipsoid"),
	// for the label of a density's area facet; "" leaves it unsaid.
	AreaBasis string
	// Nearest is what a search around the frames found for a
	// frames_nearest question (see PlanOf and Nearest); nil when no search
	// was made.
	Nearest *Nearest
	// Embeddings holds vectors for hybrid retrieval (see EmbedTexts and
	// MeasureText); nil means lexical retrieval alone.
	Embeddings *Embeddings
}

// Embeddings are the vectors of hybrid retrieval, from one embedding
// model: Texts maps each text EmbedTexts named for the question to its
// vector, Measures maps "datasetID.attribute" to the vector of the
// attribute's MeasureText. Missing entries are allowed (that text or
// measure is then matched lexically only); vectors of different lengths
// never match.
type Embeddings struct {
	Texts    map[string][]float32
	Measures map[string][]float32
}

// Nearest is what a search around the selected frames found in one
// dataset of features: the features nearest the selection, nearest
// first, and how far the search went.
type Nearest struct {
	Dataset  string
	LimitKm  float64 // the farthest the search looks (50 km)
	Searched float64 // km: every feature within this distance of the selection was read
	Features []NearFeature
	// Hidden is true when the asking key may not see features (no
	// feature.read): names, positions and properties are then withheld.
	Hidden bool
	// Unread counts features the search could not read (a frame holding
	// more than the read cap); the answer says so.
	Unread int
}

// NearFeature is one feature a nearest search found.
type NearFeature struct {
	Frame      string  // the frame holding it
	From       string  // the selected frame nearest to it
	DistanceKm float64 // great-circle distance from that frame (0: inside it)
	Lon, Lat   float64 // the point measured from
	Name       string  // its name property, "" when it has none
	Properties []Property
}

// Property is one property of a feature, in the order the feature gives
// them.
type Property struct {
	Key   string
	Value Value
}

// Facet is one computed figure, formatted for display.
type Facet struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Table is computed figures in rows.
type Table struct {
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Source names a dataset (and attribute) a figure came from.
type Source struct {
	LayerID   string `json:"layerId"`
	LayerName string `json:"layerName"`
	Attribute string `json:"attribute,omitempty"`
	Label     string `json:"label,omitempty"`
}

// Insight is the computed answer: the spec's Insight without the fields the
// handler and the wording step add (engine, model, narrative, notice,
// charged, leftOut).
type Insight struct {
	Intent     string   `json:"intent"`
	Headline   string   `json:"headline"`
	Detail     string   `json:"detail,omitempty"`
	Facets     []Facet  `json:"facets,omitempty"`
	Table      *Table   `json:"table,omitempty"`
	Sources    []Source `json:"sources,omitempty"`
	FollowUps  []string `json:"followUps,omitempty"`
	Confidence string   `json:"confidence"`
	Register   string   `json:"register,omitempty"`
	Retrieval  string   `json:"retrieval,omitempty"`
	Format     string   `json:"format,omitempty"`
	FrameIDs   []string `json:"frameIds,omitempty"`

	// Used lists the datasets whose values went into a figure (for per-query
	// charges), ascending. Not part of the JSON answer.
	Used []string `json:"-"`
	// Figures are the numbers of the facets and the table (and the frame
	// ids), each with what it is: unit, subject, label and kind, for the
	// wording check. Not part of the JSON answer; the headline and detail
	// are sentences the check reads itself.
	Figures []Figure `json:"-"`
}

// Plan is what a question asks, decided before any data is read.
type Plan struct {
	Intent     string   // one of the Intent constants
	Measures   []string // "datasetID.attribute" of the measures matched, in question order
	Confidence string   // exact | partial | unknown
	Register   string   // plain | gis (inferred from the wording when not given)
	Order      string   // frames_rank: "highest" or "lowest"

	// Per is the area unit of a density (frames_density, or a ranking or
	// threshold of one): PerKm2 or PerHectare.
	Per string
	// Scale is set for a ratio (frames_ratio, or a ranking of one):
	// Measures[0] per Scale of Measures[1] (1, 1,000, 100,000 ...).
	Scale float64
	// Condition selects frames (frames_threshold, frames_share).
	Condition *Condition
	// Base is what a frames_share divides: "frames", or the
	// "datasetID.attribute" of a summed measure.
	Base string
	// Dataset and Count are the features dataset a frames_nearest
	// question searches and how many nearest features it asks for.
	Dataset string
	Count   int
}

// Condition selects frames by a measure: Op compares the measure (or its
// density or ratio, as Per and Scale say) with Value (and Value2 for
// OpBetween), or, for a category, with Category.
type Condition struct {
	Measure  string  // "datasetID.attribute"
	Per      string  // "" (the measure itself), PerKm2, PerHectare, or a ratio's denominator "datasetID.attribute"
	Scale    float64 // a ratio: per Scale of Per
	Op       string  // one of the Op constants
	Value    float64
	Value2   float64
	Category string // OpIs, OpIsNot: the value as asked, lower case
}

// PlanOf is Parse for a whole request: the category values its frames
// hold are known (so "Kano" can name a state) and its Embeddings, when
// given, join the matching. The handler uses it to see whether a
// frames_nearest search is wanted before answering.
//
// PlanOf is safe for concurrent use and keeps nothing of req.
func PlanOf(req Request) Plan { return requestMatcher(req).parse(req.Question).plan }

// Parse decides what q asks of datasets: the intent, the measures and how
// they were matched. It never fails; a question it cannot place is intent
// "unsupported".
//
// Parse is safe for concurrent use and neither keeps nor changes datasets.
func Parse(q string, datasets []Dataset) Plan { return newMatcher(datasets).parse(q).plan }

// Answer computes the answer to req. It never fails and never panics.
//
// A question Parse cannot place is answered with intent "unsupported",
// confidence "unknown", a headline saying what can be asked and follow-ups;
// when no frame is Known the answer has the question's intent, confidence
// "unknown" and no figures. Figures cover the Known frames only; the
// headline says how many ids were not found and the detail names them.
// Used lists every readable dataset whose values went into a figure, facet
// or table cell (a profile's table row counts when the dataset records
// something in the selection): the datasets a per-query licence charges.
// Answer reads req and keeps nothing of it; it is safe for concurrent use.
func Answer(req Request) Insight { return answer(req) }
