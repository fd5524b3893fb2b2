package narrate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// benchWording is a report of about 300 words with 30 figures, rounded,
// spelled and percentage, and place names; it passes against benchFigures.
func benchWording() string {
	var b strings.Builder
	b.WriteString("## Summary\n\n")
	b.WriteString("The 45 selected frames in Lagos and Ikeja hold an estimated 1,234,567 people (2020), " +
		"about 1.2 million in all, with 12,345 buildings (2023) and a mean nighttime radiance of 12.3 nW/cm²/sr. " +
		"Roughly two-thirds of the frames, 67%, are urban; the urban share of the area is 45.5 per cent.\n\n")
	b.WriteString("## Findings\n\n")
	for i := range 7 {
		fmt.Fprintf(&b, "- Frame %d holds %s people and about %s buildings, the %s highest count in the selection; "+
			"its radiance changed by -3.5 over the period and three health facilities serve it.\n",
			433102001+i, formatNumber(float64(20000+1000*i)), formatNumber(float64(1500+100*i)), []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"}[i])
	}
	b.WriteString("\n## Caveats\n\n- Figures cover the frames with a record; twelve thousand is a rounded count, " +
		"and values for Ikeja are estimates from the 2020 release of the population layer.\n")
	return b.String()
}

func benchFigures(knownPlaces []string) Figures {
	texts := []string{"The 45 selected frames have an estimated population of 1,234,567 (2020).",
		"Total buildings (2023)", "12,345 buildings", "Mean radiance", "12.345 nW/cm²/sr",
		"Most common settlement class", "urban (67%)", "Urban share", "45.5%", "Change", "-3.5",
		"Health facilities", "3 facilities"}
	for i := range 45 {
		texts = append(texts, formatNumber(float64(433102001+i)), formatNumber(float64(20000+1000*i)), formatNumber(float64(1500+100*i)))
	}
	return FiguresFrom(texts, []string{"Lagos", "Ikeja"}, knownPlaces)
}

// syntheticPlaces is a gazetteer the size of Nigeria's: 37 states, 774
// LGAs and some 8,800 wards, with made-up names.
func syntheticPlaces() []string {
	out := append([]string{}, known...)
	for i := range 9600 {
		out = append(out, fmt.Sprintf("Ward Ka%dro Gari", i))
	}
	return out
}

func TestBenchWordingPasses(t *testing.T) {
	w := benchWording()
	if n := len(strings.Fields(w)); n < 280 || n > 330 {
		t.Fatalf("bench wording has %d words, want about 300", n)
	}
	for _, f := range []Figures{benchFigures(nil), benchFigures(syntheticPlaces())} {
		if v := Verify(w, f, true); !v.OK {
			t.Fatalf("bench wording fails: %s", v.Reason)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	w := benchWording()
	for _, bc := range []struct {
		name  string
		known []string
	}{
		{"NoKnownPlaces", nil},
		{"KnownPlaces=9.6k", syntheticPlaces()},
	} {
		f := benchFigures(bc.known)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !Verify(w, f, true).OK {
					b.Fatal("wording failed")
				}
			}
		})
	}
}

func BenchmarkNumbers(b *testing.B) {
	w := benchWording()
	b.ReportAllocs()
	for b.Loop() {
		Numbers(w)
	}
}

