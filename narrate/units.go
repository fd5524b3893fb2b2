package narrate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Canonical units: what a figure counts or measures, and what a claim is
// read to count. A unit of one measure over another is "X/Y" ("people/km2",
// "people/buildings"); a percentage of something is "%X" ("%frames",
// "%people"), "%" when of nothing named. A unit the lexicon does not know
// is kept as its words, lower-cased ("elevation index").
const (
	uPeople     = "people"
	uBuildings  = "buildings"
	uFacilities = "facilities"
	uFeatures   = "features"
	uFrames     = "frames"
	uStates     = "states"
	uLGAs       = "lgas"
	uWards      = "wards"
	uDatasets   = "datasets"
	uID         = "id"
	uRank       = "rank"
	uDegrees    = "degrees"
	uRadiance   = "nw"
	uYear       = "year"

	// Classes a claim may name without naming the unit itself.
	cArea      = "area"      // km2, ha, m2, mi2
	cLength    = "length"    // km, m, mi
	cDensity   = "density"   // anything per unit of area
	cRatio     = "ratio"     // anything per anything else
	cCountable = "countable" // frames, buildings, facilities, features
	cPolygons  = "polygons"  // frames, buildings, features
	cPoints    = "points"    // facilities, features
	cPlaces    = "places"    // frames, facilities, features and named areas
)

// lexicon maps the words of a unit, lower-cased, singular or plural, to
// its canonical unit; phrases of up to three words.
var lexicon = func() map[string]string {
	m := map[string]string{}
	add := func(unit string, phrases ...string) {
		for _, p := range phrases {
			m[p] = unit
		}
	}
	add(uPeople, "people", "person", "persons", "resident", "residents", "inhabitant", "inhabitants", "individual",
		"individuals", "soul", "souls", "folk", "folks", "citizen", "citizens", "dweller", "dwellers", "occupant",
		"occupants", "human", "humans", "population", "populace", "head count", "headcount", "people counted",
		"estimated population", "population count", "residents counted")
	add(uBuildings, "building", "buildings", "house", "houses", "home", "homes", "structure", "structures", "rooftop",
		"rooftops", "roof", "roofs", "dwelling", "dwellings", "footprint", "footprints", "building footprint",
		"building footprints", "compound", "compounds", "building count", "built structures", "built structure")
	add(uFacilities, "facility", "facilities", "health facility", "health facilities", "clinic", "clinics", "hospital",
		"hospitals", "health centre", "health centres", "health center", "health centers", "primary health centre",
		"primary health centres", "primary health center", "primary health centers", "health post", "health posts",
		"dispensary", "dispensaries", "medical facility", "medical facilities", "health site", "health sites",
		"maternity home", "maternity homes")
	add(uFeatures, "feature", "features", "point feature", "point features", "polygon feature", "polygon features",
		"object", "objects", "vector feature", "vector features")
	add(uFrames, "frame", "frames", "cell", "cells", "grid cell", "grid cells", "lattice cell", "lattice cells",
		"square", "squares", "grid square", "grid squares", "tile", "tiles", "pixel", "pixels", "area", "areas",
		"zone", "zones", "selected area", "selected areas", "raster cell", "raster cells", "spatial unit", "spatial units",
		"unit", "units")
	add(cPolygons, "polygon", "polygons")
	add(cPoints, "point", "points")
	add(cCountable, "record", "records", "item", "items")
	add(cPlaces, "place", "places", "location", "locations", "site", "sites")
	add(uStates, "state", "states")
	add(uLGAs, "local government area", "local government areas", "lga", "lgas", "local government",
		"local governments", "district", "districts", "lga area", "lga areas")
	add(uWards, "ward", "wards", "electoral ward", "electoral wards")
	add(uDatasets, "dataset", "datasets", "data set", "data sets", "layer", "layers")
	add(uID, "id", "ids", "frame id", "frame ids", "identifier", "identifiers")
	add(uDegrees, "degree", "degrees")
	add(uRadiance, "nanowatt", "nanowatts", "radiance unit", "radiance units")
	add("km2", "km2", "square kilometre", "square kilometres", "square kilometer", "square kilometers", "sq km")
	add("ha", "ha", "hectare", "hectares")
	add("km", "km", "kilometre", "kilometres", "kilometer", "kilometers")
	return m
}()

// beforeLexicon maps the noun of "a population of 12,345", "Area: 3.4",
// "a density of 500" to what the number then is.
var beforeLexicon = func() map[string]string {
	m := map[string]string{}
	for k, v := range lexicon {
		switch k {
		case "area", "areas", "unit", "units", "square", "squares":
			continue // "an area of 3.4" is an area, not frames
		}
		m[k] = v
	}
	for _, k := range []string{"area", "surface", "surface area", "extent", "footprint area", "land area", "total area"} {
		m[k] = cArea
	}
	for _, k := range []string{"distance", "length", "radius"} {
		m[k] = cLength
	}
	for _, k := range []string{"density", "population density", "building density", "densities"} {
		m[k] = cDensity
	}
	for _, k := range []string{"ratio", "rate"} {
		m[k] = cRatio
	}
	for _, k := range []string{"radiance", "brightness", "night-time light", "night light", "lights", "light radiance",
		"night-time light radiance", "night time light radiance", "luminosity"} {
		m[k] = uRadiance
	}
	m["population density"] = "people/" + cArea
	m["building density"] = "buildings/" + cArea
	return m
}()

