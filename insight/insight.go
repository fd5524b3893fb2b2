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

// Nearest is what a search around the selected frames found in one
// dataset of features: the features nearest the selection, nearest
// first, and how far the search went.
type Nearest struct {
	Dataset  string
	LimitKm  float64 // the farthest the search looks (100 km from a frame centre)
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
