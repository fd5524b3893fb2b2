package insight

import (
	"frameindex/plan"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokens bounds the words of a question the parser looks at. The handler
// caps questions at 1,000 code points (at most 500 words); the bound keeps
// Parse linear on any input it is handed directly.
const maxTokens = 400

// token is one word of a question: raw is lower-cased with apostrophes
// removed, sing its singular form (see singular).
type token struct {
	raw, sing string
}

// tokenize splits s into lower-case words of letters and digits. Hyphens,
// underscores, slashes and every other character separate words;
// apostrophes are dropped, so "what's" is one word, "whats". Numbers keep
// together: a comma between groups of three digits is dropped ("5,000"
// is "5000") and a point between digits is kept ("2.5").
func tokenize(s string) []token {
	var out []token
	var b strings.Builder
	digits, dot := true, false // b holds ASCII digits only (and at most one point)
	flush := func() {
		if b.Len() > 0 && len(out) < maxTokens {
			w := b.String()
			out = append(out, token{raw: w, sing: singular(w)})
		}
		b.Reset()
		digits, dot = true, false
	}
	asciiDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i, r := range s {
		switch {
		case r == '\'' || r == '’' || r == '‘':
			// dropped: "what's" -> "whats"
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
			digits = false
		case r == ',' && b.Len() > 0 && digits && !dot && asciiDigit(i+1) && asciiDigit(i+2) && asciiDigit(i+3) && !asciiDigit(i+4):
			// a thousands separator: "5,000"
		case r == '.' && b.Len() > 0 && digits && !dot && asciiDigit(i+1):
			b.WriteByte('.')
			dot = true
		default:
			flush()
			if len(out) >= maxTokens {
				return out
			}
		}
	}
	flush()
	return out
}

// words returns the singular forms of s's words: how terms are compared.
func words(s string) []string {
	ts := tokenize(s)
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.sing
	}
	return out
}

// singular folds an English plural onto its singular (plan.Singular).
func singular(w string) string { return plan.Singular(w) }

// set builds a lookup set of words.
func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// stopwords are the function words and generic nouns and verbs of a
// question: they never name a measure and never make a question
// unanswerable. Compared with a token's raw and singular forms.
var stopwords = set(
	"a", "an", "the", "of", "in", "on", "at", "for", "to", "from", "by", "with", "within", "inside",
	"into", "over", "under", "across", "between", "among", "amongst", "per", "each", "every", "all",
	"any", "some", "and", "or", "nor", "but", "as", "than", "then", "so", "too", "also", "just", "only",
	"is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has",
	"had", "having", "can", "could", "would", "should", "will", "shall", "may", "might", "must",
	"what", "whats", "which", "who", "whose", "how", "hows", "where", "wheres", "when", "why", "whether",
	"many", "much", "me", "my", "i", "im", "ive", "you", "your", "we", "our", "us", "it", "its", "they",
	"them", "their", "there", "theres", "here", "heres", "this", "these", "that", "thats", "those",
	"one", "ones", "please", "pls", "plz", "kindly", "thanks", "thank", "hi", "hello", "hey",
	"show", "give", "list", "tell", "get", "find", "display", "provide", "let", "lets", "know", "see",
	"want", "need", "like", "would", "look", "looking", "check", "calculate", "compute", "work",
	"out", "up", "down", "off", "not", "no", "yes", "if", "about", "around", "near", "nearby", "close",
	"total", "totals", "sum", "number", "numbers", "count", "counts", "counted", "amount", "quantity",
	"mean", "average", "avg", "median", "typical", "value", "values", "level", "levels", "figure",
	"figures", "stat", "stats", "statistic", "statistics", "data", "dataset", "datasets", "record",
	"records", "recorded", "estimate", "estimated", "estimates", "approximate", "approximately",
	"roughly", "exactly", "about", "altogether", "combined", "overall", "whole", "entire", "together",
	"frame", "frames", "area", "areas", "cell", "cells", "selection", "selected", "select", "chosen",
	"place", "places", "location", "locations", "region", "regions", "zone", "zones", "tile", "tiles",
	"square", "squares", "site", "sites", "spot", "spots", "part", "parts", "bit", "piece", "patch",
	"id", "ids", "live", "lives", "living", "lived", "located", "found", "exist", "exists", "present", "there",
	"now", "today", "currently", "current", "latest", "recent", "year", "years", "time",
	"size", "share", "percentage", "percent", "proportion", "fraction", "ratio", "rate", "distribution",
	"pattern", "patterns", "intensity", "type", "types", "kind", "kinds", "class", "classes",
	"category", "categories", "quick", "quickly", "brief", "briefly", "short", "simple", "full",
	"complete", "main", "key", "basic", "important", "interesting", "notable", "useful",
	"big", "small", "large", "high", "low", "more", "less", "fewer", "greater", "higher", "lower",
	"bigger", "smaller", "larger", "much", "lot", "lots", "plenty", "few", "several", "both", "either",
	"neither", "other", "another", "same", "different", "difference", "differ", "vs", "v",
	"each", "respectively", "separately", "individually", "table", "tabulate", "chart", "plot",
	"map", "mapped", "visualise", "visualize", "view", "report", "answer", "question", "ask",
	"explain", "say", "said", "tells", "show", "shows", "showing", "contain", "contains",
	"containing", "include", "includes", "including", "cover", "covers", "covered", "covering",
	"make", "makes", "made", "go", "goes", "going", "come", "comes", "seem", "seems", "look", "looks",
	"appear", "appears", "stand", "stands", "fall", "falls", "belong", "belongs", "lie", "lies",
	"situated", "based", "kept", "held", "hold", "holds", "got", "gotten", "getting",
	"per", "capita", "head", "heads", "person", "individual", "individuals",
	"well", "very", "really", "quite", "rather", "fairly", "pretty", "even", "still", "yet",
	"ok", "okay", "now", "again", "already", "ever", "never", "always", "often", "usually",
	"group", "grouped", "each", "by", "across", "km", "kilometre", "kilometer", "mile",
	"night", "nighttime", "day", "daytime", "anything", "something", "everything", "things", "thing",
	"stuff", "info", "information", "detail", "details", "detailed", "specific", "specifically",
	"degree", "service", "services", "available", "availability", "provision", "status",
	"situation", "condition", "conditions", "measure", "measures", "measurement", "indicator", "indicators",
)

