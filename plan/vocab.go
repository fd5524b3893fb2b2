package plan

// functionWords carry no meaning a plan could miss: articles, pronouns,
// auxiliaries, question words, politeness, the generic verbs of asking
// and the generic nouns for the frames asked about. A word outside this
// list that no part of the plan reads is unread and meaning-bearing:
// every word the grammar does not know counts as meaning until it does.
var functionWords = set(
	"a", "an", "the", "of", "in", "on", "at", "for", "to", "from", "with", "into", "inside", "across",
	"among", "amongst", "and", "but", "as", "so", "too", "also", "just", "only", "then", "that",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has",
	"had", "having", "can", "could", "would", "should", "will", "shall", "may", "might", "must",
	"what", "whats", "which", "who", "whose", "how", "hows", "where", "wheres", "when", "why", "whether",
	"many", "much", "me", "my", "i", "im", "ive", "id", "you", "your", "we", "our", "us", "it", "its", "they",
	"them", "their", "there", "theres", "here", "heres", "this", "these", "thats", "those", "one", "ones",
	"please", "pls", "plz", "kindly", "thanks", "thank", "hi", "hello", "hey", "ok", "okay",
	"show", "give", "list", "tell", "get", "find", "display", "provide", "let", "lets", "know", "see",
	"want", "need", "like", "look", "looking", "check", "calculate", "compute", "work", "out", "up",
	"about", "around", "currently", "now", "today", "current", "frame", "area", "cell", "selection",
	"selected", "select", "chosen", "place", "location", "zone", "tile", "square", "site", "spot", "grid",
	"live", "lives", "living", "lived", "reside", "resides", "residing", "located", "found", "exist", "present",
	"each", "every", "all", "any", "some", "whole", "entire", "together", "value", "level", "figure",
	"stat", "statistic", "data", "dataset", "record", "recorded", "estimate", "estimated",
	"approximately", "roughly", "approximate", "overall", "altogether", "combined", "there", "these",
	"is", "by", "contain", "contained", "include", "included", "hold", "held", "got", "get", "give",
	"does", "doe", "exactly", "count", "counted", "number", "amount", "quantity", "size", "term", "terms",
	"if", "would", "like", "know", "please", "can", "could", "you", "tell", "me", "what", "which",
	"them", "say", "said", "answer", "question", "ask", "asked", "quick", "quickly", "brief", "briefly",
	"roughly", "really", "actually", "exactly", "currently", "also", "still", "even", "well", "very",
	"respectively", "one", "ones", "thing", "things", "stuff", "info", "information", "detail", "details",
	"part", "parts", "portion", "bit", "piece", "region", "my", "mine", "chosen", "given", "listed",
	"covered", "cover", "covers", "span", "spanning",
	"it", "im", "interested", "curious", "wondering", "wonder", "figure", "figures", "statistics",
	"stats", "numbers", "values", "levels", "measure", "measured", "measurement", "fall", "falls", "lie",
	"lies", "sit", "sits", "situated", "write", "produce", "prepare", "draft", "create", "make",
	"over", "throughout", "either", "away", "return", "returns", "output", "report", "short", "long", "detailed", "full", "quick", "simple", "little",
)

// Concepts: what a measure is about, independent of dataset ids (see
// Concept).
const (
	ConceptPopulation = "population"
	ConceptBuildings  = "buildings"
	ConceptHealth     = "health"
	ConceptRadiance   = "radiance"
	ConceptSettlement = "settlement"
	ConceptState      = "state"
	ConceptLGA        = "lga"
	ConceptWard       = "ward"

	cPopulation = ConceptPopulation
	cBuildings  = ConceptBuildings
	cHealth     = ConceptHealth
	cRadiance   = ConceptRadiance
	cSettlement = ConceptSettlement
	cState      = ConceptState
	cLGA        = ConceptLGA
	cWard       = ConceptWard
)

// ConceptOrder is the order measures are offered in (follow-up
// questions, a profile's facets).
var ConceptOrder = []string{cPopulation, cBuildings, cHealth, cRadiance, cSettlement, cState, cLGA, cWard}

// adminConcepts are the categories whose values name places.
var adminConcepts = set(cState, cLGA, cWard)

// conceptIdentity holds, per concept, the words (or phrases) that show a
// measure carries it when they appear in its name, label or aliases
// (checked in that order: the name decides first).
var conceptIdentity = []struct {
	concept string
	phrases []string
}{
	{cPopulation, []string{"population", "people", "resident", "inhabitant", "pop", "populace"}},
	{cBuildings, []string{"building", "house", "dwelling", "structure", "rooftop", "footprint"}},
	{cHealth, []string{"health", "clinic", "hospital", "medical", "healthcare"}},
	{cRadiance, []string{"radiance", "light", "nightlight", "brightness", "luminosity"}},
	{cSettlement, []string{"settlement", "urban", "rural", "urbanisation", "urbanization"}},
	{cState, []string{"state"}},
	{cLGA, []string{"lga", "local government"}},
	{cWard, []string{"ward"}},
}

