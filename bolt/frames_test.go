package bolt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"frameindex/state"
)

func dumpFD(fd []FrameData) string {
	var b strings.Builder
	for _, f := range fd {
		fmt.Fprintf(&b, "frame %d:", f.Frame)
		for _, d := range f.Datasets {
			fmt.Fprintf(&b, " {%s attrs=%s count=%d features=%d truncated=%v}", d.Dataset, d.Attrs, d.FeatureCount, len(d.Features), d.FeaturesTruncated)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestStore_ReadFramesFeatureCap(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	feats := func(frame uint64, n int) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, feature(fmt.Sprintf("%d-%d", frame, i)))
		}
		return out
	}
	mustImport(t, s, state.Dataset{ID: "b", Owner: "acme"}, []FrameRecord{
		{Frame: 1, Features: feats(1, 3)},
		{Frame: 2, Features: feats(2, 4)},
		{Frame: 3, Features: feats(3, 2)},
	})
	mustImport(t, s, state.Dataset{ID: "a", Owner: "acme", Attributes: []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggMean}}}, []FrameRecord{
		{Frame: 2, Attrs: []byte(`{"v":1}`), Features: feats(2, 6)},
		{Frame: 3, Attrs: []byte(`{"v":2}`)},
	})
	type entry struct {
		ds        string
		count     int
		got       int
		truncated bool
	}
	tests := []struct {
		name         string
		frames       []uint64
		withFeatures bool
		cap          int
		want         [][]entry // per frame
	}{
		{name: "cap 5 across frames", frames: []uint64{1, 2, 3}, withFeatures: true, cap: 5,
			want: [][]entry{{{"b", 3, 3, false}}, {{"a", 6, 5, true}, {"b", 4, 2, true}}, {{"a", 0, 0, false}, {"b", 2, 0, true}}}},
		{name: "request order decides", frames: []uint64{3, 2, 1}, withFeatures: true, cap: 5,
			want: [][]entry{{{"a", 0, 0, false}, {"b", 2, 2, false}}, {{"a", 6, 5, true}, {"b", 4, 3, true}}, {{"b", 3, 0, true}}}},
		{name: "room for all", frames: []uint64{1, 2, 3}, withFeatures: true, cap: 200,
			want: [][]entry{{{"b", 3, 3, false}}, {{"a", 6, 6, false}, {"b", 4, 4, false}}, {{"a", 0, 0, false}, {"b", 2, 2, false}}}},
		{name: "cap 0", frames: []uint64{1}, withFeatures: true, cap: 0,
			want: [][]entry{{{"b", 3, 0, true}}}},
		{name: "negative cap", frames: []uint64{1}, withFeatures: true, cap: -4,
			want: [][]entry{{{"b", 3, 0, true}}}},
		{name: "without features", frames: []uint64{1, 2}, withFeatures: false, cap: 5,
			want: [][]entry{{{"b", 3, 0, false}}, {{"a", 6, 0, false}, {"b", 4, 0, false}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd, err := s.ReadFrames([]string{"a", "b", "nope", "a"}, tt.frames, tt.withFeatures, tt.cap)
			if err != nil {
				t.Fatal(err)
			}
			if len(fd) != len(tt.frames) {
				t.Fatalf("%d frames back, want %d", len(fd), len(tt.frames))
			}
			for i, f := range fd {
				if f.Frame != tt.frames[i] {
					t.Errorf("frame %d is %d, want %d", i, f.Frame, tt.frames[i])
				}
				var got []entry
				for _, d := range f.Datasets {
					got = append(got, entry{d.Dataset, d.FeatureCount, len(d.Features), d.FeaturesTruncated})
					for j, ft := range d.Features {
						if want := feature(fmt.Sprintf("%d-%d", f.Frame, j)); !bytes.Equal(ft, want) {
							t.Errorf("frame %d %s feature %d = %s, want %s", f.Frame, d.Dataset, j, ft, want)
						}
					}
					if !tt.withFeatures && d.Features != nil {
						t.Errorf("features returned without withFeatures")
					}
				}
				if !reflect.DeepEqual(got, tt.want[i]) {
					t.Errorf("frame %d: %v, want %v", f.Frame, got, tt.want[i])
				}
			}
		})
	}
}

