package bolt

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

func TestStore_ImportDataset(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	records := []FrameRecord{
		{Frame: 30, Attrs: []byte(`{ "population_2020" : 1234.5, "class":"urban" }`)},
		{Frame: 10, Attrs: []byte(`{"population_2020":7,"note":"caf\u00e9 \"x\""}`), Features: [][]byte{feature("a"), feature("b")}},
		{Frame: 20, Features: [][]byte{feature("c")}},
		{Frame: 40, Attrs: []byte(`{}`)}, // records nothing: not stored
		{Frame: 50},                      // records nothing: not stored
		{Frame: 60, Attrs: []byte(`{}`), Features: [][]byte{feature("d")}},
	}
	got := mustImport(t, s, popDataset(), records)

	want := popDataset()
	want.Attributes[1].Label = "Settlement class"
	want.Attributes[1].Aggregation = state.AggMode
	want.Attributes[2].Label = "note"
	want.Version, want.Frames, want.Features, want.ImportedAt = 1, 4, 4, testNow.Round(0)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ImportDataset =\n%+v\nwant\n%+v", got, want)
	}
	stored, err := s.Dataset("population")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, want) {
		t.Errorf("Dataset =\n%+v\nwant\n%+v", stored, want)
	}

	fd, err := s.ReadFrames([]string{"population"}, []uint64{10, 20, 30, 40, 50, 60, 70}, true, 200)
	if err != nil {
		t.Fatal(err)
	}
	wantFD := []FrameData{
		{Frame: 10, Datasets: []DatasetFrame{{Dataset: "population", Attrs: records[1].Attrs, FeatureCount: 2, Features: [][]byte{feature("a"), feature("b")}}}},
		{Frame: 20, Datasets: []DatasetFrame{{Dataset: "population", FeatureCount: 1, Features: [][]byte{feature("c")}}}},
		{Frame: 30, Datasets: []DatasetFrame{{Dataset: "population", Attrs: records[0].Attrs}}},
		{Frame: 40},
		{Frame: 50},
		{Frame: 60, Datasets: []DatasetFrame{{Dataset: "population", FeatureCount: 1, Features: [][]byte{feature("d")}}}},
		{Frame: 70},
	}
	if !reflect.DeepEqual(fd, wantFD) {
		t.Errorf("ReadFrames =\n%s\nwant\n%s", dumpFD(fd), dumpFD(wantFD))
	}

	// A re-import replaces every record and the version.
	got = mustImport(t, s, popDataset(), []FrameRecord{{Frame: 20, Attrs: []byte(`{"population_2020":-0.5e3}`)}})
	if got.Version != 2 || got.Frames != 1 || got.Features != 0 {
		t.Errorf("re-import: version %d, %d frames, %d features; want 2, 1, 0", got.Version, got.Frames, got.Features)
	}
	fd, err = s.ReadFrames([]string{"population"}, []uint64{10, 20}, true, 200)
	if err != nil {
		t.Fatal(err)
	}
	wantFD = []FrameData{
		{Frame: 10},
		{Frame: 20, Datasets: []DatasetFrame{{Dataset: "population", Attrs: []byte(`{"population_2020":-0.5e3}`)}}},
	}
	if !reflect.DeepEqual(fd, wantFD) {
		t.Errorf("after re-import ReadFrames =\n%s\nwant\n%s", dumpFD(fd), dumpFD(wantFD))
	}
	if b := versionBuckets(t, s); !reflect.DeepEqual(b, []string{"population@2"}) {
		t.Errorf("version buckets = %q, want only population@2", b)
	}
}

