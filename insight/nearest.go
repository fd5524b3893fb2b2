package insight

import (
	"strconv"
	"strings"
)

// featureNoun is what one feature of a dataset is called: "health
// facility" for "Health facilities".
func featureNoun(d *Dataset) string {
	return singularPhrase(lowerLabel(datasetName(d)))
}

// featureNouns is the plural: "health facilities".
func featureNouns(d *Dataset) string { return pluralPhrase(featureNoun(d)) }

// nearest answers frames_nearest from the search the handler made around
// the frames (Request.Nearest): the nearest feature, its great-circle
// distance from the nearest selected frame, its frame, name and
// properties.
func (a *answerer) nearest() {
	d := &a.m.ds[a.p.near]
	noun := featureNoun(d)
	nr := a.req.Nearest
	a.ins.Sources = append(a.ins.Sources, Source{LayerID: d.ID, LayerName: datasetName(d)})
	if nr == nil || nr.Dataset != d.ID {
		a.ins.Confidence = ConfidenceUnknown
		a.ins.Headline = "No search for the nearest " + noun + " was made, so nothing could be computed" + a.missingClause() + "."
		a.ins.Sources = nil
		return
	}
	want := max(a.p.plan.Count, 1)
	feats := nr.Features
	if len(feats) > want {
		feats = feats[:want]
	}
	limit := FormatNumber(nr.LimitKm) + " km"
	a.figure(FormatNumber(nr.LimitKm), "km", SubjectSelection, "Searched", FigureCondition)
	among := lowerFirst(a.subject())
	if len(feats) == 0 {
		a.ins.Headline = "No " + noun + " lies within " + limit + " of " + among + a.missingClause() + "."
		a.ins.Facets = append(a.ins.Facets, Facet{"Searched", "within " + limit + " of " + plural(len(a.known), "the frame", "the selected frames")})
		a.nearDetailsOld(nr)
		return
	}
	a.used[a.p.near] = true
	f := feats[0]
	name := f.Name
	switch {
	case nr.Hidden:
		name = "a " + noun
	case name == "":
		name = "an unnamed " + noun
	}
	dist := FormatNumber(f.DistanceKm) + " km"
	var h string
	switch {
	case len(feats) > 1:
		last := feats[len(feats)-1]
		h = "The " + fmtInt(len(feats)) + " " + featureNouns(d) + " nearest " + among + " lie " + FormatNumber(feats[0].DistanceKm) +
			" to " + FormatNumber(last.DistanceKm) + " km away; the nearest is " + name + ", "
	default:
		h = "The nearest " + noun + " to " + among + " is " + name + ", "
	}
	if f.DistanceKm == 0 {
		h += "in selected frame " + f.From
	} else {
		h += dist + " from frame " + f.From + " in a straight line, in frame " + f.Frame
	}
	a.ins.Headline = h + a.missingClause() + "."
	if !nr.Hidden {
		a.ins.Facets = append(a.ins.Facets, Facet{"Nearest " + noun, name})
	}
	a.ins.Facets = append(a.ins.Facets,
		Facet{"Distance (great circle)", dist},
		Facet{"From frame", f.From},
		Facet{"In frame", f.Frame})
	// The distance is between two frames: either may be its subject.
	a.measureFig(f.DistanceKm, "km", SubjectFrame(f.From), "Distance (great circle)")
	a.measureFig(f.DistanceKm, "km", SubjectFrame(f.Frame), "Distance (great circle)")
	a.figure(f.From, "frame id", SubjectFrame(f.From), "From frame", FigureID)
	a.figure(f.Frame, "frame id", SubjectFrame(f.Frame), "In frame", FigureID)
	if !nr.Hidden {
		a.ins.Facets = append(a.ins.Facets, Facet{"Position (lon, lat)", coord(f.Lon) + ", " + coord(f.Lat)})
		a.figure(coord(f.Lon), "degrees", SubjectSelection, "Longitude", FigureCoordinate)
		a.figure(coord(f.Lat), "degrees", SubjectSelection, "Latitude", FigureCoordinate)
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
				a.ins.Facets = append(a.ins.Facets, Facet{label, v})
				if p.Value.IsNum {
					a.figure(v, lowerLabel(label), SubjectSelection, label, FigureMeasure)
				}
				shown++
			}
		}
	}
	a.ins.Facets = append(a.ins.Facets, Facet{"Searched", "within " + limit + " of " + plural(len(a.known), "the frame", "the selected frames")})
	t := &Table{Columns: []string{"Rank", "Distance (km)", "In frame", "From frame"}}
	if !nr.Hidden {
		t.Columns = []string{"Rank", "Name", "Distance (km)", "In frame", "From frame"}
	}
	for k, nf := range feats {
		row := []string{strconv.Itoa(k + 1), FormatNumber(nf.DistanceKm), nf.Frame, nf.From}
		a.figure(strconv.Itoa(k+1), "", SubjectFrame(nf.Frame), "Rank", FigureRank)
		a.measureFig(nf.DistanceKm, "km", SubjectFrame(nf.From), "Distance (km)")
		a.measureFig(nf.DistanceKm, "km", SubjectFrame(nf.Frame), "Distance (km)")
		a.figure(nf.Frame, "frame id", SubjectFrame(nf.Frame), "In frame", FigureID)
		a.figure(nf.From, "frame id", SubjectFrame(nf.From), "From frame", FigureID)
		if !nr.Hidden {
			n := nf.Name
			if n == "" {
				n = "unnamed"
			}
			row = append([]string{row[0], n}, row[1:]...)
		}
		t.Rows = append(t.Rows, row)
	}
	a.ins.Table = t
	if len(feats) < want {
		a.details = append(a.details, "Only "+fmtInt(len(feats))+" "+plural(len(feats), noun, featureNouns(d))+" "+
			plural(len(feats), "lies", "lie")+" within "+limit+".")
	}
	a.nearDetailsOld(nr)
}

// nearDetails says how distances are measured and what the search could
// not read or show.
func (a *answerer) nearDetailsOld(nr *Nearest) {
	a.details = append(a.details, "Distances are great-circle distances on a sphere of mean Earth radius, from the nearest edge of the nearest selected frame (0 inside it).")
	if nr.Hidden {
		a.details = append(a.details, "Names, positions and properties of features are shown to keys with feature.read.")
	}
	if nr.Unread > 0 {
		a.details = append(a.details, fmtInt(nr.Unread)+" "+plural(nr.Unread, "feature", "features")+
			" on crowded frames could not be read; one of them might be nearer.")
	}
}
