package insight

import (
	"frameindex/plan"
)

// Intents, confidences, orders, retrievals, area units, condition
// operators and share bases as the contract (§4) and the spec's Insight
// spell them.
const (
	IntentFrames      = "frames"
	IntentAttribute   = "frames_attribute"
	IntentRank        = "frames_rank"
	IntentCompare     = "frames_compare"
	IntentDensity     = "frames_density"
	IntentRatio       = "frames_ratio"
	IntentThreshold   = "frames_threshold"
	IntentShare       = "frames_share"
	IntentNearest     = "frames_nearest"
	IntentUnsupported = "unsupported"

	ConfidenceExact   = "exact"
	ConfidencePartial = "partial"
	ConfidenceUnknown = "unknown"

	RegisterPlain = "plain"
	RegisterGIS   = "gis"

	OrderHighest = "highest"
	OrderLowest  = "lowest"

	RetrievalNone    = "none"
	RetrievalLexical = "lexical"
	RetrievalHybrid  = "hybrid"

	PerKm2     = "km2" // square kilometres (the plain register's density)
	PerHectare = "ha"  // hectares (the GIS register's density)

	OpGT      = ">"
	OpGE      = ">="
	OpLT      = "<"
	OpLE      = "<="
	OpEq      = "="
	OpBetween = "between" // Value <= x <= Value2
	OpNone    = "none"    // no record, or 0
	OpSome    = "some"    // a record above 0
	OpIs      = "is"      // a category's value is Category
	OpIsNot   = "is not"

	BaseFrames = "frames"
)

// Intents lists every intent an answer may carry, in the order the
// contract documents them.
var Intents = []string{IntentFrames, IntentAttribute, IntentRank, IntentCompare, IntentDensity, IntentRatio,
	IntentThreshold, IntentShare, IntentNearest, IntentUnsupported}

// Concepts: what a measure is about (package plan names them).
const (
	cPopulation = plan.ConceptPopulation
	cBuildings  = plan.ConceptBuildings
	cHealth     = plan.ConceptHealth
	cRadiance   = plan.ConceptRadiance
	cSettlement = plan.ConceptSettlement
	cState      = plan.ConceptState
	cLGA        = plan.ConceptLGA
	cWard       = plan.ConceptWard
)

// singular folds an English plural onto its singular (plan.Singular).
func singular(w string) string { return plan.Singular(w) }
