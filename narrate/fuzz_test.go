package narrate

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// formatNumber writes v as insight.FormatNumber does (narrate imports
// nothing of ours): integers without decimals, others with at most two
// decimals (two significant digits below 1), thousands separators always,
// "n/a" for NaN and infinities.
func formatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	if v == math.Trunc(v) {
		if v == 0 {
			return "0"
		}
		return groupDigits(strconv.FormatFloat(v, 'f', 0, 64))
	}
	a := math.Abs(v)
	decimals := 2
	if a < 1 {
		decimals = min(1-int(math.Floor(math.Log10(a))), 12)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return groupDigits(s)
}

// groupDigits puts thousands separators into a decimal number.
func groupDigits(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i := range len(intPart) {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	b.WriteString(frac)
	return b.String()
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 12: "12", 1234567: "1,234,567", -1234.5: "-1,234.5", 12.345: "12.35",
		0.0012345: "0.0012", -0.5: "-0.5", 1e-13: "0", math.NaN(): "n/a", 100: "100",
	} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// checkNumbers asserts what every result of Numbers must satisfy.
func checkNumbers(t *testing.T, s string, ns []Number) {
	t.Helper()
	end := 0
	for _, n := range ns {
		if n.Start < end || n.End <= n.Start || n.End > len(s) || s[n.Start:n.End] != n.Text {
			t.Fatalf("Numbers(%q): bad offsets %+v (previous end %d)", s, n, end)
		}
		if math.IsNaN(n.Value) {
			t.Fatalf("Numbers(%q): NaN in %+v", s, n)
		}
		end = n.End
	}
}

// FuzzNumbers: Numbers never panics and gives well-formed offsets; a
// figure formatted as insight formats it is read as exactly its value, as
// a plain number or a percentage, alone or in a sentence, and Verify of
// the figure's own text passes.
func FuzzNumbers(f *testing.F) {
	for _, seed := range []struct {
		v      float64
		prefix string
	}{
		{0, ""},                     // zero
		{12345, "about "},           // a hedge before a grouped number
		{1234567.891, "- "},         // a list item
		{-3.5, "fell by "},          // a negative figure
		{0.0012345, "an index of "}, // small: two significant digits
		{2020, "## Population in "}, // a year-like value, grouped
		{433102010, "frame "},       // an id-sized integer
		{1e21, ""},                  // beyond int64
		{1e300, ""},                 // hundreds of digits
		{-1e-13, ""},                // rounds to zero
		{99.5, "1. "},               // after a list marker
		{7, "\xff\xfe"},             // after invalid UTF-8
		{21, "twenty-"},             // after a spelled number and a hyphen
		{5, "A"},                    // glued to a letter
	} {
		f.Add(seed.v, seed.prefix)
	}
	f.Fuzz(func(t *testing.T, v float64, prefix string) {
		checkNumbers(t, prefix, Numbers(prefix))
		text := formatNumber(v)
		if text == "n/a" {
			return
		}
		want, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64)
		if err != nil {
			t.Fatalf("formatted %v as %q: %v", v, text, err)
		}
		for _, pct := range []bool{false, true} {
			fig := text
			if pct {
				fig += "%"
			}
			ns := Numbers(fig)
			if len(ns) != 1 || ns[0].Text != fig || ns[0].Value != want || ns[0].Percent != pct {
				t.Fatalf("Numbers(%q) = %+v, want one figure %v (percent %v)", fig, ns, want, pct)
			}
			figs := FiguresFrom([]string{fig}, nil, nil)
			if v := Verify(fig, figs, false); !v.OK {
				t.Fatalf("Verify of the figure's own text %q: %s", fig, v.Reason)
			}
			sentence := "The 3 frames have a mean of " + fig + " per frame."
			if v := Verify(sentence, FiguresFrom([]string{"3", fig}, nil, nil), false); !v.OK {
				t.Fatalf("Verify(%q): %s", sentence, v.Reason)
			}
			// After any prefix, Numbers still gives well-formed offsets.
			s := prefix + fig
			checkNumbers(t, s, Numbers(s))
		}
	})
}