// areaUnits are the canonical units of area.
var areaUnits = map[string]bool{"km2": true, "ha": true, "m2": true, "mi2": true}

// lengthUnits are the canonical units of length.
var lengthUnits = map[string]bool{"km": true, "m": true, "mi": true}

// classOf lists what a class may stand for.
var classOf = map[string]map[string]bool{
	cCountable: {uFrames: true, uBuildings: true, uFacilities: true, uFeatures: true},
	cPolygons:  {uFrames: true, uBuildings: true, uFeatures: true},
	cPoints:    {uFacilities: true, uFeatures: true},
	cPlaces:    {uFrames: true, uFacilities: true, uFeatures: true, uStates: true, uLGAs: true, uWards: true},
	uFeatures:  {uFrames: true, uBuildings: true, uFacilities: true},
}

// CanonicalUnit reads the unit of a figure as an answer words it ("people",
// "health facilities", "km²", "people per km²", "facilities per 100,000
// people", "% of estimated population", "local government areas") into
// the canonical unit the check compares: "people", "facilities", "km2",
// "people/km2", "facilities/people", "%people", "lgas". An unknown unit
// is returned as its words, lower-cased and single-spaced; "" stays "".
// Safe for concurrent use.
func CanonicalUnit(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(s, "%"); ok {
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, "of ")
		rest = strings.TrimPrefix(rest, "the ")
		rest = strings.TrimPrefix(rest, "total ")
		return "%" + CanonicalUnit(rest)
	}
	if x, y, ok := strings.Cut(s, "/"); ok && !strings.ContainsAny(s, " ") && !strings.HasPrefix(strings.ToLower(s), "nw/") {
		// A canonical unit already: "people/km2", "?/buildings".
		if x != "?" {
			x = CanonicalUnit(x)
		}
		return x + "/" + CanonicalUnit(y)
	}
	if i := strings.LastIndex(s, " per "); i >= 0 {
		x, y := CanonicalUnit(s[:i]), s[i+len(" per "):]
		// "per 100,000 people": the scale is a figure of its own.
		if j := strings.IndexByte(y, ' '); j > 0 && len(Numbers(y[:j])) == 1 && Numbers(y[:j])[0].End == j {
			y = y[j+1:]
		}
		return x + "/" + CanonicalUnit(y)
	}
	if u := UnitAfter(" "+s, 0); u != "" && len(strings.Fields(s)) <= 2 {
		return u
	}
	if strings.HasPrefix(strings.ToLower(s), "nw/") {
		return uRadiance
	}
	key := phraseKey(s)
	if u, ok := lexicon[key]; ok {
		return u
	}
	// The last words name the unit: "estimated population" -> people.
	ws := strings.Fields(key)
	for n := min(3, len(ws)-1); n >= 1; n-- {
		if u, ok := lexicon[strings.Join(ws[len(ws)-n:], " ")]; ok {
			return u
		}
	}
	return key
}

// phraseKey lower-cases s and joins its words with single spaces,
// dropping punctuation but hyphens inside words.
func phraseKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '/' || r == '²':
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			if r == '²' {
				r = '2'
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// unitsAgree reports whether a claim read as unit c may state a figure in
// unit g. An empty unit on either side agrees with anything: a number
// written without a unit is checked as a number only, and so is a figure
// whose unit is unknown.
func unitsAgree(c, g string) bool {
	if c == "" || g == "" || c == g {
		return true
	}
	cp, gp := strings.HasPrefix(c, "%"), strings.HasPrefix(g, "%")
	if cp || gp {
		if cp != gp {
			return false
		}
		return c == "%" || g == "%" || baseAgrees(c[1:], g[1:])
	}
	gx, gy, gRatio := strings.Cut(g, "/")
	if base, ok := strings.CutPrefix(c, "~"); ok { // "for every 5 people": either side of a ratio, or the base itself
		if !gRatio {
			return baseAgrees(base, g)
		}
		return baseAgrees(base, gx) || baseAgrees(base, gy)
	}
	switch c {
	case cDensity:
		return gRatio && areaUnits[gy]
	case cRatio:
		return gRatio && !areaUnits[gy]
	}
	cx, cy, cRatio := strings.Cut(c, "/")
	if cRatio != gRatio {
		return false
	}
	if !cRatio {
		return baseAgrees(c, g)
	}
	return (cx == "?" || baseAgrees(cx, gx)) && baseAgrees(cy, gy)
}

// baseAgrees compares units that are not ratios or percentages.
func baseAgrees(c, g string) bool {
	switch {
	case c == "" || g == "" || c == g || g == "?":
		return true
	case c == cArea:
		return areaUnits[g]
	case c == cLength:
		return lengthUnits[g]
	}
	return classOf[c][g]
}

// singularWord is a plural noun's singular, as far as the lexicon needs:
// "facilities" -> "facility", "houses" -> "house".
func singularWord(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// isPluralUnitWord reports whether the last word of a unit phrase is
// plural ("frames", "people"), for "one frame" read as "a frame".
func isSingularPhrase(p string) bool {
	i := strings.LastIndexByte(p, ' ')
	w := p[i+1:]
	if w == "people" || w == "folks" {
		return false
	}
	return singularWord(w) == w
}

// firstRuneUpper reports whether s starts with an upper-case letter.
func firstRuneUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
