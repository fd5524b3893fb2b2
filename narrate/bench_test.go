package narrate

import (
	"fmt"
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