// FuzzVerify: Verify never panics; wording always passes against the
// figures read from itself, with every place it names both known and
// allowed; only empty wording fails then.
func FuzzVerify(f *testing.F) {
	for _, seed := range []string{
		"",
		"The 2 selected frames hold about 40,000 people (2020).",
		"## Summary\n- 4,591 buildings\n- Gwale and Dala",
		"1. one hundred and five\n2) twenty-first\n## 3. a dozen",
		"45 per cent, 12k, 1.2 million, 3.4 bn, −3.5, 1\u00a0234",
		"Kano Municipal, Ado-Ekiti, EKITI, kano",
		"\xff\xfe 人口 ١٢٣ 1e400",
		strings.Repeat("9", 500),
		"a an a hundred and and one of the one-off",
		"2.58 km² of 1.4 hectares, 3 kms, 5 sq km, 2 m², 1 mile 1m", // units
	} {
		f.Add(seed, false)
	}
	places := []string{"Kano", "Kano Municipal", "Ado-Ekiti", "Gwale", "É"}
	f.Fuzz(func(t *testing.T, wording string, report bool) {
		_ = Verify(wording, popFigures, report)
		_ = Verify(wording, Figures{KnownPlaces: places}, report)
		self := FiguresFrom([]string{wording}, places, places)
		v := Verify(wording, self, false)
		if empty := strings.TrimSpace(wording) == ""; v.OK == empty {
			t.Fatalf("Verify(%q) against its own figures = %+v", wording, v)
		}
		if v.OK != (v.Reason == "") {
			t.Fatalf("Verify(%q) = %+v: a failure needs a reason, a pass none", wording, v)
		}
	})
}

// FuzzReadClaims: the claim reader never panics; every claim is a number
// of the text at its offsets, in order, with a known hedge and role; every
// ordinal lies in the text; a claim's subject frames are ids the text
// names; and a wording always passes against the figures read from
// itself (every claim states the figure it is).
func FuzzReadClaims(f *testing.F) {
	for _, seed := range []string{
		"",
		"Frame 433102007 holds 25,741 people (frame 433102008 has 20,511).",
		"## Frame 433102007\n- 4,591 buildings\n- 5.34 people per building\n## Selection\n- 86,556 in all",
		"The selection spans four local government areas; the sixth frame has over 12,000 people.",
		"10,679 km² of built-up land, 3 of the 4 frames, 45% of the population, 0.46 clinics per 10,000 people.",
		"Lagos Island Primary Health Centre 6 serves 6 people; Kano Ward 46 and Kano Ward 38.",
		"between 1 and 2 million, 12k+, ~5, ≥ 3,000, > 300, at least 5,000 or more, 0.18 to 3.53 km",
		"1,740 over 6 polygons; the mean over 9 cells; Each building houses 5.34 people.",
		"#3 3rd twenty-first Frames 433102007-433102009, id 1 and 2 — (((",
		"\xff\xfe 人口 ١٢٣ 1e400 " + strings.Repeat("9", 400),
		"rural frames 8 of 12; peri-urban (67%); urban (100%).",
	} {
		f.Add(seed)
	}
	figs := FiguresFrom([]string{"Frame 433102007: 25,741 people (frame 433102007)", "urban (67%)"},
		[]string{"Kano", "Lagos Island", "Kano Ward 46"}, []string{"Kano", "Lagos Island", "Kano Ward 46", "Jigawa"})
	figs.Frames, figs.Rows = 4, 3
	figs.Values = []string{"rural", "peri-urban"}
	hedges := map[string]bool{HedgeNone: true, HedgeAbout: true, HedgeOver: true, HedgeAtLeast: true, HedgeUnder: true,
		HedgeAlmost: true, HedgeAtMost: true, HedgeExactly: true}
	roles := map[string]bool{"": true, RoleID: true, RoleYear: true, RoleScale: true}
	f.Fuzz(func(t *testing.T, s string) {
		claims, ords := ReadClaims(s, figs)
		end := 0
		for _, c := range claims {
			if c.Start < end || c.End <= c.Start || c.End > len(s) || s[c.Start:c.End] != c.Text {
				t.Fatalf("ReadClaims(%q): bad offsets %+v (previous end %d)", s, c, end)
			}
			end = c.End
			if !hedges[c.Hedge] || !roles[c.Role] || math.IsNaN(c.Value) {
				t.Fatalf("ReadClaims(%q): claim %+v", s, c)
			}
			for _, id := range c.Frames {
				if !strings.Contains(s, id) && !strings.Contains(strings.ReplaceAll(s, ",", ""), id) {
					t.Fatalf("ReadClaims(%q): claim %+v said of a frame the text does not name", s, c)
				}
			}
		}
		for _, o := range ords {
			if o.Start < 0 || o.End > len(s) || o.Start >= o.End || s[o.Start:o.End] != o.Text || o.Value < 1 {
				t.Fatalf("ReadClaims(%q): ordinal %+v", s, o)
			}
		}
		_ = Verify(s, figs, true)
		self := FiguresFrom([]string{s}, nil, nil)
		if v := Verify(s, self, false); strings.TrimSpace(s) != "" && !v.OK {
			t.Fatalf("Verify(%q) against its own figures: %s (%s)", s, v.Reason, v.Kind)
		}
	})
}
