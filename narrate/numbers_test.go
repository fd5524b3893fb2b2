package narrate

import (
	"math"
	"testing"
)

// num is a Number without its offsets, for table tests.
type num struct {
	text     string
	value    float64
	decimals int
	percent  bool
	approx   bool
}

func TestNumbers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []num
	}{
		{"empty", "", nil},
		{"no figures", "The frames lie in the north.", nil},
		{"plain", "12 frames", []num{{"12", 12, 0, false, false}}},
		{"separators", "1,234,567 people", []num{{"1,234,567", 1234567, 0, false, false}}},
		{"no separators", "1234567 people", []num{{"1234567", 1234567, 0, false, false}}},
		{"decimals", "a mean of 12.5 per frame", []num{{"12.5", 12.5, 1, false, false}}},
		{"decimals with zero", "12.50", []num{{"12.50", 12.5, 2, false, false}}},
		{"grouped decimals", "12,345.67", []num{{"12,345.67", 12345.67, 2, false, false}}},
		{"rounded thousands", "12,000 buildings", []num{{"12,000", 12000, -3, false, false}}},
		{"small round is exact", "300 buildings", []num{{"300", 300, 0, false, false}}},
		{"hedged small round", "about 300 buildings", []num{{"300", 300, -2, false, true}}},
		{"hedged", "around 12,000", []num{{"12,000", 12000, -3, false, true}}},
		{"two-word hedge", "more than 40", []num{{"40", 40, -1, false, true}}},
		{"tilde", "~5,000", []num{{"5,000", 5000, -3, false, true}}},
		{"not a hedge when glued", "sometimes 12", []num{{"12", 12, 0, false, false}}},
		{"nbsp groups", "1\u00a0234\u00a0567", []num{{"1\u00a0234\u00a0567", 1234567, 0, false, false}}},
		{"space is not a separator", "1 234", []num{{"1", 1, 0, false, false}, {"234", 234, 0, false, false}}},
		{"broken group", "1,23", []num{{"1", 1, 0, false, false}, {"23", 23, 0, false, false}}},
		{"list of numbers", "12, 345 and 6", []num{{"12", 12, 0, false, false}, {"345", 345, 0, false, false}, {"6", 6, 0, false, false}}},
		{"negative", "-3.5 change", []num{{"-3.5", -3.5, 1, false, false}}},
		{"unicode minus", "(\u22123.5)", []num{{"\u22123.5", -3.5, 1, false, false}}},
		{"range hyphen", "12-15 frames", []num{{"12", 12, 0, false, false}, {"15", 15, 0, false, false}}},
		{"range words", "between 1,000 and 2,000", []num{{"1,000", 1000, -3, false, false}, {"2,000", 2000, -3, false, false}}},
		{"percent", "45% urban", []num{{"45%", 45, 0, true, false}}},
		{"percent spaced", "45 % urban", []num{{"45 %", 45, 0, true, false}}},
		{"per cent", "45 per cent", []num{{"45 per cent", 45, 0, true, false}}},
		{"percent word", "45.5 percent", []num{{"45.5 percent", 45.5, 1, true, false}}},
		{"percentage points", "up 3 percentage points", []num{{"3 percentage points", 3, 0, true, false}}},
		{"hundred percent", "100%", []num{{"100%", 100, 0, true, false}}},
		{"hedged percent", "about 70%", []num{{"70%", 70, -1, true, true}}},
		{"k", "12k buildings", []num{{"12k", 12000, -3, false, false}}},
		{"K decimals", "12.5K", []num{{"12.5K", 12500, -2, false, false}}},
		{"m", "1.2m people", []num{{"1.2m", 1.2e6, -5, false, false}}},
		{"bn", "3.4bn", []num{{"3.4bn", 3.4e9, -8, false, false}}},
		{"spaced bn", "3.4 bn", []num{{"3.4 bn", 3.4e9, -8, false, false}}},
		{"million", "1.2 million people", []num{{"1.2 million", 1.2e6, -5, false, false}}},
		{"million two decimals", "1.20 million", []num{{"1.20 million", 1.2e6, -4, false, false}}},
		{"hundred thousand", "3 hundred thousand people", []num{{"3 hundred thousand", 300000, -5, false, false}}},
		{"spelled per cent", "forty-five per cent", []num{{"forty-five per cent", 45, 0, true, false}}},
		{"spelled percent sign", "about twenty %", []num{{"twenty %", 20, -1, true, true}}},
		{"thousand", "12 thousand", []num{{"12 thousand", 12000, -3, false, false}}},
		{"120k", "120k", []num{{"120k", 120000, -4, false, false}}},
		{"unit glued", "12km", []num{{"12", 12, 0, false, false}}},
		{"decade", "the 1990s", []num{{"1990", 1990, 0, false, false}}},
		{"year", "in 2020", []num{{"2020", 2020, 0, false, false}}},
		{"round year", "in 2000", []num{{"2000", 2000, 0, false, false}}},
		{"grouped year-like", "2,000 frames", []num{{"2,000", 2000, -3, false, false}}},
		{"ordinal digits", "the 3rd frame and the 21st", nil},
		{"ordinal grouped", "the 1,000th frame", nil},
		{"rank", "ranked #1", nil},
		{"identifier", "grid A1 and H3 cells", nil},
		{"version", "version 1.2.3 at 10.0.0.1", nil},
		{"sentence end", "It has 12.", []num{{"12", 12, 0, false, false}}},
		{"list marker", "1. 12 frames\n2) 15 frames", []num{{"12", 12, 0, false, false}, {"15", 15, 0, false, false}}},
		{"indented list marker", "  3. the rest", nil},
		{"heading number", "## 2. Findings\n### 2.1. Method", nil},
		{"heading year", "## Population in 2020", []num{{"2020", 2020, 0, false, false}}},
		{"heading count", "## 12 frames", []num{{"12", 12, 0, false, false}}},
		{"mid-line marker", "see 2. next", []num{{"2", 2, 0, false, false}}},
		{"list item figure", "- 39,710 people", []num{{"39,710", 39710, -1, false, false}}},
		{"bold", "**39,710**", []num{{"39,710", 39710, -1, false, false}}},
		{"frame id", "frame 433102007", []num{{"433102007", 433102007, 0, false, false}}},
		{"frame id ending in 0", "frame 433102010", []num{{"433102010", 433102010, 0, false, false}}},
		{"long round without separators", "40000 people", []num{{"40000", 40000, 0, false, false}}},
		{"hedged long round", "about 40000 people", []num{{"40000", 40000, -4, false, true}}},
		{"four digits round", "1200 people", []num{{"1200", 1200, -2, false, false}}},
		{"leading zero", "05", []num{{"05", 5, 0, false, false}}},
		{"zero", "0 frames", []num{{"0", 0, 0, false, false}}},
		{"small decimal", "0.0012", []num{{"0.0012", 0.0012, 4, false, false}}},

		{"spelled", "twelve frames", []num{{"twelve", 12, 0, false, false}}},
		{"spelled capital", "Twelve frames", []num{{"Twelve", 12, 0, false, false}}},
		{"spelled compound", "twenty-one frames", []num{{"twenty-one", 21, 0, false, false}}},
		{"spelled spaced", "twenty one", []num{{"twenty one", 21, 0, false, false}}},
		{"spelled round", "twenty frames", []num{{"twenty", 20, 0, false, false}}},
		{"spelled hedged", "about twenty", []num{{"twenty", 20, -1, false, true}}},
		{"spelled thousand", "twelve thousand people", []num{{"twelve thousand", 12000, -3, false, false}}},
		{"spelled and", "one hundred and five", []num{{"one hundred and five", 105, 0, false, false}}},
		{"spelled big", "two million three hundred thousand", []num{{"two million three hundred thousand", 2.3e6, -5, false, false}}},
		{"a hundred", "a hundred frames", []num{{"a hundred", 100, 0, false, false}}},
		{"a thousand", "A thousand frames", []num{{"A thousand", 1000, -3, false, false}}},
		{"a dozen", "a dozen frames", []num{{"a dozen", 12, 0, false, false}}},
		{"two dozen", "two dozen", []num{{"two dozen", 24, 0, false, false}}},
		{"zero word", "zero frames", []num{{"zero", 0, 0, false, false}}},
		{"two numbers", "one two", []num{{"one", 1, 0, false, false}, {"two", 2, 0, false, false}}},
		{"trailing and", "two hundred and the rest", []num{{"two hundred", 200, 0, false, false}}},
		{"thousand thousand", "one thousand thousand", []num{{"one thousand", 1000, -3, false, false}}},
		{"one count", "only one frame", []num{{"one", 1, 0, false, false}}},
		{"one of count", "one of 3 frames", []num{{"one", 1, 0, false, false}, {"3", 3, 0, false, false}}},
		{"one pronoun", "the one with most; each one; no one; one another; one of the largest", nil},
		{"one compound", "a one-off", nil},
		{"ordinal words", "the third frame, the twenty-first, the first", nil},
		{"fractions", "half of them, two-thirds, three quarters, a quarter", nil},
		{"vague plurals", "thousands of buildings, hundreds, dozens", nil},
		{"not words", "someone, often, tent, weight", nil},
		{"article alone", "a frame and an area", nil},
		{"mixed", "Kano has 1,234 frames, about 45% urban, and twelve thousand people in 2020.",
			[]num{{"1,234", 1234, 0, false, false}, {"45%", 45, 0, true, true}, {"twelve thousand", 12000, -3, false, false}, {"2020", 2020, 0, false, false}}},
		{"other scripts", "人口 ١٢٣ and 7", []num{{"7", 7, 0, false, false}}},
		{"invalid utf-8", "\xff12 \xfe", []num{{"12", 12, 0, false, false}}},
		{"huge", "1" + string(make([]byte, 0)) + "999999999999999999999", []num{{"1999999999999999999999", 1.999999999999999999999e21, 0, false, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Numbers(tt.in)
			if len(got) != len(tt.want) {
				t.Fatalf("Numbers(%q) = %+v, want %d numbers %+v", tt.in, got, len(tt.want), tt.want)
			}
			for i, n := range got {
				w := tt.want[i]
				if n.Text != w.text || n.Value != w.value || n.Decimals != w.decimals || n.Percent != w.percent || n.Approx != w.approx {
					t.Errorf("Numbers(%q)[%d] = %+v, want %+v", tt.in, i, n, w)
				}
				if tt.in[n.Start:n.End] != n.Text {
					t.Errorf("Numbers(%q)[%d]: offsets %d:%d hold %q, Text %q", tt.in, i, n.Start, n.End, tt.in[n.Start:n.End], n.Text)
				}
			}
		})
	}
}

func TestNumbersHugeDigits(t *testing.T) {
	s := "1"
	for range 400 {
		s += "0"
	}
	got := Numbers(s)
	if len(got) != 1 || !math.IsInf(got[0].Value, 1) {
		t.Fatalf("Numbers(1e400) = %+v, want one +Inf", got)
	}
}
