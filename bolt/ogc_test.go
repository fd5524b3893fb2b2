package bolt

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"frameindex/state"
)

// ogcStore holds dataset "d": attributes on frames 10, 11, 20, 35 and 40,
// and 0, 2, 0, 3 and 1 features on them; "empty" has no records.
func ogcStore(t *testing.T) *Store {
	t.Helper()
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	feat := func(frame uint64, i int) []byte {
		return fmt.Appendf(nil, `{"type":"Feature","geometry":{"type":"Point","coordinates":[3.39,6.45]},"properties":{"n":"%d-%d"}}`, frame, i)
	}
	var recs []FrameRecord
	for _, f := range []struct {
		frame uint64
		feats int
	}{{10, 0}, {11, 2}, {20, 0}, {35, 3}, {40, 1}} {
		r := FrameRecord{Frame: f.frame, Attrs: fmt.Appendf(nil, `{"v":%d}`, f.frame)}
		for i := range f.feats {
			r.Features = append(r.Features, feat(f.frame, i))
		}
		recs = append(recs, r)
	}
	attrs := []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}
	if _, err := s.ImportDataset(state.Dataset{ID: "d", Owner: "acme", Attributes: attrs}, recs, testNow); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore_ScanRecords(t *testing.T) {
	s := ogcStore(t)
	tests := []struct {
		name    string
		dataset string
		ranges  []IDRange
		stop    int // stop after this many; 0 = never
		want    []uint64
	}{
		{"all", "d", []IDRange{AllFrames}, 0, []uint64{10, 11, 20, 35, 40}},
		{"ranges", "d", []IDRange{{0, 10}, {12, 20}, {36, 100}}, 0, []uint64{10, 20, 40}},
		{"after a cursor", "d", []IDRange{{12, 39}}, 0, []uint64{20, 35}},
		{"empty range", "d", []IDRange{{5, 4}, {21, 34}}, 0, nil},
		{"stop", "d", []IDRange{AllFrames}, 2, []uint64{10, 11}},
		{"unknown dataset", "nope", []IDRange{AllFrames}, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []uint64
			err := s.ScanRecords(tc.dataset, tc.ranges, func(frame uint64, features int, attrs []byte) bool {
				if want := fmt.Sprintf(`{"v":%d}`, frame); string(attrs) != want {
					t.Errorf("frame %d: attrs %s, want %s", frame, attrs, want)
				}
				got = append(got, frame)
				return tc.stop == 0 || len(got) < tc.stop
			})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestStore_ScanFeatures(t *testing.T) {
	s := ogcStore(t)
	tests := []struct {
		name   string
		ranges []IDRange
		from   FeatureKey
		stop   int
		want   []FeatureKey
	}{
		{"all", []IDRange{AllFrames}, FeatureKey{}, 0, []FeatureKey{{11, 0}, {11, 1}, {35, 0}, {35, 1}, {35, 2}, {40, 0}}},
		{"from inside a frame", []IDRange{AllFrames}, FeatureKey{35, 1}, 0, []FeatureKey{{35, 1}, {35, 2}, {40, 0}}},
		{"from past a frame's last", []IDRange{AllFrames}, FeatureKey{11, 2}, 0, []FeatureKey{{35, 0}, {35, 1}, {35, 2}, {40, 0}}},
		{"ranges and from", []IDRange{{0, 11}, {30, 36}, {40, 40}}, FeatureKey{35, 2}, 0, []FeatureKey{{35, 2}, {40, 0}}},
		{"from before the ranges", []IDRange{{30, 36}}, FeatureKey{1, 0}, 0, []FeatureKey{{35, 0}, {35, 1}, {35, 2}}},
		{"stop", []IDRange{AllFrames}, FeatureKey{}, 1, []FeatureKey{{11, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []FeatureKey
			err := s.ScanFeatures("d", tc.ranges, tc.from, func(k FeatureKey, f []byte) bool {
				if want := fmt.Sprintf(`"n":"%d-%d"`, k.Frame, k.Seq); !bytes.Contains(f, []byte(want)) {
					t.Errorf("feature %v: %s, want it to hold %s", k, f, want)
				}
				got = append(got, k)
				return tc.stop == 0 || len(got) < tc.stop
			})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if err := s.ScanFeatures("nope", []IDRange{AllFrames}, FeatureKey{}, func(FeatureKey, []byte) bool {
		t.Fatal("a dataset that does not exist has features")
		return false
	}); err != nil {
		t.Fatal(err)
	}
}