// claimFigures are 200 typed figures of a 40-frame answer, as the handler
// builds them from insight's: per frame its population, buildings,
// density and area, and the selection's totals and counts.
func claimFigures() Figures {
	f := Figures{Places: []string{"Kano", "Kano Municipal"}, KnownPlaces: syntheticPlaces(), Frames: 40, Rows: 40}
	add := func(text, unit, subject, label, kind string) {
		g, ok := NewFigure(text, unit, subject, label, kind)
		if !ok {
			panic(text)
		}
		f.Add(g)
	}
	for i := range 40 {
		id := strconv.Itoa(433102001 + i)
		sub := "frame " + id
		add(id, "frame id", sub, "Frame", KindID)
		add(formatNumber(float64(20000+137*i)), "people", sub, "Estimated population", KindMeasure)
		add(formatNumber(float64(3000+41*i)), "buildings", sub, "Buildings", KindMeasure)
		add(formatNumber(float64(20000+137*i)/0.85), "people per km²", sub, "Density (per km²)", KindMeasure)
	}
	for i := range 36 {
		add(formatNumber(0.84+float64(i)/1000), "km²", "frame "+strconv.Itoa(433102001+i), "Area (km²)", KindMeasure)
	}
	add("906,840", "people", "", "Total estimated population (2020)", KindMeasure)
	add("151,980", "buildings", "", "Total buildings (2020)", KindMeasure)
	add("40", "frames", "", "Areas selected", KindCount)
	add("1", "states", "", "State", KindNames)
	add("1", "local government areas", "", "Local government area", KindNames)
	add("67%", "% of frames", "value urban", "Settlement class", KindMeasure)
	add("26,671.76", "people per km²", "", "Estimated population density (2020)", KindMeasure)
	add("34", "km²", "", "Area (WGS84 ellipsoid)", KindMeasure)
	f.AddSentences("The 40 selected frames, in Kano, have an estimated population of 906,840 (2020) and 151,980 buildings (2020).")
	return f
}

// claimReport is an honest report of about 2,000 characters over
// claimFigures, with claims of every sort: units, subjects, hedges,
// spelled numbers, ranges and places.
func claimReport() string {
	var b strings.Builder
	b.WriteString("## Overview\n\n- The 40 selected frames lie in Kano Municipal, Kano, one local government area.\n" +
		"- About 907,000 people live there (2020), in some 152,000 buildings; 67% of frames are urban.\n" +
		"- The density is 26,671.76 people per km² over 34 km².\n\n## Frames\n\n")
	for i := 0; b.Len() < 1900; i++ {
		fmt.Fprintf(&b, "- Frame %d: %s people and %s buildings, about %s people per km².\n",
			433102001+i, formatNumber(float64(20000+137*i)), formatNumber(float64(3000+41*i)),
			formatNumber(math.Round(float64(20000+137*i)/0.85/10)*10))
	}
	b.WriteString("\n## Note\n\n- Over 900,000 people in all.\n")
	return b.String()
}

func TestClaimReportPasses(t *testing.T) {
	w, f := claimReport(), claimFigures()
	if len(w) < 1900 || len(w) > 2200 || len(f.List) < 200 {
		t.Fatalf("report of %d characters against %d figures", len(w), len(f.List))
	}
	if v := Verify(w, f, true); !v.OK {
		t.Fatalf("the report fails: %s (%s)", v.Reason, v.Kind)
	}
	// And a dishonest line of each kind is caught in it.
	for _, bad := range []string{
		"- Frame 433102002 has 20,274 people.",            // another frame's value
		"- The selection spans 3 local government areas.", // names
		"- 20,137 km² of land in frame 433102002.",        // a count of people as an area
		"- Over 910,000 people in all.",                   // the hedge points the wrong way
		"- The 41st frame has the most buildings.",        // an ordinal beyond the frames
	} {
		if v := Verify(w+bad+"\n", f, true); v.OK {
			t.Errorf("%q was not caught", bad)
		}
	}
}

// BenchmarkVerifyClaims verifies a 2,000-character report against 200
// typed figures and a gazetteer the size of Nigeria's.
func BenchmarkVerifyClaims(b *testing.B) {
	w, f := claimReport(), claimFigures()
	b.ReportAllocs()
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		if !Verify(w, f, true).OK {
			b.Fatal("report failed")
		}
	}
}

// BenchmarkReadClaims reads the claims of the same report.
func BenchmarkReadClaims(b *testing.B) {
	w, f := claimReport(), claimFigures()
	cx := f.context()
	b.ReportAllocs()
	for b.Loop() {
		readClaims(w, cx)
	}
}
