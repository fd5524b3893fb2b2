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
				if a := Answer(req); a.Headline == "" {
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