// overviewWords ask for a profile of the frames.
var overviewWords = set(
	"overview", "profile", "profil", "summary", "summarise", "summarize", "summarised", "summarized",
	"summarising", "summarizing", "describe", "description", "about", "everything", "general",
	"breakdown", "snapshot", "characteristic", "characterise", "characterize", "info", "information",
	"detail", "report", "admin", "administrative", "context", "background", "rundown", "digest",
	"glance", "picture", "sketch", "portrait",
)

// rankHigh and rankLow ask which frames rank highest or lowest.
var (
	rankHigh = set("most", "highest", "largest", "biggest", "greatest", "top", "max", "maximum",
		"brightest", "densest", "busiest", "leading", "best", "rank", "ranking", "ranked", "sort",
		"sorted", "order", "ordered", "descending", "peak", "heaviest", "hottest", "populous",
		"longest", "tallest", "widest", "deepest", "strongest", "richest")
	rankLow = set("least", "lowest", "smallest", "fewest", "bottom", "min", "minimum", "darkest",
		"emptiest", "sparsest", "worst", "ascending", "dimmest", "quietest", "shortest", "narrowest",
		"weakest", "poorest")
	// rankNeutral are ranking words that name no end: "top 3 frames with
	// the fewest people" ranks lowest.
	rankNeutral = set("top", "rank", "ranking", "ranked", "sort", "sorted", "order", "ordered")
)

// compareWords ask for measures side by side.
var compareWords = set("compare", "compared", "comparing", "comparison", "comparisons", "versus",
	"vs", "against", "contrast", "contrasting", "side", "relative", "juxtapose", "alongside")

// gisWords mark the GIS register. gisNeutral are those that also never
// make a question unanswerable (they describe how figures are computed);
// the others (projection, buffer...) are content the engine cannot answer.
var (
	gisWords = set("raster", "rasters", "vector", "vectors", "polygon", "polygons", "multipolygon",
		"zonal", "spatial", "spatially", "attribute", "attributes", "aggregate", "aggregated",
		"aggregation", "aggregates", "crs", "epsg", "projection", "projected", "reproject", "centroid",
		"centroids", "choropleth", "buffer", "buffers", "dissolve", "overlay", "intersect",
		"intersection", "extent", "geometry", "geometries", "geojson", "shapefile", "wkt", "bbox",
		"layer", "layers", "pixel", "pixels", "topology", "georeferenced", "geocode", "raster",
		"resample", "tessellation", "hexbin", "isochrone", "feature", "features", "wgs84", "datum",
		"geoprocessing", "gis", "geospatial", "vertices", "vertex", "lattice", "join")
	gisNeutral = set("raster", "rasters", "vector", "vectors", "polygon", "polygons", "multipolygon",
		"zonal", "spatial", "spatially", "attribute", "attributes", "aggregate", "aggregated",
		"aggregation", "aggregates", "choropleth", "layer", "layers", "pixel", "pixels", "feature",
		"features", "gis", "geospatial", "lattice", "grid", "join", "geometry", "geometries",
		"tessellation")
	// gisPhrases are GIS terms of two words.
	gisPhrases = [][2]string{{"grid", "cell"}, {"feature", "class"}, {"bounding", "box"},
		{"coordinate", "system"}, {"attribute", "table"}, {"spatial", "join"}}
)