func TestStore_ReadFramesCopies(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	attrs := []byte(`{"class":"urban"}`)
	records := []FrameRecord{{Frame: 1, Attrs: attrs, Features: [][]byte{feature("x")}}, {Frame: 2, Attrs: []byte(`{"class":"rural"}`)}}
	mustImport(t, s, popDataset(), records)
	attrs[2] = 'X' // the store keeps its own copy
	fd, err := s.ReadFrames([]string{"population"}, []uint64{1, 2}, true, 200)
	if err != nil {
		t.Fatal(err)
	}
	a := fd[0].Datasets[0].Attrs
	if string(a) != `{"class":"urban"}` {
		t.Fatalf("attrs = %s", a)
	}
	// Appending to one returned slice never writes into another.
	_ = append(a, "garbage"...)
	_ = append(fd[0].Datasets[0].Features[0], "garbage"...)
	if string(fd[1].Datasets[0].Attrs) != `{"class":"rural"}` {
		t.Errorf("neighbouring attrs changed to %s", fd[1].Datasets[0].Attrs)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Still readable after the file is closed (and unmapped).
	if string(a) != `{"class":"urban"}` || !bytes.Equal(fd[0].Datasets[0].Features[0], feature("x")) {
		t.Errorf("returned bytes changed after Close")
	}
}

func TestStore_ReadFramesEmpty(t *testing.T) {
	s := MustOpenStore(t)
	fd, err := s.ReadFrames([]string{"a"}, []uint64{5, 6}, true, 200)
	if err != nil || !reflect.DeepEqual(fd, []FrameData{{Frame: 5}, {Frame: 6}}) {
		t.Errorf("ReadFrames on a file without datasets = %v, %v", fd, err)
	}
	fd, err = s.ReadFrames(nil, nil, true, 200)
	if err != nil || len(fd) != 0 {
		t.Errorf("ReadFrames of nothing = %v, %v", fd, err)
	}
}

// dataStore is a store with 6 datasets of acme over frames 1..n, each with
// attributes on every frame and, for "buildings", 3 features a frame.
func dataStore(b *testing.B, n int) (*Store, []string) {
	s := MustOpenStore(b)
	mustAddOrg(b, s, "acme", "pro", 0)
	ids := []string{"admin", "buildings", "health", "population", "roads", "settlement"}
	for _, id := range ids {
		d := state.Dataset{ID: id, Owner: "acme", Attributes: []state.Attribute{
			{Name: "value", Type: state.TypeNumber, Aggregation: state.AggSum},
			{Name: "name", Type: state.TypeCategory},
		}}
		records := make([]FrameRecord, n)
		for i := range records {
			records[i] = FrameRecord{Frame: uint64(i + 1), Attrs: []byte(fmt.Sprintf(`{"value":%d,"name":"Kano Municipal %d"}`, i, i%50))}
			if id == "buildings" {
				records[i].Features = [][]byte{feature("1"), feature("2"), feature("3")}
			}
		}
		mustImport(b, s, d, records)
	}
	return s, ids
}

func BenchmarkStore_ReadFrames(b *testing.B) {
	s, ids := dataStore(b, 20_000)
	scattered, ascending := make([]uint64, 100), make([]uint64, 100)
	for i := range scattered {
		scattered[i] = uint64(i*173%20_000 + 1)
		ascending[i] = uint64(5_000 + i)
	}
	for _, c := range []struct {
		name         string
		frames       []uint64
		withFeatures bool
	}{{"scattered", scattered, false}, {"scattered", scattered, true}, {"ascending", ascending, false}} {
		frames, withFeatures := c.frames, c.withFeatures
		b.Run(fmt.Sprintf("frames=100/%s/datasets=6/features=%v", c.name, withFeatures), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fd, err := s.ReadFrames(ids, frames, withFeatures, 200)
				if err != nil || len(fd[99].Datasets) != 6 {
					b.Fatal(err)
				}
			}
		})
	}
}

// Whatever the order frames are asked in (ascending with gaps, as a box's
// rows; descending; repeated; past the last record), each gets what it
// gets when asked alone: stepping the cursor forward finds what a seek
// finds.
func TestStore_ReadFramesAnyOrder(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	// Sparse records: frames with i%3 != 1 and a dense run 40..49.
	var records []FrameRecord
	for f := uint64(1); f <= 60; f++ {
		if f%3 != 1 || (f >= 40 && f < 50) {
			records = append(records, FrameRecord{Frame: f, Attrs: []byte(fmt.Sprintf(`{"v":%d}`, f))})
		}
	}
	mustImport(t, s, state.Dataset{ID: "sparse", Owner: "acme", Attributes: []state.Attribute{{Name: "v", Type: state.TypeNumber, Aggregation: state.AggSum}}}, records)
	alone := func(f uint64) FrameData {
		fd, err := s.ReadFrames([]string{"sparse"}, []uint64{f}, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fd[0]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	orders := [][]uint64{
		{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		{2, 3, 5, 6, 8, 9, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52},
		{60, 59, 58, 3, 2, 1},
		{5, 5, 6, 6, 4, 7, 7, 61, 62, 1, 100, 2},
		{0, 1, 4, 7, 10, 13, 16, 19, 22},
	}
	for range 20 {
		var o []uint64
		for range 30 {
			o = append(o, uint64(rng.IntN(64)))
		}
		orders = append(orders, o)
	}
	for _, frames := range orders {
		fd, err := s.ReadFrames([]string{"sparse"}, frames, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range frames {
			if want := alone(f); !reflect.DeepEqual(fd[i], want) {
				t.Fatalf("frames %v: frame %d read %s, alone %s", frames, f, dumpFD(fd[i:i+1]), dumpFD([]FrameData{want}))
			}
		}
	}
}
