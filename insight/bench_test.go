package insight

import "testing"

// BenchmarkAnswer50 answers questions about 50 frames over the six demo
// datasets: the profile, one measure, a ranking and a comparison.
func BenchmarkAnswer50(b *testing.B) {
	ds := demoDatasets()
	frames := randomFrames(42, 50)
	for _, bc := range []struct{ name, q string }{
		{"profile", ""},
		{"attribute", "how many people live here"},
		{"partial", "how many buidlings are in these places"},
		{"rank", "top 5 frames by radiance"},
		{"compare", "compare population and health facilities"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := Request{Question: bc.q, Datasets: ds, Frames: frames}
			b.ReportAllocs()
			for b.Loop() {
				if a := AnswerRequest(req); a.Headline == "" {
					b.Fatal("no headline")
				}
			}
		})
	}
}

// BenchmarkParse parses a typical question over the six demo datasets.
func BenchmarkParse(b *testing.B) {
	ds := demoDatasets()
	b.ReportAllocs()
	for b.Loop() {
		Parse("which frame has the most popluation and buildings", ds)
	}
}

// BenchmarkAnswerQuestions50 answers issue 14's questions about 50 frames
// over the six demo datasets, frames with areas, a nearest search at hand.
func BenchmarkAnswerQuestions50(b *testing.B) {
	ds := demoDatasets()
	frames := randomFrames(42, 50)
	for i := range frames {
		frames[i].AreaKm2 = 0.84 + float64(i%5)/1000
	}
	for _, bc := range []struct{ name, q string }{
		{"density", "what is the population density"},
		{"density_rank", "which frame has the highest building density"},
		{"ratio", "hospitals per 100,000 inhabitants"},
		{"threshold", "how many frames have at least 20,000 residents"},
		{"gap", "which frames have no clinic"},
		{"share", "what share of the population lives in urban frames"},
		{"share_by_class", "share of frames by settlement class"},
		{"nearest", "where is the nearest clinic"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := Request{Question: bc.q, Datasets: ds, Frames: frames, AreaBasis: "WGS84 ellipsoid", Nearest: testNearest()}
			if a := AnswerRequest(req); a.Confidence == ConfidenceUnknown {
				b.Fatalf("%q: %+v", bc.q, a)
			}
			b.ReportAllocs()
			for b.Loop() {
				if a := AnswerRequest(req); a.Headline == "" {
					b.Fatal("no headline")
				}
			}
		})
	}
}
