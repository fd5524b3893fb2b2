package narrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoAnswer is an answer of the national demo as TestCaptureClaimAnswers
// (handlers/wording_test.go) wrote it to testdata/claims_answers.json.
type demoAnswer struct {
	Name     string      `json:"name"`
	Question string      `json:"question"`
	Format   string      `json:"format"`
	Register string      `json:"register"`
	Headline string      `json:"headline"`
	Detail   string      `json:"detail"`
	Facets   [][2]string `json:"facets"`
	Table    [][]string  `json:"table"`
	FrameIDs []string    `json:"frameIds"`
	Frames   int         `json:"frames"`
	Rows     int         `json:"rows"`
	Places   []string    `json:"places"`
	Values   []string    `json:"values"`
	Figures  [][5]string `json:"figures"` // text, canonical unit, subject, kind, label
}

// loadDemoAnswers reads the captured answers, with the Figures of each.
func loadDemoAnswers(t testing.TB) ([]demoAnswer, map[string]Figures) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claims_answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		KnownPlaces []string     `json:"knownPlaces"`
		Answers     []demoAnswer `json:"answers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	figs := map[string]Figures{}
	for _, a := range doc.Answers {
		f := Figures{Places: a.Places, Values: a.Values, KnownPlaces: doc.KnownPlaces, Frames: a.Frames, Rows: a.Rows}
		for _, g := range a.Figures {
			nf, ok := NewFigure(g[0], g[1], g[2], g[4], g[3])
			if !ok {
				t.Fatalf("%s: figure %q holds no number", a.Name, g)
			}
			f.Add(nf)
		}
		figs[a.Name] = f
	}
	return doc.Answers, figs
}

// ownWording is an answer's own texts as a wording: the headline, the
// detail, each facet as "label: value" and each table row, in lines.
func ownWording(a demoAnswer) string {
	var b strings.Builder
	b.WriteString(a.Headline + "\n" + a.Detail + "\n")
	for _, f := range a.Facets {
		b.WriteString(f[0] + ": " + f[1] + ".\n")
	}
	for i, row := range a.Table {
		if i == 0 {
			continue
		}
		b.WriteString(strings.Join(row, " | ") + "\n")
	}
	return b.String()
}

// TestVerify_OwnWords: an answer's own headline, detail, facets and rows
// pass against its figures, as a wording and line by line.
func TestVerify_OwnWords(t *testing.T) {
	answers, figs := loadDemoAnswers(t)
	for _, a := range answers {
		t.Run(a.Name, func(t *testing.T) {
			w := ownWording(a)
			for line := range strings.Lines(w) {
				if strings.TrimSpace(line) == "" {
					continue
				}
				if v := Verify(line, figs[a.Name], false); !v.OK {
					t.Errorf("own line %q: %s (%s)", line, v.Reason, v.Kind)
				}
			}
		})
	}
}

// corpusCase is one wording of testdata/claims_corpus.txt.
type corpusCase struct {
	line     int
	answer   string
	verdict  string // "ok" or the kind of failure, short
	register string
	report   bool
	wording  string
}

// failKinds maps the corpus's short verdicts to Verdict.Kind.
var failKinds = map[string]string{"number": FailNumber, "unit": FailUnit, "subject": FailSubject, "names": FailNames,
	"ordinal": FailOrdinal, "hedge": FailHedge, "place": FailPlace, "report": FailReport}

// loadCorpus reads testdata/claims_corpus.txt.
func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", "claims_corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []corpusCase
	answer := ""
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "@ "):
			answer = strings.TrimSpace(line[2:])
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 {
			t.Fatalf("claims_corpus.txt:%d: want verdict | register | wording", n)
		}
		c := corpusCase{line: n, answer: answer, verdict: parts[0], wording: strings.ReplaceAll(parts[2], `\n`, "\n")}
		reg, format, _ := strings.Cut(parts[1], ",")
		c.register, c.report = reg, format == "report"
		if c.verdict != "ok" && failKinds[c.verdict] == "" {
			t.Fatalf("claims_corpus.txt:%d: unknown verdict %q", n, c.verdict)
		}
		if reg != "plain" && reg != "gis" || format != "" && format != "report" {
			t.Fatalf("claims_corpus.txt:%d: register %q", n, parts[1])
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerify_ClaimCorpus: every wording of the corpus gets its verdict,
// and a discarded one the kind of error it is labelled with. The test
// reports false accepts (dishonest wordings kept) and false rejects
// (honest ones discarded); both must be 0.
func TestVerify_ClaimCorpus(t *testing.T) {
	answers, figs := loadDemoAnswers(t)
	cases := loadCorpus(t)
	if len(cases) < 300 {
		t.Fatalf("the corpus has %d wordings, want at least 300", len(cases))
	}
	byName := map[string]demoAnswer{}
	for _, a := range answers {
		byName[a.Name] = a
	}
	falseAccepts, falseRejects, wrongKind := 0, 0, 0
	kinds := map[string]int{}
	registers := map[string]int{}
	for _, c := range cases {
		a, ok := byName[c.answer]
		if !ok {
			t.Fatalf("claims_corpus.txt:%d: no answer %q", c.line, c.answer)
		}
		kinds[c.verdict]++
		registers[c.register]++
		if c.report {
			registers["report"]++
		}
		v := Verify(c.wording, figs[a.Name], c.report)
		switch {
		case c.verdict == "ok" && !v.OK:
			falseRejects++
			t.Errorf("claims_corpus.txt:%d: false reject of %q: %s (%s)", c.line, c.wording, v.Reason, v.Kind)
		case c.verdict != "ok" && v.OK:
			falseAccepts++
			t.Errorf("claims_corpus.txt:%d: false accept of %q (a %s error)", c.line, c.wording, c.verdict)
		case c.verdict != "ok" && v.Kind != failKinds[c.verdict]:
			wrongKind++
			t.Errorf("claims_corpus.txt:%d: %q discarded as %q (%s), labelled %s", c.line, c.wording, v.Kind, v.Reason, c.verdict)
		}
	}
	t.Logf("%d wordings over %d answers: verdicts %v, registers %v; false accepts %d, false rejects %d, wrong kinds %d",
		len(cases), len(answers), kinds, registers, falseAccepts, falseRejects, wrongKind)
	for _, k := range []string{"ok", "number", "unit", "subject", "names", "ordinal", "hedge"} {
		if kinds[k] < 10 {
			t.Errorf("only %d wordings labelled %s", kinds[k], k)
		}
	}
	if registers["gis"] < 40 || registers["report"] < 40 {
		t.Errorf("registers and formats: %v", registers)
	}
}

// TestNewFigure: a figure's text and unit are read into its value,
// precision and canonical unit.
func TestNewFigure(t *testing.T) {
	tests := []struct {
		text, unit string
		value      float64
		decimals   int
		percent    bool
		canon      string
	}{
		{"86,556", "people", 86556, 0, false, "people"},
		{"25,471.74", "people per km²", 25471.74, 2, false, "people/km2"},
		{"0.46", "health facilities per 10,000 people", 0.46, 2, false, "facilities/people"},
		{"67%", "% of frames", 67, 0, true, "%frames"},
		{"78%", "% of estimated population", 78, 0, true, "%people"},
		{"45", "%", 45, 0, true, "%"},
		{"3.4", "km²", 3.4, 1, false, "km2"},
		{"258", "ha", 258, 0, false, "ha"},
		{"6.08", "nW/cm²/sr", 6.08, 2, false, "nw"},
		{"2", "local government areas", 2, 0, false, "lgas"},
		{"433102007", "frame id", 433102007, 0, false, "id"},
		{"0.75", "elevation index", 0.75, 2, false, "elevation index"},
		{"5.34", "people per building", 5.34, 2, false, "people/buildings"},
		{"5.34", "people/buildings", 5.34, 2, false, "people/buildings"},
	}
	for _, tc := range tests {
		g, ok := NewFigure(tc.text, tc.unit, "", "", "")
		if !ok || g.Value != tc.value || g.Decimals != tc.decimals || g.Percent != tc.percent || g.Unit != tc.canon {
			t.Errorf("NewFigure(%q, %q) = %+v, %v", tc.text, tc.unit, g, ok)
		}
		if again := CanonicalUnit(g.Unit); again != g.Unit {
			t.Errorf("CanonicalUnit(%q) = %q: not idempotent", g.Unit, again)
		}
	}
	if _, ok := NewFigure("none recorded", "", "", "", ""); ok {
		t.Error("a text without a number made a figure")
	}
}

// TestReadClaims: what the reader makes of typical phrasings.
func TestReadClaims(t *testing.T) {
	f := Figures{Places: []string{"Kano"}, Values: []string{"rural", "peri-urban"}}
	g, _ := NewFigure("433102007", "frame id", "frame 433102007", "Frame", KindID)
	f.Add(g)
	g, _ = NewFigure("433102008", "frame id", "frame 433102008", "Frame", KindID)
	f.Add(g)
	tests := []struct {
		s, text, unit, hedge string
		frames, names        []string
		part, selection      bool
	}{
		{"The selection spans four local government areas.", "four", "lgas", "", nil, nil, false, true},
		{"10,679 km² of built-up land", "10,679", "km2", "", nil, nil, false, false},
		{"Frame 433102007 has 25,741 people.", "25,741", "people", "", []string{"433102007"}, nil, false, false},
		{"25,741 people (frame 433102008)", "25,741", "people", "", []string{"433102008"}, nil, false, false},
		{"## Frame 433102008\n- 4,458 buildings", "4,458", "buildings", "", []string{"433102008"}, nil, false, false},
		{"Frames 433102007 and 433102008 hold 20,511 and 21,598 people", "21,598", "people", "", []string{"433102007", "433102008"}, nil, false, false},
		{"Over 12,000 people live here.", "12,000", "people", HedgeOver, nil, nil, false, false},
		{"12,000 residents or more", "12,000", "people", HedgeAtLeast, nil, nil, false, false},
		{"Almost 4,600 houses", "4,600", "buildings", HedgeAlmost, nil, nil, false, false},
		{"about 25,500 people per square kilometre", "25,500", "people/km2", HedgeAbout, nil, nil, false, false},
		{"5.34 people for every building", "5.34", "people/buildings", "", nil, nil, false, false},
		{"0.46 clinics per 10,000 inhabitants", "0.46", "facilities/people", "", nil, nil, false, false},
		{"45% of the population", "45%", "%people", "", nil, nil, false, false},
		{"33% of the 12 selected frames", "33%", "%frames", "", nil, nil, false, false},
		{"3 of the 4 cells", "3", "frames", "", nil, nil, true, false},
		{"an estimated population of 86,556", "86,556", "people", "", nil, nil, false, false},
		{"Rural frames make up 67% of the selection.", "67%", "%", "", nil, []string{"rural"}, false, false},
		{"Frame 433102007 is busy; across the selection there are 86,556 people.", "86,556", "people", "", nil, nil, false, true},
		{"the zonal sum of population_2020 is 86,556", "86,556", "", "", nil, nil, false, true},
		{"1,740 over 6 polygons", "6", "polygons", "", nil, nil, false, false},
		{"The nearest is 0.18 to 3.53 km away", "0.18", "km", "", nil, nil, false, false},
	}
	for _, tc := range tests {
		claims, _ := ReadClaims(tc.s, f)
		var c *Claim
		for i := range claims {
			if claims[i].Text == tc.text {
				c = &claims[i]
			}
		}
		if c == nil {
			t.Errorf("%q: no claim %q among %+v", tc.s, tc.text, claims)
			continue
		}
		if c.Unit != tc.unit || c.Hedge != tc.hedge || !slicesEqual(c.Frames, tc.frames) || !slicesEqual(c.Names, tc.names) ||
			c.Part != tc.part || c.Selection != tc.selection {
			t.Errorf("%q: claim %+v, want unit %q hedge %q frames %v names %v part %v selection %v",
				tc.s, *c, tc.unit, tc.hedge, tc.frames, tc.names, tc.part, tc.selection)
		}
	}
	_, ords := ReadClaims("The sixth frame ranks third; the 21st and #2 are listed.", f)
	var got []string
	for _, o := range ords {
		got = append(got, fmt.Sprintf("%s=%d/%v", o.Text, o.Value, o.Frame))
	}
	if want := "sixth=6/true third=3/true 21st=21/false #2=2/true"; strings.Join(got, " ") != want {
		t.Errorf("ordinals %q, want %q", strings.Join(got, " "), want)
	}
}

func slicesEqual(a, b []string) bool {
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