// synonyms are everyday wording for a concept that names no measure: a
// measure read from one is a "synonym" match, and the plan partial.
var synonyms = map[string][]string{
	cPopulation: {"people", "person", "resident", "inhabitant", "folk", "folks", "populace", "population",
		"headcount", "head count", "human", "citizen", "dweller", "pop", "soul", "individual"},
	cBuildings: {"building", "house", "home", "structure", "rooftop", "roof", "dwelling", "housing",
		"compound", "homestead"},
	cHealth: {"health", "health facility", "health centre", "health center", "clinic", "hospital",
		"medical facility", "healthcare facility", "health care facility", "health care", "healthcare", "dispensary", "health post",
		"primary health centre", "primary health center", "maternity", "facility", "phc"},
	cRadiance: {"light", "brightness", "luminosity", "radiance", "night light", "nightlight",
		"night time light", "nighttime light", "light intensity", "glow", "illumination", "viirs", "lit"},
	cSettlement: {"settlement", "settlement type", "settlement class", "urbanisation", "urbanization",
		"urbanity", "degree of urbanisation", "degree of urbanization"},
	cState: {"state", "province"},
	cLGA:   {"lga", "local government", "local government area", "district", "county", "local authority"},
	cWard:  {"ward", "electoral ward"},
}

// stems map a word's beginning to a concept ("populated", "brightest",
// "urbanised"); a stem match is partial.
var stems = []struct{ prefix, concept string }{
	{"popul", cPopulation}, {"inhabit", cPopulation}, {"resident", cPopulation}, {"crowd", cPopulation},
	{"build", cBuildings}, {"hous", cBuildings}, {"dwell", cBuildings},
	{"hospit", cHealth}, {"clinic", cHealth}, {"medic", cHealth},
	{"radian", cRadiance}, {"lumin", cRadiance}, {"bright", cRadiance}, {"illumin", cRadiance}, {"dark", cRadiance},
	{"urbanis", cSettlement}, {"urbaniz", cSettlement},
}

// gisWords mark the GIS register; they describe how figures are
// computed, so they are read (role "register") rather than unread.
// GIS operations the engine cannot do (buffer, reproject, dissolve...)
// are not here: they stay unread.
var gisWords = set("raster", "vector", "polygon", "multipolygon", "zonal", "spatial", "spatially",
	"attribute", "aggregate", "aggregated", "aggregation", "choropleth", "layer", "pixel", "feature",
	"gis", "geospatial", "lattice", "geometry", "tessellation", "centroid", "aoi", "extent", "footprint",
	"statistic", "field", "tabulate")

// gisPhrases are GIS terms of two words, read as the register.
var gisPhrases = [][2]string{{"grid", "cell"}, {"feature", "class"}, {"attribute", "table"},
	{"zonal", "statistic"}, {"area", "of"}}

// Aggregation words (singular forms).
var (
	meanWords   = set("average", "mean", "avg", "averaged", "typical")
	medianWords = set("median", "middle")
	totalWords  = set("total", "sum", "overall", "altogether", "combined", "aggregate", "tally")
	shareWords  = set("share", "percentage", "percent", "proportion", "fraction", "pct", "%")
	ratioWords  = set("ratio")
	densWords   = set("density", "dense", "densely", "denser", "densest", "sparse", "sparsely", "sparser",
		"sparsest", "crowded")
	compareWords = set("compare", "compared", "comparing", "comparison", "versus", "vs", "against",
		"contrast", "juxtapose")
	profileWords = set("overview", "profile", "summary", "summarise", "summarize", "describe",
		"description", "snapshot", "rundown", "characterise", "characterize", "characteristic")
	// highWords and lowWords name an end of a ranking or an extreme.
	highWords = set("most", "highest", "largest", "biggest", "greatest", "max", "maximum", "brightest",
		"densest", "busiest", "heaviest", "populous", "more", "higher", "larger", "bigger", "greater", "top", "peak",
		"longest")
	lowWords = set("least", "lowest", "smallest", "fewest", "min", "minimum", "darkest", "emptiest",
		"sparsest", "dimmest", "fewer", "less", "lower", "smaller", "bottom", "sparse", "sparsely", "shortest")
	// rankWords ask for a ranking without naming an end.
	rankWords   = set("rank", "ranked", "ranking", "sort", "sorted", "order", "ordered", "descending", "ascending", "top", "bottom")
	reportWords = set("report", "brief", "memo", "briefing", "writeup")
)

