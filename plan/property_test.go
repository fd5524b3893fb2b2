package plan

import (
	"math/rand"
	"strings"
	"testing"
)

// answerable are questions the parser reads exactly; the property test
// spoils them.
var answerable = []string{
	"average population",
	"What is the median population?",
	"Which frame has the most people?",
	"Which 5 frames have the fewest buildings?",
	"How many frames are there?",
	"What percentage of the population lives in urban frames?",
	"people per building",
	"clinics per 10,000 people",
	"population density in hectares",
	"buildings per km²",
	"compare population and buildings",
	"nearest health facility",
	"Which frame is farthest from a health facility?",
	"How many people live more than 5 km from a health facility?",
	"How many frames are within 5 km of a clinic?",
	"How many building footprints are there?",
	"frames with more than 1,000 people and no health facility",
	"frames with 10k+ people",
	"between 500 and 2,000 people",
	"urban frames without a clinic",
	"total population by state",
	"Which state has the most people?",
	"How many people live in Dala LGA?",
	"how many frames have a clinic",
	"top 3 frames by population density",
}

// unknownWords bear meaning the grammar does not know: a plan that
// leaves one unread must not be exact.
var unknownWords = []string{"quarterly", "2035", "km²", "hectolitres", "excluding", "fortnight", "annual",
	"projected", "female", "except", "minus", "weekly", "acres", "tonnes", "forecast", "children",
	"elderly", "flooded", "paved", "literate", "2.5", "hourly", "per annum", "miles", "since", "before",
	"after", "unless", "doubled", "halved", "cumulative", "growth"}

// TestParse_UnknownWordNeverExact: for questions made by inserting a
// meaning-bearing word the grammar does not know into answerable
// questions, no plan is exact (issue 22, part 2).
func TestParse_UnknownWordNeverExact(t *testing.T) {
	cat := demoCatalogue()
	for _, q := range answerable {
		if c := Parse(q, cat).Confidence(); c != Exact {
			t.Fatalf("%q is %s, not exact: the property below needs exact questions", q, c)
		}
	}
	rng := rand.New(rand.NewSource(22))
	for n := 0; n < 3000; n++ {
		q := answerable[rng.Intn(len(answerable))]
		ws := strings.Fields(q)
		at := rng.Intn(len(ws) + 1)
		w := unknownWords[rng.Intn(len(unknownWords))]
		spoilt := strings.Join(append(append(append([]string(nil), ws[:at]...), w), ws[at:]...), " ")
		p := Parse(spoilt, cat)
		if p.Confidence() == Exact {
			t.Errorf("%q reads as exact: %s (%s)", spoilt, p.Describe(0), summary(p))
		}
	}
}
