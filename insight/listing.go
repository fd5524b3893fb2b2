package insight

import (
	"math"
	"strconv"
	"strings"
)

// The nearest features listed: a plan whose aggregation is nearest with
// Distance.List > 0 ("where is the nearest clinic", "the 3 closest
// hospitals") lists the features nearest the frames, from what the
// caller's search found (Input.Nearest). Distances are the caller's:
// great circles from the centre of the nearest frame, the rule of every
// distance question.

// maxPropertyFacets bounds the properties of the nearest feature shown as
// facets.
const maxPropertyFacets = 8

// listFeatures answers a nearest plan that lists features. It reports
// false, having written nothing, when the caller made no search for the
// plan's features dataset (the plan is then answered as the nearest
// frame).
func (c *computer) listFeatures() bool {
	d := c.p.Distance
	nr := c.in.Nearest
	if d == nil || d.List <= 0 || nr == nil || nr.Dataset != d.Feature {
		return false
	}
	ds := c.in.dataset(d.Feature)
	name := d.Feature
	if ds != nil {
		name = datasetName(ds)
	}
	noun := singularPhrase(lowerLabel(name))
	nouns := pluralPhrase(noun)
	c.ans.Sources = append(c.ans.Sources, Source{LayerID: d.Feature, LayerName: name})
	feats := nr.Features
	if len(feats) > d.List {
		feats = feats[:d.List]
	}
	limit := FormatFigure(nr.LimitKm) + " km"
	c.fig(FormatFigure(nr.LimitKm), "km", SubjectSelection, "Searched", FigureCondition)
	among := c.subjectLower()
	searched := Facet{"Searched", "within " + limit + " of the centre of " + plural(c.n, "the frame", "the selected frames")}
	if len(feats) == 0 {
		c.ans.Headline = "No " + noun + " lies within " + limit + " of " + among + "."
		c.ans.Facets = append(c.ans.Facets, searched)
		c.nearDetails(nr)
		return true
	}
	c.used[d.Feature] = true
	f := feats[0]
	fname := f.Name
	switch {
	case nr.Hidden:
		fname = "a " + noun
		if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
			fname = "an " + noun
		}
	case fname == "":
		fname = "an unnamed " + noun
	}
	dist := FormatFigure(f.DistanceKm) + " km"
	var h string
	if len(feats) > 1 {
		last := feats[len(feats)-1]
		h = "The " + fmtInt(len(feats)) + " " + nouns + " nearest " + among + " lie " + FormatFigure(f.DistanceKm) +
			" to " + FormatFigure(last.DistanceKm) + " km away; the nearest is " + fname + ", "
	} else {
		h = "The nearest " + noun + " to " + among + " is " + fname + ", "
	}
	h += dist + " from the centre of frame " + f.From
	if f.Frame == f.From {
		h += ", inside it"
	} else {
		h += " in a straight line, in frame " + f.Frame
	}
	c.ans.Headline = h + "."
	v := f.DistanceKm
	c.setValue(v, "km")
	c.ans.Result.Frames = []string{f.From}
	if !nr.Hidden {
		c.ans.Facets = append(c.ans.Facets, Facet{"Nearest " + noun, fname})
	}
	c.facet("Distance (great circle)", dist, "km", SubjectFrame(f.From), FigureMeasure)
	c.fig(FormatFigure(v), "km", SubjectFrame(f.Frame), "Distance (great circle)", FigureMeasure)
	c.facet("From frame", f.From, "frame id", SubjectFrame(f.From), FigureID)
	c.facet("In frame", f.Frame, "frame id", SubjectFrame(f.Frame), FigureID)
	if !nr.Hidden {
		c.ans.Facets = append(c.ans.Facets, Facet{"Position (lon, lat)", coord(f.Lon) + ", " + coord(f.Lat)})
		c.fig(coord(f.Lon), "degrees", SubjectSelection, "Longitude", FigureCoordinate)
		c.fig(coord(f.Lat), "degrees", SubjectSelection, "Latitude", FigureCoordinate)
		shown := 0
		for _, p := range f.Properties {
			if shown == maxPropertyFacets {
				break
			}
			if strings.EqualFold(p.Key, "name") || p.Key == "" {
				continue
			}
			if v := propertyText(p.Value); v != "" {
				label := capitalize(strings.ReplaceAll(p.Key, "_", " "))
				c.ans.Facets = append(c.ans.Facets, Facet{label, v})
				if p.Value.IsNum {
					c.fig(v, lowerLabel(label), SubjectSelection, label, FigureMeasure)
				}
				shown++
			}
		}
	}
	c.ans.Facets = append(c.ans.Facets, searched)
	t := &Table{Columns: []string{"Rank", "Distance (km)", "In frame", "From frame"}}
	if !nr.Hidden {
		t.Columns = []string{"Rank", "Name", "Distance (km)", "In frame", "From frame"}
	}
	for k, nf := range feats {
		km := FormatFigure(nf.DistanceKm)
		row := []string{strconv.Itoa(k + 1), km, nf.Frame, nf.From}
		c.fig(strconv.Itoa(k+1), "", SubjectFrame(nf.Frame), "Rank", FigureRank)
		c.fig(km, "km", SubjectFrame(nf.From), "Distance (km)", FigureMeasure)
		c.fig(km, "km", SubjectFrame(nf.Frame), "Distance (km)", FigureMeasure)
		c.fig(nf.Frame, "frame id", SubjectFrame(nf.Frame), "In frame", FigureID)
		c.fig(nf.From, "frame id", SubjectFrame(nf.From), "From frame", FigureID)
		if !nr.Hidden {
			n := nf.Name
			if n == "" {
				n = "unnamed"
			}
			row = append([]string{row[0], n}, row[1:]...)
		}
		t.Rows = append(t.Rows, row)
	}
	c.ans.Table = t
	if len(feats) < d.List {
		c.details = append(c.details, "Only "+fmtInt(len(feats))+" "+plural(len(feats), noun, nouns)+" "+
			plural(len(feats), "lies", "lie")+" within "+limit+".")
	}
	c.nearDetails(nr)
	return true
}

// nearDetails says how distances are measured and what the search could
// not read or show.
func (c *computer) nearDetails(nr *Nearest) {
	c.details = append(c.details, "Distances are great-circle (haversine, mean Earth radius 6,371.0088 km) from the centre of the nearest selected frame to each feature's point.")
	if nr.Hidden {
		c.details = append(c.details, "Names, positions and properties of features are shown to keys with feature.read.")
	}
	if nr.Unread > 0 {
		c.details = append(c.details, fmtInt(nr.Unread)+" "+plural(nr.Unread, "feature", "features")+
			" on crowded frames could not be read; one of them might be nearer.")
	}
}

// coord shows a coordinate with at most 5 decimals (about a metre).
func coord(v float64) string {
	s := strconv.FormatFloat(v, 'f', 5, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// propertyText shows a property's value: a number as FormatFigure does,
// text trimmed to 100 characters.
func propertyText(v Value) string {
	if v.IsNum {
		if math.IsNaN(v.Num) || math.IsInf(v.Num, 0) {
			return ""
		}
		return FormatFigure(v.Num)
	}
	s := strings.TrimSpace(v.Str)
	if r := []rune(s); len(r) > 100 {
		s = string(r[:100]) + "…"
	}
	return s
}