func TestStore_ImportDatasetInvalid(t *testing.T) {
	one := func(attrs string) []FrameRecord { return []FrameRecord{{Frame: 1, Attrs: []byte(attrs)}} }
	feat := func(f string) []FrameRecord {
		return []FrameRecord{{Frame: 7, Features: [][]byte{feature("ok"), []byte(f)}}}
	}
	withAttr := func(a state.Attribute) state.Dataset {
		d := popDataset()
		d.Attributes = append(d.Attributes, a)
		return d
	}
	tests := []struct {
		name    string
		d       state.Dataset
		records []FrameRecord
		wantErr error
		text    []string
	}{
		// The dataset description.
		{name: "bad id", d: state.Dataset{ID: "Pop", Owner: "acme"}, wantErr: state.ErrInvalid, text: []string{`invalid dataset id "Pop"`}},
		{name: "empty id", d: state.Dataset{Owner: "acme"}, wantErr: state.ErrInvalid, text: []string{`invalid dataset id ""`}},
		{name: "id with @", d: state.Dataset{ID: "a@1", Owner: "acme"}, wantErr: state.ErrInvalid, text: []string{`invalid dataset id "a@1"`}},
		{name: "no owner", d: state.Dataset{ID: "pop"}, wantErr: state.ErrInvalid, text: []string{"dataset pop: no owner"}},
		{name: "unknown owner", d: state.Dataset{ID: "pop", Owner: "nope"}, wantErr: state.ErrNotFound, text: []string{`organisation "nope" not found`}},
		{name: "negative price", d: state.Dataset{ID: "pop", Owner: "acme", Price: -1}, wantErr: state.ErrInvalid, text: []string{"invalid price -1 for dataset pop"}},
		{name: "control in name", d: state.Dataset{ID: "pop", Owner: "acme", Name: "a\nb"}, wantErr: state.ErrInvalid, text: []string{"invalid dataset name: control character U+000A"}},
		{name: "owned by another", d: state.Dataset{ID: "taken", Owner: "acme"}, wantErr: state.ErrInvalid, text: []string{"dataset taken is owned by other"}},
		// Attributes.
		{name: "bad attribute name", d: withAttr(state.Attribute{Name: "a-b", Type: state.TypeText}), wantErr: state.ErrInvalid, text: []string{`invalid attribute name "a-b" in dataset population`}},
		{name: "duplicate attribute", d: withAttr(state.Attribute{Name: "class", Type: state.TypeText}), wantErr: state.ErrInvalid, text: []string{`attribute "class" is declared twice`}},
		{name: "unknown type", d: withAttr(state.Attribute{Name: "x", Type: "integer", Aggregation: state.AggSum}), wantErr: state.ErrInvalid, text: []string{`type "integer" must be number, category or text`}},
		{name: "number without aggregation", d: withAttr(state.Attribute{Name: "x", Type: state.TypeNumber}), wantErr: state.ErrInvalid, text: []string{"attribute x of dataset population: a number needs an aggregation"}},
		{name: "unknown aggregation", d: withAttr(state.Attribute{Name: "x", Type: state.TypeNumber, Aggregation: "max"}), wantErr: state.ErrInvalid, text: []string{`aggregation "max" must be sum, mean or mode`}},
		{name: "sum of a category", d: withAttr(state.Attribute{Name: "x", Type: state.TypeCategory, Aggregation: state.AggSum}), wantErr: state.ErrInvalid, text: []string{`aggregation "sum" is only for numbers`}},
		{name: "mean of a text", d: withAttr(state.Attribute{Name: "x", Type: state.TypeText, Aggregation: state.AggMean}), wantErr: state.ErrInvalid, text: []string{`aggregation "mean" is only for numbers`}},
		{name: "bad year", d: withAttr(state.Attribute{Name: "x", Type: state.TypeText, Year: 20}), wantErr: state.ErrInvalid, text: []string{"year 20 must be between 1000 and 9999"}},
		{name: "empty alias", d: withAttr(state.Attribute{Name: "x", Type: state.TypeText, Aliases: []string{""}}), wantErr: state.ErrInvalid, text: []string{"attribute x of dataset population: an empty alias"}},
		// Attributes of a frame.
		{name: "undeclared attribute", d: popDataset(), records: one(`{"pop":1}`), wantErr: state.ErrInvalid, text: []string{`dataset population, frame 1: attributes: "pop" is not a declared attribute`}},
		{name: "string for a number", d: popDataset(), records: one(`{"population_2020":"12"}`), wantErr: state.ErrInvalid, text: []string{`attribute "population_2020" is a number: got "12", want a JSON number`}},
		{name: "number for a category", d: popDataset(), records: one(`{"class":3}`), wantErr: state.ErrInvalid, text: []string{`attribute "class" is a category: got 3, want a JSON string`}},
		{name: "null", d: popDataset(), records: one(`{"class":null}`), wantErr: state.ErrInvalid, text: []string{`attribute "class" is a category: got null, want a JSON string`}},
		{name: "null number", d: popDataset(), records: one(`{"population_2020":null}`), wantErr: state.ErrInvalid, text: []string{`is a number: got null, want a JSON number`}},
		{name: "nested object", d: popDataset(), records: one(`{"note":{"a":1}}`), wantErr: state.ErrInvalid, text: []string{`attribute "note" is a text: got an object, want a JSON string`}},
		{name: "twice", d: popDataset(), records: one(`{"class":"a","class":"b"}`), wantErr: state.ErrInvalid, text: []string{`attribute "class" appears twice`}},
		{name: "twice by escape", d: popDataset(), records: one(`{"class":"a","cl\u0061ss":"b"}`), wantErr: state.ErrInvalid, text: []string{`attribute "class" appears twice`}},
		{name: "array", d: popDataset(), records: one(`[1]`), wantErr: state.ErrInvalid, text: []string{"frame 1: attributes: not a JSON object"}},
		{name: "null object", d: popDataset(), records: one(`null`), wantErr: state.ErrInvalid, text: []string{"not a JSON object"}},
		{name: "trailing data", d: popDataset(), records: one(`{"class":"a"} {}`), wantErr: state.ErrInvalid, text: []string{"data after the object"}},
		{name: "not closed", d: popDataset(), records: one(`{"class":"a"`), wantErr: state.ErrInvalid, text: []string{"object not closed"}},
		{name: "trailing comma", d: popDataset(), records: one(`{"class":"a",}`), wantErr: state.ErrInvalid, text: []string{"expected a member name"}},
		{name: "out of range", d: popDataset(), records: one(`{"population_2020":1e400}`), wantErr: state.ErrInvalid, text: []string{`1e400 is out of range`}},
		{name: "leading zero", d: popDataset(), records: one(`{"population_2020":012}`), wantErr: state.ErrInvalid, text: []string{"expected ',' or '}'"}},
		{name: "NaN", d: popDataset(), records: one(`{"population_2020":NaN}`), wantErr: state.ErrInvalid, text: []string{`got NaN, want a JSON number`}},
		{name: "bad UTF-8", d: popDataset(), records: one("{\"class\":\"\xff\"}"), wantErr: state.ErrInvalid, text: []string{"string is not valid UTF-8"}},
		{name: "bad escape", d: popDataset(), records: one(`{"class":"\x"}`), wantErr: state.ErrInvalid, text: []string{`bad escape \x`}},
		{name: "raw newline", d: popDataset(), records: one("{\"class\":\"a\nb\"}"), wantErr: state.ErrInvalid, text: []string{"control character in a string"}},
		// Features.
		{name: "feature not JSON", d: popDataset(), records: feat(`{"type":`), wantErr: state.ErrInvalid, text: []string{"dataset population, frame 7, feature 2: not valid JSON"}},
		{name: "feature an array", d: popDataset(), records: feat(`[]`), wantErr: state.ErrInvalid, text: []string{"feature 2: not a JSON object"}},
		{name: "feature without type", d: popDataset(), records: feat(`{"geometry":null,"properties":{"type":"Feature"}}`), wantErr: state.ErrInvalid, text: []string{`feature 2: no "type":"Feature" member`}},
		{name: "feature of another type", d: popDataset(), records: feat(`{"type":"FeatureCollection","features":[]}`), wantErr: state.ErrInvalid, text: []string{`feature 2: "type" is "FeatureCollection", want "Feature"`}},
		{name: "feature type not a string", d: popDataset(), records: feat(`{"type":1}`), wantErr: state.ErrInvalid, text: []string{`feature 2: "type" is not a string`}},
		{name: "feature type in capitals", d: popDataset(), records: feat(`{"TYPE":"Feature"}`), wantErr: state.ErrInvalid, text: []string{`no "type":"Feature" member`}},
		// Frames.
		{name: "frame twice", d: popDataset(), records: []FrameRecord{{Frame: 5, Attrs: []byte(`{"class":"a"}`)}, {Frame: 9}, {Frame: 5}}, wantErr: state.ErrInvalid, text: []string{"dataset population: frame 5 has two records"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			mustAddOrg(t, s, "other", "pro", 0)
			mustImport(t, s, state.Dataset{ID: "taken", Owner: "other"}, nil)
			_, err := s.ImportDataset(tt.d, tt.records, testNow)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ImportDataset error = %v, want %v", err, tt.wantErr)
			}
			assertErrText(t, err, tt.text...)
			all, err := s.Datasets()
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 1 || all[0].ID != "taken" {
				t.Errorf("after a refused import, datasets = %+v, want only taken", all)
			}
			if b := versionBuckets(t, s); !reflect.DeepEqual(b, []string{"taken@1"}) {
				t.Errorf("after a refused import, version buckets = %q", b)
			}
		})
	}
}

