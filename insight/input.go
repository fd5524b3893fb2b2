package insight

import (
	"frameindex/plan"
)

// The columnar engine: Compute answers a plan.Plan over frames given as
// columns. It reads nothing but its Input: no question text, no store.

// FrameSet is the frames a plan is computed over, as parallel columns: a
// frame is a position i in IDs. Lon and Lat are the frame's centre
// (degrees), AreaKm2 its area. Weight, when not nil, is the fraction of
// each frame that counts (0..1: the part of a frame inside a drawn shape
// or ring); nil means whole frames.
type FrameSet struct {
	IDs     []uint64
	Lon     []float64
	Lat     []float64
	AreaKm2 []float64
	Weight  []float64
}

// Len is the number of frames.
func (fs *FrameSet) Len() int { return len(fs.IDs) }

// weight is frame i's fraction (1 for whole frames).
func (fs *FrameSet) weight(i int32) float64 {
	if fs.Weight == nil {
		return 1
	}
	return fs.Weight[i]
}

// Column is one measure's values on the frames, aligned with
// Input.Frames: a numeric attribute in Num (NaN where the dataset records
// nothing), a category in Codes (an index into Dict, -1 where nothing is
// recorded). A Column whose Attr.Name is "" holds the dataset's feature
// count per frame in Num (0 where it holds none).
type Column struct {
	Dataset     string
	DatasetName string
	Attr        Attribute
	Num         []float64
	Codes       []int32
	Dict        []string
}

// IsCategory reports a category column.
func (c *Column) IsCategory() bool {
	return c.Codes != nil || c.Attr.Type == "category" || c.Attr.Type == "text"
}

// Nearness finds, for a point, the great-circle distance (km) to the
// nearest feature of one features dataset, searching no farther than
// limitKm: +Inf when none lies within it. reach.Index implements it.
type Nearness interface {
	NearestKm(lon, lat, limitKm float64) float64
}

// PlaceCheck is what the caller found of a place the question names
// (plan.Plan.Places): Found when it resolved the name to a place at all,
// InFrames when that place overlaps the frames asked about, Frames how
// many of them it covers (0: not counted). A named place that is not in
// the frames makes the answer partial and figure-less; one that covers
// only some of them is answered about its frames (Positions) when given,
// else partial with figures of all the frames.
//
// Positions, when not nil, are the positions (in Input.Frames) of the
// frames in the place: the figures are then of those frames alone ("how
// many people live in Dala?" over a selection that spans Dala and
// Fagge), and the detail says so.
type PlaceCheck struct {
	Name      string
	Found     bool
	InFrames  bool
	Frames    int
	Positions []int32
}

// Input is everything Compute reads.
type Input struct {
	Frames FrameSet
	// Columns hold the measures the plan names (filters and grouping
	// included), and for a profile every attribute of the profile's
	// facets. A measure without a column is not readable.
	Columns []Column
	// Datasets are the readable datasets, ascending id: sources' names and
	// a profile's table.
	Datasets []Dataset
	// Presence counts, per readable dataset id, the frames it records
	// something on and the features it holds on them (a profile's table).
	Presence map[string]Presence
	// Near finds nearest features, per features dataset id.
	Near map[string]Nearness
	// Nearest is what the caller's search around the frames found, for a
	// plan that lists the nearest features (plan.Distance.List); nil
	// when no search was made.
	Nearest *Nearest
	// Places are the caller's checks of plan.Plan.Places.
	Places []PlaceCheck
	// Subject names the frames in sentences ("the 49 selected frames",
	// "Dala LGA"); "" says "the N selected frames".
	Subject string
	// Missing are ids asked for that the grid does not hold.
	Missing []string
	// WeightNote says how weights were found, for the detail ("by the
	// share of each frame's area inside the polygon").
	WeightNote string
	Register   string // "", "plain" or "gis"
	Format     string // "answer" or "report"
	AreaBasis  string // how AreaKm2 was measured, for a density's detail
}

// Presence is what one dataset records on the frames.
type Presence struct {
	Frames   int
	Features int
}

// column finds the column of a plan measure.
func (in *Input) column(m plan.Measure) *Column {
	for i := range in.Columns {
		c := &in.Columns[i]
		if c.Dataset == m.Dataset && c.Attr.Name == m.Attribute {
			return c
		}
	}
	return nil
}

// dataset finds a readable dataset by id.
func (in *Input) dataset(id string) *Dataset {
	for i := range in.Datasets {
		if in.Datasets[i].ID == id {
			return &in.Datasets[i]
		}
	}
	return nil
}
