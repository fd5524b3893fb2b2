package plan

import "testing"

// benchQuestions are twenty questions of every kind, for BenchmarkParse.
var benchQuestions = []string{
	"What is the average population per frame?",
	"How many people live more than 5 km from a health facility?",
	"frames with more than 1,000 people and no health facility",
	"Which frame is farthest from a health facility?",
	"How many people live in Dala LGA?",
	"Which 5 frames have the fewest buildings?",
	"What percentage of the population lives in urban frames?",
	"clinics per 10,000 people",
	"population density in hectares",
	"total population by state",
	"Which state has the most people?",
	"How many frames have between 500 and 2,000 people?",
	"rural or peri-urban frames without a clinic",
	"compare population and buildings",
	"How many building footprints are there?",
	"What is the popluation in 2015?",
	"median night-time light radiance of frames with 10k+ people",
	"how many frames are within 2 km of a clinic",
	"Tell me about these frames",
	"What is the quarterly average rainfall?",
}

// BenchmarkParse parses one question of benchQuestions per op, against
// a catalogue whose index is built once.
func BenchmarkParse(b *testing.B) {
	cat := demoCatalogue()
	Parse("", cat)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Parse(benchQuestions[i%len(benchQuestions)], cat)
		i++
	}
}
