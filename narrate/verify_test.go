package narrate

import (
	"strings"
	"testing"
)

// known are the place names the service knows in these tests.
var known = []string{"Kano", "Kano Municipal", "Gwale", "Dala", "Kaduna", "Lagos",
	"Lagos Island", "Ikeja", "Epe", "Ado-Ekiti", "Ekiti", "Jigawa", "Central"}

// Figure sets: the texts of three computed answers, as insight formats them.
var (
	// A population answer (insight's ExampleAnswer).
	popFigures = FiguresFrom([]string{
		"The 2 selected frames have an estimated population of 39,710 (2020); 1 of the 3 ids was not found.",
		`Read "folks" as Estimated population. This id was not found: "1".`,
		"Total estimated population (2020)", "39,710 people",
		"Highest", "21,500 people (frame 433102007)",
		"Lowest", "18,210 people (frame 433102008)",
		"Frames with a record", "2 of 2",
	}, []string{"Kano", "Kano Municipal"}, known)

	// A profile with buildings, settlement class, lights, percentages and a
	// negative change.
	bldFigures = FiguresFrom([]string{
		"Total buildings (2023)", "12,345 buildings",
		"Most common settlement class", "urban (67%)",
		"Mean nighttime lights", "12.345 nW/cm²/sr",
		"Estimated population", "1,234,567 people",
		"Frames", "45",
		"Health facilities", "3 facilities",
		"Urban share", "45.5%",
		"Change in lights", "-3.5",
		"Mean elevation index", "0.75",
	}, []string{"Lagos", "Ikeja"}, known)

	// A ranking with a table, for reports.
	rankFigures = FiguresFrom([]string{
		"The frame with the most buildings is 433102007 with 4,591 buildings; 3 frames ranked.",
		"Frame", "Buildings", "Population (2020)",
		"433102007", "4,591", "21,500",
		"433102008", "3,210", "18,210",
		"433102009", "1,002", "9,870",
	}, []string{"Gwale", "Dala"}, known)

	// The population answer with no known places: no place check.
	popNoPlaces = FiguresFrom([]string{"39,710 people", "2 frames"}, nil, nil)
)