// Distance words.
var (
	nearWords = set("nearest", "closest", "nearby")
	farWords  = set("farthest", "furthest", "remotest")
	kmWords   = set("km", "kms", "kilometre", "kilometer", "kilometres", "kilometers")
	// mWords are metres: a distance in them is read in km.
	mWords     = set("m", "metre", "meter", "metres", "meters")
	areaUnit   = map[string]string{"km2": "km2", "sqkm": "km2", "hectare": "ha", "ha": "ha"}
	fromWords  = set("from", "of", "to", "away")
	frameNouns = set("frame", "area", "cell", "place", "location", "tile", "square", "site", "spot", "zone",
		"polygon", "pixel", "grid", "one")
)

// comparison is a filter's wording and its operator.
type comparison struct {
	words []string
	op    Op
}

func comparisons(pairs ...string) []comparison {
	out := make([]comparison, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		ws := words(pairs[i])
		if len(ws) == 0 {
			ws = []string{pairs[i]} // a symbol: ">=", "+"
		}
		out = append(out, comparison{words: ws, op: Op(pairs[i+1])})
	}
	return out
}

// prefixOps come before their number ("at least 5,000"), longest first;
// postfixOps after it ("5,000 or more", "10k+").
var (
	prefixOps = comparisons(
		"no less than", ">=", "not less than", ">=", "no fewer than", ">=", "not fewer than", ">=",
		"no more than", "<=", "not more than", "<=", "no greater than", "<=", "not greater than", "<=",
		"a minimum of", ">=", "a maximum of", "<=", "in excess of", ">", "upwards of", ">",
		"more than", ">", "greater than", ">", "higher than", ">", "bigger than", ">", "larger than", ">",
		"less than", "<", "fewer than", "<", "lower than", "<", "smaller than", "<",
		"further than", ">", "farther than", ">", "closer than", "<", "nearer than", "<",
		"at least", ">=", "at most", "<=", "minimum of", ">=", "maximum of", "<=", "up to", "<=",
		"equal to", "=", "exactly", "=", "equals", "=", "equalling", "=", "other than", "!=", "not equal to", "!=",
		"over", ">", "above", ">", "exceeding", ">", "exceeds", ">", "exceed", ">", "beyond", ">", "outside", ">",
		"under", "<", "below", "<", "beneath", "<", "within", "<=", "inside", "<=",
		">=", ">=", "<=", "<=", ">", ">", "<", "<", "=", "=", "!=", "!=", "not", "!=",
	)
	postfixOps = comparisons(
		"or more", ">=", "or above", ">=", "and above", ">=", "or over", ">=", "and over", ">=",
		"or greater", ">=", "or higher", ">=", "plus", ">=", "and up", ">=", "+", ">=", "or so", "=",
		"or less", "<=", "or fewer", "<=", "or below", "<=", "and below", "<=", "or under", "<=",
		"and under", "<=", "or lower", "<=",
	)
)

// negWords negate what follows ("without a clinic", "no hospital", "not
// urban"); negHave negate a following "have" ("frames that do not have a
// clinic").
var (
	negWords = set("without", "no", "not", "non", "lacking", "lack", "lacks", "none", "zero", "never")
	negHave  = set("not", "dont", "doesnt", "didnt", "havent", "hasnt", "cannot", "cant", "never")
	haveWord = set("have", "has", "had", "having", "contain", "contains", "hold", "holds", "with", "record",
		"any", "a", "an", "the", "single", "one", "even", "got")
)

// perPerson are the words of "per capita", "per person", "per head": the
// catalogue's population measure as a ratio's denominator, inferred
// rather than named (Match "capita", a partial plan).
var perPerson = set("capita", "person", "head", "individual")

// inflections are words formed from a concept's own name, read as
// exactly as the name ("the most populated frame"; Match "inflection").
var inflections = map[string]string{"populated": cPopulation, "populous": cPopulation}

// liveWords read as the population after "how many" when no measure is
// named ("how many women live here").
var liveWords = set("live", "lives", "living", "reside", "resides", "residing", "dwell", "inhabit")

// commonWords ask for the category value most frames hold ("the most
// common settlement class").
var commonWords = set("common", "frequent", "prevalent", "usual", "dominant")

// statWords name statistics the engine does not compute: a question
// asking one is unsupported rather than answered with another figure.
var statWords = set("percentile", "quantile", "quartile", "decile", "deviation", "variance", "stddev", "stdev",
	"std", "skew", "skewness", "kurtosis", "correlation", "correlate", "correlated", "regression", "trend",
	"trends", "growth", "change", "forecast", "projection", "weighted")

// groupWords lead "by" into a breakdown: "group by", "broken down by".
var groupWords = set("group", "grouped", "split", "broken", "break", "down", "breakdown", "aggregated", "summed")

// gisNouns mark the GIS register without being read as it (they are
// frame or feature nouns).
var gisNouns = set("cell", "pixel", "polygon", "point", "feature", "vertex", "raster", "grid")