func TestStore_ImportDatasetAcceptsJSON(t *testing.T) {
	// Attribute objects in every form JSON allows for them, kept byte for byte.
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	attrs := []string{
		`{"population_2020":0}`,
		`{"population_2020":-0}`,
		`{"population_2020":1.5E+10}`,
		`{"population_2020":-12.25e-3}`,
		"\t{ \"class\" : \"\" ,\r\n \"note\":\"\\u00e9\\n\\\"\\\\\\/\\b\\f\\r\\t\" }\n",
		`{"note":"日本語 ✓"}`,
		`{"n\u006fte":"escaped name"}`,
		`{"population_2020":1,"class":"rural","note":"all three"}`,
	}
	var records []FrameRecord
	for i, a := range attrs {
		records = append(records, FrameRecord{Frame: uint64(i + 1), Attrs: []byte(a)})
	}
	mustImport(t, s, popDataset(), records)
	frames := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	fd, err := s.ReadFrames([]string{"population"}, frames, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fd {
		if len(f.Datasets) != 1 || string(f.Datasets[0].Attrs) != attrs[i] {
			t.Errorf("frame %d: read %s, want %q", f.Frame, dumpFD(fd[i:i+1]), attrs[i])
		}
	}
}

func TestStore_ImportDatasetStaging(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	old := mustImport(t, s, popDataset(), []FrameRecord{{Frame: 1, Attrs: []byte(`{"class":"old"}`)}})

	// A crashed import left staging buckets of versions 2 and 3.
	err := s.update(func(tx *bbolt.Tx) error {
		for _, name := range []string{"population@2", "population@3"} {
			b, err := tx.Bucket(bucketVersions).CreateBucket([]byte(name))
			if err != nil {
				return err
			}
			if _, err := b.CreateBucket(bucketVFrames); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	const n = 2*stageFrames + 10
	records := make([]FrameRecord, n)
	for i := range records {
		records[i] = FrameRecord{Frame: uint64(n - i), Attrs: []byte(`{"population_2020":` + fmt.Sprint(n-i) + `}`)}
	}
	var staged []int
	afterStage = func(id string, k int) {
		staged = append(staged, k)
		// Between staging transactions readers see the old version and
		// other writers run.
		d, err := s.Dataset(id)
		if err != nil || d.Version != old.Version {
			t.Errorf("while staging: Dataset = %+v, %v; want version %d", d, err, old.Version)
		}
		fd, err := s.ReadFrames([]string{id}, []uint64{1}, false, 0)
		if err != nil || string(fd[0].Datasets[0].Attrs) != `{"class":"old"}` {
			t.Errorf("while staging: ReadFrames = %s, %v", dumpFD(fd), err)
		}
		if _, _, err := s.AddCredits("acme", 1, "during the import", testNow); err != nil {
			t.Errorf("while staging: AddCredits: %v", err)
		}
	}
	t.Cleanup(func() { afterStage = nil })
	got := mustImport(t, s, popDataset(), records)
	afterStage = nil

	if want := []int{stageFrames, 2 * stageFrames, n}; !reflect.DeepEqual(staged, want) {
		t.Errorf("staged after each transaction = %v, want %v", staged, want)
	}
	if got.Version != 2 || got.Frames != n {
		t.Errorf("import: version %d, %d frames; want 2, %d", got.Version, got.Frames, n)
	}
	if b := versionBuckets(t, s); !reflect.DeepEqual(b, []string{"population@2"}) {
		t.Errorf("version buckets = %q, want only population@2", b)
	}
	fd, err := s.ReadFrames([]string{"population"}, []uint64{1, n, n + 1}, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(fd[0].Datasets[0].Attrs) != `{"population_2020":1}` || string(fd[1].Datasets[0].Attrs) != fmt.Sprintf(`{"population_2020":%d}`, n) || fd[2].Datasets != nil {
		t.Errorf("after import ReadFrames = %s", dumpFD(fd))
	}
	if o, _ := s.Org("acme"); o.Credits != 3 {
		t.Errorf("credits granted during the import = %d, want 3", o.Credits)
	}
}

func TestStore_ImportDatasetRemovedMeanwhile(t *testing.T) {
	for _, existed := range []bool{true, false} {
		t.Run(fmt.Sprintf("existed=%v", existed), func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			if existed {
				mustImport(t, s, popDataset(), []FrameRecord{{Frame: 1, Attrs: []byte(`{"class":"old"}`)}})
			}
			afterStage = func(id string, _ int) {
				if existed {
					if err := s.RemoveDataset(id); err != nil {
						t.Errorf("RemoveDataset: %v", err)
					}
					return
				}
				// Another import of the same new dataset cannot run
				// meanwhile (imports are serialised), but a removal of
				// the staging bucket by hand is noticed.
				_ = s.update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketVersions).DeleteBucket([]byte("population@1")) })
			}
			t.Cleanup(func() { afterStage = nil })
			records := make([]FrameRecord, stageFrames+1)
			for i := range records {
				records[i] = FrameRecord{Frame: uint64(i), Attrs: []byte(`{"class":"new"}`)}
			}
			_, err := s.ImportDataset(popDataset(), records, testNow)
			afterStage = nil
			assertErrText(t, err, "dataset population was removed")
			if !errors.Is(err, state.ErrInvalid) {
				t.Errorf("error %v is not ErrInvalid", err)
			}
			if b := versionBuckets(t, s); len(b) != 0 {
				t.Errorf("version buckets left = %q", b)
			}
			if _, err := s.Dataset("population"); !errors.Is(err, state.ErrNotFound) {
				t.Errorf("Dataset after the failed import: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestStore_ImportDatasetConcurrent(t *testing.T) {
	// Imports of one file run one after another: each replaces the last,
	// and none mistakes another's staging bucket for a crashed one.
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	const n = 4
	errs := make(chan error, 2*n)
	for i := range n {
		for _, id := range []string{"population", "other"} {
			go func() {
				d := popDataset()
				d.ID = id
				records := make([]FrameRecord, 1000)
				for j := range records {
					records[j] = FrameRecord{Frame: uint64(j), Attrs: []byte(fmt.Sprintf(`{"population_2020":%d}`, i))}
				}
				_, err := s.ImportDataset(d, records, testNow)
				errs <- err
			}()
		}
	}
	for range 2 * n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, id := range []string{"population", "other"} {
		d, err := s.Dataset(id)
		if err != nil || d.Version != n || d.Frames != 1000 {
			t.Errorf("Dataset(%s) = version %d, %d frames, %v; want version %d, 1000 frames", id, d.Version, d.Frames, err, n)
		}
	}
	if b := versionBuckets(t, s); !reflect.DeepEqual(b, []string{"other@4", "population@4"}) {
		t.Errorf("version buckets = %q", b)
	}
}

// recordsOf makes n frame records of one numeric attribute, frames in
// descending order (the import sorts them).
func recordsOf(n int) []FrameRecord {
	records := make([]FrameRecord, n)
	for i := range records {
		id := uint64(400_000_000 + (n-i)*7)
		records[i] = FrameRecord{Frame: id, Attrs: []byte(fmt.Sprintf(`{"population_2020":%d.5}`, i%5000))}
	}
	return records
}

func BenchmarkStore_ImportDataset(b *testing.B) {
	for _, n := range []int{10_000, 1_100_000} {
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) {
			s := MustOpenStore(b)
			mustAddOrg(b, s, "acme", "pro", 0)
			records := recordsOf(n)
			d := state.Dataset{ID: "population", Owner: "acme", Attributes: popDataset().Attributes[:1]}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.ImportDataset(d, records, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckRecords times the checks an import makes before it
// writes: the attributes of a national dataset (1.1 million frames of one
// number), and frames of three GeoJSON features each.
func BenchmarkCheckRecords(b *testing.B) {
	attrs := popDataset().Attributes[:1]
	feats := make([]FrameRecord, 100_000)
	for i := range feats {
		feats[i] = FrameRecord{Frame: uint64(i), Attrs: []byte(`{"class":"urban","note":"a \"quoted\" caf\u00e9"}`), Features: [][]byte{feature("1"), feature("2"), feature("3")}}
	}
	for _, bc := range []struct {
		name    string
		attrs   []state.Attribute
		records []FrameRecord
	}{
		{"attrs/frames=1100000", attrs, recordsOf(1_100_000)},
		{"features/frames=100000", popDataset().Attributes, feats},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := state.Dataset{ID: "population", Owner: "acme", Attributes: bc.attrs}
			_, err := checkDataset(&d)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := checkRecords(&d, bc.records); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