func TestFiguresFrom(t *testing.T) {
	wantNums := []float64{2, 39710, 2020, 1, 3, 21500, 433102007, 18210, 433102008}
	if !equalFloats(popFigures.Numbers, wantNums) || len(popFigures.Percents) != 0 {
		t.Errorf("pop figures = %v %v, want %v []", popFigures.Numbers, popFigures.Percents, wantNums)
	}
	wantNums = []float64{2023, 12345, 12.345, 1234567, 45, 3, -3.5, 0.75}
	if !equalFloats(bldFigures.Numbers, wantNums) || !equalFloats(bldFigures.Percents, []float64{67, 45.5}) {
		t.Errorf("bld figures = %v %v, want %v [67 45.5]", bldFigures.Numbers, bldFigures.Percents, wantNums)
	}
	if len(bldFigures.Places) != 2 || len(bldFigures.KnownPlaces) != len(known) {
		t.Errorf("bld places = %v, known %d", bldFigures.Places, len(bldFigures.KnownPlaces))
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// corpus is the verifier corpus: wordings over the figure sets above with
// the expected verdict. For a failure, reason is a part of the expected
// Reason (which number or place failed).
var corpus = []struct {
	name    string
	f       *Figures
	wording string
	report  bool
	ok      bool
	reason  string
}{
	// Population: exact figures.
	{"pop exact", &popFigures, "The 2 selected frames hold an estimated 39,710 people (2020).", false, true, ""},
	{"pop spelled count", &popFigures, "The two selected frames hold 39,710 people.", false, true, ""},
	{"pop year in prose", &popFigures, "A population of 39,710 in 2020 across two frames.", false, true, ""},
	{"pop frame ids", &popFigures, "Frame 433102007 holds 21,500 people; frame 433102008 holds 18,210.", false, true, ""},
	{"pop one of the ids", &popFigures, "One of the 3 ids was not found.", false, true, ""},
	{"pop 1 of 3", &popFigures, "1 of 3 ids was not found.", false, true, ""},
	{"pop range from to", &popFigures, "Population ranges from 18,210 to 21,500 people per frame.", false, true, ""},
	{"pop 2 of 2", &popFigures, "Both frames (2 of 2) have a record.", false, true, ""},
	{"pop spelled exact", &popFigures, "The busier frame holds twenty-one thousand five hundred people.", false, true, ""},
	{"pop scaled exact", &popFigures, "The busier frame holds 21.5k people.", false, true, ""},
	{"pop no separator", &popFigures, "39710 people live here.", false, true, ""},
	// Population: rounded.
	{"pop about 40,000", &popFigures, "About 40,000 people live in the 2 frames.", false, true, ""},
	{"pop roughly 39,700", &popFigures, "Roughly 39,700 people live there.", false, true, ""},
	{"pop forty thousand", &popFigures, "Nearly forty thousand people live there.", false, true, ""},
	{"pop 39.7 thousand", &popFigures, "Some 39.7 thousand people live there.", false, true, ""},
	{"pop 40k", &popFigures, "About 40k people live there.", false, true, ""},
	{"pop 0.04 million", &popFigures, "About 0.04 million people live there.", false, true, ""},
	{"pop range rounded half up", &popFigures, "Between 18,000 and 22,000 people per frame.", false, true, ""},
	{"pop about 20,000 each", &popFigures, "About 20,000 people in each frame.", false, true, ""},
	{"pop 39.71 thousand", &popFigures, "39.71 thousand people.", false, true, ""},
	// Population: ordinals and fractions are not figures.
	{"pop ordinal digits", &popFigures, "Frame 433102007 ranks 1st with 21,500 people.", false, true, ""},
	{"pop ordinal word", &popFigures, "The third id was not found.", false, true, ""},
	{"pop fraction", &popFigures, "Roughly half live in the first frame.", false, true, ""},
	{"pop pronoun one", &popFigures, "The one with more people is 433102007.", false, true, ""},
	// Population: places.
	{"pop place inside allowed", &popFigures, "Kano Municipal holds 39,710 people.", false, true, ""},
	{"pop place allowed", &popFigures, "In Kano, the 2 frames hold 39,710 people.", false, true, ""},
	{"pop place possessive", &popFigures, "Kano's 2 frames hold 39,710 people.", false, true, ""},
	{"pop lowercase known word", &popFigures, "The central frames hold 39,710 people.", false, true, ""},
	{"pop no known places", &popNoPlaces, "Kaduna's 2 frames hold 39,710 people.", false, true, ""},
	// Population: failures.
	{"pop about 41,000", &popFigures, "About 41,000 people live there.", false, false, `"41,000"`},
	{"pop transposed", &popFigures, "The frames hold 39,170 people.", false, false, `"39,170"`},
	{"pop off by nine", &popFigures, "The frames hold 39,701 people.", false, false, `"39,701"`},
	{"pop truncated", &popFigures, "About 39,000 people live there.", false, false, `"39,000"`},
	{"pop 39.8 thousand", &popFigures, "39.8 thousand people.", false, false, `"39.8 thousand"`},
	{"pop decimal shift", &popFigures, "The frames hold 3,971 people.", false, false, `"3,971"`},
	{"pop invented average", &popFigures, "An average of 19,855 people per frame.", false, false, `"19,855"`},
	{"pop invented difference", &popFigures, "A difference of 3,290 people.", false, false, `"3,290"`},
	{"pop invented total", &popFigures, "A total of 41,710 people.", false, false, `"41,710"`},
	{"pop invented count", &popFigures, "The 4 selected frames hold 39,710 people.", false, false, `"4"`},
	{"pop spelled wrong count", &popFigures, "Twelve frames hold 39,710 people.", false, false, `"Twelve"`},
	{"pop extra figure", &popFigures, "39,710 people and 5 clinics.", false, false, `"5"`},
	{"pop million", &popFigures, "About 1.2 million people.", false, false, `"1.2 million"`},
	{"pop wrong year", &popFigures, "39,710 people (2021).", false, false, `year "2021"`},
	{"pop year not shown", &popFigures, "As of 2019, 39,710 people.", false, false, `year "2019"`},
	{"pop invented id", &popFigures, "Frames 433102007 and 433102009.", false, false, `"433102009"`},
	{"pop percent of count", &popFigures, "2% of frames have a record.", false, false, `percentage "2%"`},
	{"pop percent invented", &popFigures, "About 40,000 people, over 50% of them in one frame.", false, false, `"50%"`},
	{"pop percent of population", &popFigures, "39.71% of people.", false, false, `"39.71%"`},
	{"pop a dozen", &popFigures, "A dozen frames hold 39,710 people.", false, false, `"A dozen"`},
	{"pop invented place", &popFigures, "Kaduna holds 39,710 people.", false, false, `place "Kaduna"`},
	{"pop invented ward", &popFigures, "Gwale and Kano hold 39,710 people.", false, false, `place "Gwale"`},
	{"pop invented hyphenated", &popFigures, "In Ado-Ekiti, 39,710 people.", false, false, `place "Ado-Ekiti"`},
	{"pop invented unhyphenated", &popFigures, "In Ado Ekiti, 39,710 people.", false, false, `place "Ado-Ekiti"`},
	{"pop invented upper case", &popFigures, "In EKITI, 39,710 people.", false, false, `place "Ekiti"`},
	{"pop allowed and invented", &popFigures, "Kano Municipal and Dala hold 39,710 people.", false, false, `place "Dala"`},
	{"pop known capitalised word", &popFigures, "Central frames hold 39,710 people.", false, false, `place "Central"`},

	// Buildings profile: exact and rounded.
	{"bld exact", &bldFigures, "There are 12,345 buildings (2023).", false, true, ""},
	{"bld year first", &bldFigures, "The 2023 count is 12,345 buildings.", false, true, ""},
	{"bld about 12,000", &bldFigures, "About 12,000 buildings stand here.", false, true, ""},
	{"bld 12k", &bldFigures, "12k buildings stand here.", false, true, ""},
	{"bld twelve thousand", &bldFigures, "Twelve thousand buildings stand here.", false, true, ""},
	{"bld 12.3 thousand", &bldFigures, "Roughly 12.3 thousand buildings.", false, true, ""},
	{"bld 12,300", &bldFigures, "Roughly 12,300 buildings.", false, true, ""},
	{"bld lights exact", &bldFigures, "Mean lights are 12.345 nW/cm²/sr.", false, true, ""},
	{"bld lights one decimal", &bldFigures, "Mean lights are 12.3 nW/cm²/sr.", false, true, ""},
	{"bld lights half away", &bldFigures, "Mean lights are 12.35 nW/cm²/sr.", false, true, ""},
	{"bld lights whole", &bldFigures, "Mean lights are about 12.", false, true, ""},
	{"bld million", &bldFigures, "About 1.2 million people live here.", false, true, ""},
	{"bld million exact", &bldFigures, "1,234,567 people live here.", false, true, ""},
	{"bld million two decimals", &bldFigures, "About 1.23 million people.", false, true, ""},
	{"bld million three decimals", &bldFigures, "1.235 million people.", false, true, ""},
	{"bld 1.2m", &bldFigures, "1.2m people.", false, true, ""},
	{"bld over a million", &bldFigures, "Over 1 million people.", false, true, ""},
	{"bld percent", &bldFigures, "Two-thirds of frames, 67%, are urban.", false, true, ""},
	{"bld per cent", &bldFigures, "67 per cent of frames are urban.", false, true, ""},
	{"bld percent decimal", &bldFigures, "The urban share is 45.5%.", false, true, ""},
	{"bld percent rounded", &bldFigures, "The urban share is about 46%.", false, true, ""},
	{"bld percent word", &bldFigures, "The urban share is 45.5 percent.", false, true, ""},
	{"bld count", &bldFigures, "Across 45 frames.", false, true, ""},
	{"bld spelled count", &bldFigures, "Across forty-five frames.", false, true, ""},
	{"bld spelled small", &bldFigures, "There are three health facilities.", false, true, ""},
	{"bld negative as fall", &bldFigures, "Lights fell by 3.5.", false, true, ""},
	{"bld negative", &bldFigures, "A change of -3.5 in lights.", false, true, ""},
	{"bld negative unicode", &bldFigures, "A change of \u22123.5 in lights.", false, true, ""},
	{"bld small decimal", &bldFigures, "An elevation index of 0.75.", false, true, ""},
	{"bld small rounded", &bldFigures, "An elevation index of about 0.8.", false, true, ""},
	{"bld places", &bldFigures, "Lagos and Ikeja hold 12,345 buildings.", false, true, ""},
	{"bld range both round", &bldFigures, "Between 10,000 and 12,000 buildings.", false, true, ""},
	// Buildings profile: failures.
	{"bld 13,500", &bldFigures, "About 13,500 buildings.", false, false, `"13,500"`},
	{"bld transposed", &bldFigures, "12,354 buildings.", false, false, `"12,354"`},
	{"bld about 13,000", &bldFigures, "About 13,000 buildings.", false, false, `"13,000"`},
	{"bld lights 12.4", &bldFigures, "Mean lights are 12.4.", false, false, `"12.4"`},
	{"bld lights truncated", &bldFigures, "Mean lights are 12.34.", false, false, `"12.34"`},
	{"bld 1.3 million", &bldFigures, "About 1.3 million people.", false, false, `"1.3 million"`},
	{"bld 1.24 million", &bldFigures, "About 1.24 million people.", false, false, `"1.24 million"`},
	{"bld percent of a count", &bldFigures, "45% of frames are urban.", false, false, `percentage "45%"`},
	{"bld percent as count", &bldFigures, "67 frames are urban.", false, false, `number "67"`},
	{"bld spelled percent", &bldFigures, "Sixty-seven per cent of frames are urban.", false, true, ""},
	{"bld spelled percent of a count", &bldFigures, "Forty-five per cent of frames are urban.", false, false, `percentage "Forty-five per cent"`},
	{"bld hundred thousand", &bldFigures, "3 hundred thousand buildings.", false, false, `"3 hundred thousand"`},
	{"bld percent decimal as count", &bldFigures, "45.5 frames.", false, false, `number "45.5"`},
	{"bld percent of change", &bldFigures, "Lights fell by 3.5%.", false, false, `percentage "3.5%"`},
	{"bld percent invented", &bldFigures, "Lights fell by 35%.", false, false, `percentage "35%"`},
	{"bld wrong year", &bldFigures, "12,345 buildings (2024).", false, false, `year "2024"`},
	{"bld invented average", &bldFigures, "An average of 274 buildings per frame.", false, false, `"274"`},
	{"bld invented ratio", &bldFigures, "2 in 3 frames.", false, false, `"2"`},
	{"bld spelled wrong", &bldFigures, "Five health facilities.", false, false, `"Five"`},
	// Kept before claims were checked (3.5, the change in lights, rounds to
	// 4); dishonest: the answer has 3 facilities, and a figure under 10 is
	// written exactly unless hedged.
	{"bld small integer rounds a decimal", &bldFigures, "Four health facilities.", false, false, `"Four"`},
	{"bld space not separator", &bldFigures, "12 345 buildings.", false, false, `"345"`},
	{"bld range upper wrong", &bldFigures, "Between 10,000 and 15,000 buildings.", false, false, `"15,000"`},
	{"bld range just above", &bldFigures, "Between 12,000 and 13,000 buildings.", false, false, `"13,000"`},
	{"bld range scale", &bldFigures, "Between 1 and 2 million people.", false, false, `"2 million"`},
	{"bld small rounded wrong", &bldFigures, "An elevation index of 0.7.", false, false, `"0.7"`},
	{"bld invented place", &bldFigures, "Ikeja and Epe hold 12,345 buildings.", false, false, `place "Epe"`},
	{"bld longer known name", &bldFigures, "Lagos Island holds 12,345 buildings.", false, false, `place "Lagos Island"`},

	// Ranking: answers.
	{"rank plain", &rankFigures, "The top frame, 433102007, has 4,591 buildings.", false, true, ""},
	{"rank plain as report", &rankFigures, "The top frame, 433102007, has 4,591 buildings.", true, false, "section title"},
	{"rank list markers", &rankFigures, "1. Frame 433102007\n2. Frame 433102008\n3. Frame 433102009", false, true, ""},
	{"rank list marker invented id", &rankFigures, "4. Frame 433102010", false, false, `"433102010"`},
	{"rank top three", &rankFigures, "The top three frames.", false, true, ""},
	{"rank top five", &rankFigures, "The top 5 frames.", false, false, `"5"`},
	{"rank id range", &rankFigures, "Frames 433102007-433102009 were ranked.", false, true, ""},
	{"rank km", &rankFigures, "Each 1 km frame was ranked.", false, false, `"1"`},
	// Ranking: reports.
	{"report simple", &rankFigures, "## Summary\n- Frame 433102007 has the most buildings: 4,591.\n- 3 frames were ranked.", true, true, ""},
	{"report numbered sections", &rankFigures, "## 1. Ranking\n1. 433102007: 4,591 buildings\n2. 433102008: 3,210 buildings\n3. 433102009: 1,002 buildings\n\n## 2. Population (2020)\n- 21,500, 18,210 and 9,870 people", true, true, ""},
	{"report indented item", &rankFigures, "## Findings\n\n  - About 4,600 buildings in the top frame\n- Gwale and Dala", true, true, ""},
	{"report scaled", &rankFigures, "## Overview\n- The top frame holds 4.6k buildings.", true, true, ""},
	{"report heading year", &rankFigures, "## Population in 2020\n- 21,500 people in the top frame", true, true, ""},
	{"report ordinal word", &rankFigures, "## Summary\n- 9,870 people in the third frame", true, true, ""},
	{"report ordinal digits", &rankFigures, "## Summary\n- 3rd place: 1,002 buildings", true, true, ""},
	{"report rounded thousand", &rankFigures, "## Summary\n- 1,002 buildings, about 1,000", true, true, ""},
	{"report rounded hundreds", &rankFigures, "## Summary\n- about 9,900 people", true, true, ""},
	{"report spelled rounded", &rankFigures, "## Summary\n- four thousand six hundred buildings", true, true, ""},
	{"report place", &rankFigures, "## Summary\n- Gwale has 3,210 buildings.", true, true, ""},
	{"report place and year", &rankFigures, "## Summary\n- Dala (2020): 18,210 people", true, true, ""},
	{"report h3 only", &rankFigures, "### Findings\n- 4,591 buildings", true, false, "section title"},
	{"report no title", &rankFigures, "Summary\n- 4,591 buildings", true, false, "section title"},
	{"report title glued", &rankFigures, "##Summary\n- 4,591 buildings", true, false, "section title"},
	{"report no item", &rankFigures, "## Summary\nThe top frame has 4,591 buildings.", true, false, "list item"},
	{"report star item", &rankFigures, "## Summary\n* 4,591 buildings", true, false, "list item"},
	{"report dash glued", &rankFigures, "## Summary\n-4,591 buildings", true, false, "list item"},
	{"report invented sum", &rankFigures, "## Summary\n- 4,591 buildings\n- a total of 8,803 buildings", true, false, `"8,803"`},
	{"report transposed", &rankFigures, "## Summary\n- 4,951 buildings", true, false, `"4,951"`},
	{"report rounded wrong", &rankFigures, "## Summary\n- about 9,800 people", true, false, `"9,800"`},
	{"report spelled wrong", &rankFigures, "## Summary\n- four thousand five hundred buildings", true, false, `"four thousand five hundred"`},
	{"report invented share", &rankFigures, "## Summary\n- 52% of buildings are in the top frame", true, false, `"52%"`},
	{"report heading wrong year", &rankFigures, "## Population in 2021\n- 21,500", true, false, `year "2021"`},
	{"report wrong year", &rankFigures, "## Summary\n- Dala in 2019", true, false, `year "2019"`},
	{"report invented place", &rankFigures, "## Summary\n- Kano leads with 4,591", true, false, `place "Kano"`},
	{"report invented count", &rankFigures, "## Summary\n- 4,591\n- 12 frames", true, false, `"12"`},
	{"empty", &rankFigures, "", false, false, "empty"},
	{"blank report", &rankFigures, "   \n\t", true, false, "empty"},
}

func TestVerifyCorpus(t *testing.T) {
	if len(corpus) < 120 {
		t.Fatalf("corpus has %d wordings, want at least 120", len(corpus))
	}
	names := map[string]bool{}
	for _, c := range corpus {
		if names[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		names[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			v := Verify(c.wording, *c.f, c.report)
			if v.OK != c.ok {
				t.Fatalf("Verify(%q, report=%v) = %+v, want OK=%v", c.wording, c.report, v, c.ok)
			}
			if c.ok && v.Reason != "" {
				t.Errorf("Verify(%q) OK with reason %q", c.wording, v.Reason)
			}
			if !c.ok && !strings.Contains(v.Reason, c.reason) {
				t.Errorf("Verify(%q).Reason = %q, want it to contain %q", c.wording, v.Reason, c.reason)
			}
		})
	}
}

// TestVerifyReasonOmitsWording: the reason names the failing number, not
// the text around it.
func TestVerifyReasonOmitsWording(t *testing.T) {
	v := Verify("Amina Bello at 12 Sokoto Road asked: 39,170 people?", popFigures, false)
	if v.OK || v.Reason != `number "12" matches no figure` {
		t.Fatalf("Verify = %+v", v)
	}
}

func TestVerifyZeroFigures(t *testing.T) {
	if v := Verify("No figures here, just words.", Figures{}, false); !v.OK {
		t.Errorf("wording without numbers failed: %+v", v)
	}
	if v := Verify("There are 3 frames.", Figures{}, false); v.OK {
		t.Errorf("a number passed with no figures")
	}
}
