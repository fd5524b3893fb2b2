package plan

import "testing"

// TestFollowUps: every follow-up offered reads back exactly, and each
// kind of question gets some.
func TestFollowUps(t *testing.T) {
	cat := demoCatalogue()
	qs := append(append([]string(nil), answerable...), "", "What is the GDP?", "average radiance", "Which frame is nearest to a clinic?")
	for _, q := range qs {
		p := Parse(q, cat)
		fs := FollowUps(p, cat, 3)
		if len(fs) == 0 {
			t.Errorf("%q: no follow-ups", q)
		}
		for _, f := range fs {
			fp := Parse(f, cat)
			if fp.Confidence() != Exact || fp.Agg == AggUnsupported {
				t.Errorf("%q: follow-up %q reads %s (%s)", q, f, fp.Confidence(), fp.Detail())
			}
		}
	}
	p := Parse("Which frame is farthest from a health facility?", cat)
	if fs := FollowUps(p, cat, 1); len(fs) != 1 || fs[0] != "Which frame is nearest to health facilities?" {
		t.Errorf("farthest: follow-ups %q", fs)
	}
}