// numberWords are spelled-out counts for "top five".
var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "couple": 2, "pair": 2,
}

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

// conceptOrder is the order measures are offered in follow-up questions.
var conceptOrder = plan.ConceptOrder

// synonym is wording that stands for a concept without naming an
// attribute: a match makes the measure "partial".
type synonym struct {
	words   []string // singular forms
	concept string
}

// synonyms are the built-in table of everyday wording, phrases before
// words.
var synonyms = buildSynonyms(map[string][]string{
	cPopulation: {"people", "resident", "inhabitant", "folk", "folks", "populace", "population",
		"headcount", "head count", "human", "citizen", "dweller", "pop", "how many live"},
	cBuildings: {"building", "house", "home", "structure", "rooftop", "roof", "dwelling", "housing",
		"footprint", "compound", "building footprint", "built up", "homestead"},
	cHealth: {"health", "health facility", "health centre", "health center", "clinic", "hospital",
		"medical", "medical facility", "healthcare", "health care", "dispensary", "health post",
		"primary health centre", "primary health center", "maternity", "facility"},
	cRadiance: {"light", "brightness", "luminosity", "radiance", "night light", "nightlight",
		"night time light", "nighttime light", "light intensity", "glow", "lit", "illumination",
		"electrification", "viirs"},
	cSettlement: {"urban", "rural", "settlement", "settlement type", "settlement class", "urbanisation",
		"urbanization", "urbanity", "peri urban", "city", "town", "village", "countryside",
		"urban or rural", "degree of urbanisation", "degree of urbanization"},
	cState: {"state", "province"},
	cLGA:   {"lga", "local government", "local government area", "district", "county", "local authority"},
	cWard:  {"ward", "electoral ward"},
})

func buildSynonyms(m map[string][]string) []synonym {
	var out []synonym
	for _, c := range conceptOrder {
		for _, p := range m[c] {
			out = append(out, synonym{words: words(p), concept: c})
		}
	}
	return out
}

// stems map a word's beginning to a concept ("populated", "brightest",
// "urbanised"); a stem match is "partial".
var stems = []struct {
	prefix, concept string
}{
	{"popul", cPopulation}, {"inhabit", cPopulation}, {"resident", cPopulation}, {"crowd", cPopulation},
	{"build", cBuildings}, {"hous", cBuildings}, {"dwell", cBuildings}, {"roof", cBuildings},
	{"hospit", cHealth}, {"clinic", cHealth}, {"medic", cHealth}, {"health", cHealth},
	{"radian", cRadiance}, {"lumin", cRadiance}, {"bright", cRadiance}, {"illumin", cRadiance},
	{"light", cRadiance}, {"dark", cRadiance}, {"glow", cRadiance},
	{"urban", cSettlement}, {"rural", cSettlement}, {"settl", cSettlement},
}

// intentVocabulary are intent words a misspelling may be read as.
var intentVocabulary = []string{"overview", "summary", "summarise", "summarize", "profile",
	"describe", "compare", "comparison", "versus", "highest", "lowest", "largest", "smallest",
	"fewest", "biggest", "maximum", "minimum", "ranking", "density", "densely", "nearest", "closest",
	"distance", "percentage", "proportion", "between", "without", "hectare", "hectares", "exceeding",
	"kilometre", "kilometer", "least", "above", "below", "under", "fewer", "exceed", "greater"}

// isNumberWord reports a count, from digits or words, in 1..50.
func numberValue(t token) (int, bool) {
	if n, ok := numberWords[t.raw]; ok {
		return n, true
	}
	if len(t.raw) == 0 || len(t.raw) > 2 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t.raw); i++ {
		c := t.raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > 50 {
		return 0, false
	}
	return n, true
}

// isDigits reports a word of ASCII digits only (years, ids, counts).
func isDigits(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// isASCIILetters reports a word of ASCII letters only: misspellings are
// looked for among those.
func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// typoBudget is plan.TypoBudget.
func typoBudget(n int) int { return plan.TypoBudget(n) }

// editDistance is plan.EditDistance.
func editDistance(a, b string, max int) int { return plan.EditDistance(a, b, max) }

// runeCount is the number of code points of s.
func runeCount(s string) int { return utf8.RuneCountInString(s) }
