package access

import (
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"frameindex/bolt"
	"frameindex/state"
)

// fakeRecords scans fixed records of one dataset, counting scans.
type fakeRecords struct {
	frames []uint64
	counts []int
	attrs  []string
	scans  atomic.Int32
	fail   error
}

func (f *fakeRecords) ScanRecords(id string, _ []bolt.IDRange, fn func(uint64, int, []byte) bool) error {
	f.scans.Add(1)
	if f.fail != nil {
		return f.fail
	}
	for i, fr := range f.frames {
		if !fn(fr, f.counts[i], []byte(f.attrs[i])) {
			break
		}
	}
	return nil
}

var columnsDataset = state.Dataset{ID: "pop", Name: "Population", Version: 1, Attributes: []state.Attribute{
	{Name: "people", Label: "People", Type: state.TypeNumber, Aggregation: state.AggSum},
	{Name: "class", Label: "Class", Type: state.TypeCategory, Aggregation: state.AggMode},
}}

func TestColumnsReadAnyFrameSet(t *testing.T) {
	recs := &fakeRecords{
		frames: []uint64{3, 7, 9, 12},
		counts: []int{0, 2, 0, 1},
		attrs:  []string{`{"people":10,"class":"urban"}`, `{"people":2.5}`, `{"class":"rural","people":"x"}`, ``},
	}
	c := NewColumns(1 << 20)
	var wg sync.WaitGroup
	for range 4 { // built once for concurrent first uses
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Dataset(recs, columnsDataset); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := recs.scans.Load(); n != 1 {
		t.Errorf("%d scans for one version", n)
	}
	dc, _ := c.Dataset(recs, columnsDataset)
	for _, frames := range [][]uint64{{1, 3, 7, 9, 12, 20}, {20, 12, 9, 7, 3, 1}} {
		pos := dc.Positions(frames)
		col, ok := dc.Column("people", pos)
		if !ok {
			t.Fatal("people not found")
		}
		want := map[uint64]float64{3: 10, 7: 2.5}
		for i, f := range frames {
			w, has := want[f]
			if got := col.Num[i]; has && got != w || !has && !math.IsNaN(got) {
				t.Errorf("people on frame %d: %v", f, got)
			}
		}
		cat, _ := dc.Column("class", pos)
		var got []string
		for _, code := range cat.Codes {
			if code < 0 {
				got = append(got, "")
			} else {
				got = append(got, cat.Dict[code])
			}
		}
		wantCat := map[uint64]string{3: "urban", 9: "rural"}
		for i, f := range frames {
			if got[i] != wantCat[f] {
				t.Errorf("class on frame %d: %q", f, got[i])
			}
		}
		fc := dc.FeatureColumn(pos)
		if fr, ft := dc.Recorded(pos); fr != 4 || ft != 3 {
			t.Errorf("recorded %d frames %d features", fr, ft)
		}
		if s := fc.Num[slices.Index(frames, 7)]; s != 2 {
			t.Errorf("features on frame 7: %v", s)
		}
	}
	if _, ok := dc.Column("nope", nil); ok {
		t.Error("an undeclared attribute was found")
	}
	// A new version is built again; the old one is dropped.
	v2 := columnsDataset
	v2.Version = 2
	if _, err := c.Dataset(recs, v2); err != nil || recs.scans.Load() != 2 {
		t.Errorf("version 2: %v, %d scans", err, recs.scans.Load())
	}
	if c.Bytes() != dc.Bytes() {
		t.Errorf("cache holds %d bytes, one version is %d", c.Bytes(), dc.Bytes())
	}
	// A failed build is not kept.
	bad := &fakeRecords{fail: errors.New("disk")}
	other := columnsDataset
	other.ID = "other"
	if _, err := c.Dataset(bad, other); err == nil {
		t.Error("a failed scan gave columns")
	}
	bad.fail = nil
	if _, err := c.Dataset(bad, other); err != nil {
		t.Error(err)
	}
	// Records that do not parse are the store's fault.
	broken := &fakeRecords{frames: []uint64{1}, counts: []int{0}, attrs: []string{`{"people":`}}
	third := columnsDataset
	third.ID = "third"
	if _, err := c.Dataset(broken, third); !errors.Is(err, ErrStore) {
		t.Errorf("broken record: %v", err)
	}
}

func TestColumnsBound(t *testing.T) {
	recs := &fakeRecords{frames: []uint64{1, 2}, counts: []int{0, 0}, attrs: []string{`{"people":1}`, `{"people":2}`}}
	c := NewColumns(1) // smaller than any version: only the newest is kept
	for _, id := range []string{"a", "b", "c"} {
		d := columnsDataset
		d.ID = id
		if _, err := c.Dataset(recs, d); err != nil {
			t.Fatal(err)
		}
	}
	_, n := c.c.held()
	if n != 1 {
		t.Errorf("%d versions kept over the bound", n)
	}
}

// TestColumnsEveryFrameInPlace: frames that are every frame a dataset
// records, in order, read its cached arrays themselves (no copy); any
// other frame set is copied, with the same values.
func TestColumnsEveryFrameInPlace(t *testing.T) {
	recs := &fakeRecords{
		frames: []uint64{3, 7, 9, 12},
		counts: []int{0, 2, 0, 1},
		attrs:  []string{`{"people":10,"class":"urban"}`, `{"people":2.5}`, `{"class":"rural"}`, `{"people":1}`},
	}
	dc, err := NewColumns(1<<20).Dataset(recs, columnsDataset)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		frames []uint64
		all    bool
	}{
		{[]uint64{3, 7, 9, 12}, true},
		{[]uint64{3, 7, 9}, false},
		{[]uint64{3, 7, 9, 12, 13}, false},
		{[]uint64{1, 7, 9, 12}, false},
		{[]uint64{12, 9, 7, 3}, false},
	} {
		buf := make([]int32, 1)
		pos, all := dc.positionsInto(c.frames, buf)
		if all != c.all || !slices.Equal(pos, dc.Positions(c.frames)) {
			t.Errorf("%v: all %v, positions %v", c.frames, all, pos)
		}
	}
	shared, _ := dc.ColumnAll("people")
	copied, _ := dc.Column("people", dc.Positions(recs.frames))
	if &shared.Num[0] != &dc.num["people"][0] || len(shared.Num) != 4 || !slices.EqualFunc(shared.Num, copied.Num, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
		t.Errorf("in place %v, copied %v", shared.Num, copied.Num)
	}
	cls, _ := dc.ColumnAll("class")
	if &cls.Codes[0] != &dc.cat["class"].codes[0] || cls.Dict[cls.Codes[2]] != "rural" || cls.Codes[1] != -1 {
		t.Errorf("class in place: %v %v", cls.Codes, cls.Dict)
	}
	if _, ok := dc.ColumnAll("nope"); ok {
		t.Error("an undeclared attribute was found")
	}
}
