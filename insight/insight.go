package insight

// Attribute is a declared attribute of a dataset (as bolt.Attribute).
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
	ID         string
	Name       string
	Attributes []Attribute
	Frames     int // frames the dataset records something on, nationally ("In dataset")
	Features   int // features it holds in all ("In dataset" for feature datasets)
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
}

// Plan is what a question asks, decided before any data is read.
type Plan struct {
	Intent     string   // frames | frames_attribute | frames_rank | frames_compare | unsupported
	Measures   []string // "datasetID.attribute" of the measures matched, in question order
	Confidence string   // exact | partial | unknown
	Register   string   // plain | gis (inferred from the wording when not given)
	Order      string   // frames_rank: "highest" or "lowest"
}

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
