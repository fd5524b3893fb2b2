package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// popDataset is a dataset of acme with one number, one category and one
// text attribute.
func popDataset() Dataset {
	return Dataset{
		ID: "population", Name: "Estimated population", Owner: "acme", Price: 2,
		Attributes: []Attribute{
			{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: TypeNumber, Aggregation: AggSum, Year: 2020, Aliases: []string{"people", "residents"}},
			{Name: "class", Label: "Settlement class", Type: TypeCategory},
			{Name: "note", Type: TypeText, Aggregation: AggMode},
		},
	}
}

// mustImport imports records into d and fails the test on error.
func mustImport(tb testing.TB, s *Store, d Dataset, records []FrameRecord) Dataset {
	tb.Helper()
	got, err := s.ImportDataset(d, records, testNow)
	if err != nil {
		tb.Fatalf("ImportDataset(%s): %v", d.ID, err)
	}
	return got
}

// versionBuckets lists the names of the version buckets in the file.
func versionBuckets(tb testing.TB, s *Store) []string {
	tb.Helper()
	var names []string
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketVersions)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

func feature(name string) []byte {
	return []byte(`{"type":"Feature","geometry":{"type":"Point","coordinates":[3.39,6.45]},"properties":{"name":"` + name + `"}}`)
}

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
	want.Attributes[1].Aggregation = AggMode
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

func TestStore_ImportDatasetInvalid(t *testing.T) {
	one := func(attrs string) []FrameRecord { return []FrameRecord{{Frame: 1, Attrs: []byte(attrs)}} }
	feat := func(f string) []FrameRecord {
		return []FrameRecord{{Frame: 7, Features: [][]byte{feature("ok"), []byte(f)}}}
	}
	withAttr := func(a Attribute) Dataset {
		d := popDataset()
		d.Attributes = append(d.Attributes, a)
		return d
	}
	tests := []struct {
		name    string
		d       Dataset
		records []FrameRecord
		wantErr error
		text    []string
	}{
		// The dataset description.
		{name: "bad id", d: Dataset{ID: "Pop", Owner: "acme"}, wantErr: ErrInvalid, text: []string{`invalid dataset id "Pop"`}},
		{name: "empty id", d: Dataset{Owner: "acme"}, wantErr: ErrInvalid, text: []string{`invalid dataset id ""`}},
		{name: "id with @", d: Dataset{ID: "a@1", Owner: "acme"}, wantErr: ErrInvalid, text: []string{`invalid dataset id "a@1"`}},
		{name: "no owner", d: Dataset{ID: "pop"}, wantErr: ErrInvalid, text: []string{"dataset pop: no owner"}},
		{name: "unknown owner", d: Dataset{ID: "pop", Owner: "nope"}, wantErr: ErrNotFound, text: []string{`organisation "nope" not found`}},
		{name: "negative price", d: Dataset{ID: "pop", Owner: "acme", Price: -1}, wantErr: ErrInvalid, text: []string{"invalid price -1 for dataset pop"}},
		{name: "control in name", d: Dataset{ID: "pop", Owner: "acme", Name: "a\nb"}, wantErr: ErrInvalid, text: []string{"invalid dataset name: control character U+000A"}},
		{name: "owned by another", d: Dataset{ID: "taken", Owner: "acme"}, wantErr: ErrInvalid, text: []string{"dataset taken is owned by other"}},
		// Attributes.
		{name: "bad attribute name", d: withAttr(Attribute{Name: "a-b", Type: TypeText}), wantErr: ErrInvalid, text: []string{`invalid attribute name "a-b" in dataset population`}},
		{name: "duplicate attribute", d: withAttr(Attribute{Name: "class", Type: TypeText}), wantErr: ErrInvalid, text: []string{`attribute "class" is declared twice`}},
		{name: "unknown type", d: withAttr(Attribute{Name: "x", Type: "integer", Aggregation: AggSum}), wantErr: ErrInvalid, text: []string{`type "integer" must be number, category or text`}},
		{name: "number without aggregation", d: withAttr(Attribute{Name: "x", Type: TypeNumber}), wantErr: ErrInvalid, text: []string{"attribute x of dataset population: a number needs an aggregation"}},
		{name: "unknown aggregation", d: withAttr(Attribute{Name: "x", Type: TypeNumber, Aggregation: "max"}), wantErr: ErrInvalid, text: []string{`aggregation "max" must be sum, mean or mode`}},
		{name: "sum of a category", d: withAttr(Attribute{Name: "x", Type: TypeCategory, Aggregation: AggSum}), wantErr: ErrInvalid, text: []string{`aggregation "sum" is only for numbers`}},
		{name: "mean of a text", d: withAttr(Attribute{Name: "x", Type: TypeText, Aggregation: AggMean}), wantErr: ErrInvalid, text: []string{`aggregation "mean" is only for numbers`}},
		{name: "bad year", d: withAttr(Attribute{Name: "x", Type: TypeText, Year: 20}), wantErr: ErrInvalid, text: []string{"year 20 must be between 1000 and 9999"}},
		{name: "empty alias", d: withAttr(Attribute{Name: "x", Type: TypeText, Aliases: []string{""}}), wantErr: ErrInvalid, text: []string{"attribute x of dataset population: an empty alias"}},
		// Attributes of a frame.
		{name: "undeclared attribute", d: popDataset(), records: one(`{"pop":1}`), wantErr: ErrInvalid, text: []string{`dataset population, frame 1: attributes: "pop" is not a declared attribute`}},
		{name: "string for a number", d: popDataset(), records: one(`{"population_2020":"12"}`), wantErr: ErrInvalid, text: []string{`attribute "population_2020" is a number: got "12", want a JSON number`}},
		{name: "number for a category", d: popDataset(), records: one(`{"class":3}`), wantErr: ErrInvalid, text: []string{`attribute "class" is a category: got 3, want a JSON string`}},
		{name: "null", d: popDataset(), records: one(`{"class":null}`), wantErr: ErrInvalid, text: []string{`attribute "class" is a category: got null, want a JSON string`}},
		{name: "null number", d: popDataset(), records: one(`{"population_2020":null}`), wantErr: ErrInvalid, text: []string{`is a number: got null, want a JSON number`}},
		{name: "nested object", d: popDataset(), records: one(`{"note":{"a":1}}`), wantErr: ErrInvalid, text: []string{`attribute "note" is a text: got an object, want a JSON string`}},
		{name: "twice", d: popDataset(), records: one(`{"class":"a","class":"b"}`), wantErr: ErrInvalid, text: []string{`attribute "class" appears twice`}},
		{name: "twice by escape", d: popDataset(), records: one(`{"class":"a","cl\u0061ss":"b"}`), wantErr: ErrInvalid, text: []string{`attribute "class" appears twice`}},
		{name: "array", d: popDataset(), records: one(`[1]`), wantErr: ErrInvalid, text: []string{"frame 1: attributes: not a JSON object"}},
		{name: "null object", d: popDataset(), records: one(`null`), wantErr: ErrInvalid, text: []string{"not a JSON object"}},
		{name: "trailing data", d: popDataset(), records: one(`{"class":"a"} {}`), wantErr: ErrInvalid, text: []string{"data after the object"}},
		{name: "not closed", d: popDataset(), records: one(`{"class":"a"`), wantErr: ErrInvalid, text: []string{"object not closed"}},
		{name: "trailing comma", d: popDataset(), records: one(`{"class":"a",}`), wantErr: ErrInvalid, text: []string{"expected a member name"}},
		{name: "out of range", d: popDataset(), records: one(`{"population_2020":1e400}`), wantErr: ErrInvalid, text: []string{`1e400 is out of range`}},
		{name: "leading zero", d: popDataset(), records: one(`{"population_2020":012}`), wantErr: ErrInvalid, text: []string{"expected ',' or '}'"}},
		{name: "NaN", d: popDataset(), records: one(`{"population_2020":NaN}`), wantErr: ErrInvalid, text: []string{`got NaN, want a JSON number`}},
		{name: "bad UTF-8", d: popDataset(), records: one("{\"class\":\"\xff\"}"), wantErr: ErrInvalid, text: []string{"string is not valid UTF-8"}},
		{name: "bad escape", d: popDataset(), records: one(`{"class":"\x"}`), wantErr: ErrInvalid, text: []string{`bad escape \x`}},
		{name: "raw newline", d: popDataset(), records: one("{\"class\":\"a\nb\"}"), wantErr: ErrInvalid, text: []string{"control character in a string"}},
		// Features.
		{name: "feature not JSON", d: popDataset(), records: feat(`{"type":`), wantErr: ErrInvalid, text: []string{"dataset population, frame 7, feature 2: not valid JSON"}},
		{name: "feature an array", d: popDataset(), records: feat(`[]`), wantErr: ErrInvalid, text: []string{"feature 2: not a JSON object"}},
		{name: "feature without type", d: popDataset(), records: feat(`{"geometry":null,"properties":{"type":"Feature"}}`), wantErr: ErrInvalid, text: []string{`feature 2: no "type":"Feature" member`}},
		{name: "feature of another type", d: popDataset(), records: feat(`{"type":"FeatureCollection","features":[]}`), wantErr: ErrInvalid, text: []string{`feature 2: "type" is "FeatureCollection", want "Feature"`}},
		{name: "feature type not a string", d: popDataset(), records: feat(`{"type":1}`), wantErr: ErrInvalid, text: []string{`feature 2: "type" is not a string`}},
		{name: "feature type in capitals", d: popDataset(), records: feat(`{"TYPE":"Feature"}`), wantErr: ErrInvalid, text: []string{`no "type":"Feature" member`}},
		// Frames.
		{name: "frame twice", d: popDataset(), records: []FrameRecord{{Frame: 5, Attrs: []byte(`{"class":"a"}`)}, {Frame: 9}, {Frame: 5}}, wantErr: ErrInvalid, text: []string{"dataset population: frame 5 has two records"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			mustAddOrg(t, s, "other", "pro", 0)
			mustImport(t, s, Dataset{ID: "taken", Owner: "other"}, nil)
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
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v is not ErrInvalid", err)
			}
			if b := versionBuckets(t, s); len(b) != 0 {
				t.Errorf("version buckets left = %q", b)
			}
			if _, err := s.Dataset("population"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Dataset after the failed import: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestStore_DatasetsRemoveSetPrice(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	mustAddOrg(t, s, "beta", "pro", 0)
	if all, err := s.Datasets(); err != nil || all != nil {
		t.Fatalf("Datasets on a new file = %v, %v; want none", all, err)
	}
	for _, id := range []string{"roads", "a-b", "a_b", "a"} {
		mustImport(t, s, Dataset{ID: id, Owner: "acme"}, []FrameRecord{{Frame: 3, Features: [][]byte{feature(id)}}})
	}
	all, err := s.Datasets()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range all {
		ids = append(ids, d.ID)
		if d.Name != d.ID || d.Price != 0 || d.Version != 1 || d.Frames != 1 || d.Features != 1 {
			t.Errorf("dataset %+v: want name = id, price 0, version 1, 1 frame, 1 feature", d)
		}
	}
	if want := []string{"a", "a-b", "a_b", "roads"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("Datasets ids = %q, want %q", ids, want)
	}

	d, err := s.SetPrice("roads", 5)
	if err != nil || d.Price != 5 {
		t.Fatalf("SetPrice = %+v, %v", d, err)
	}
	if d, _ := s.Dataset("roads"); d.Price != 5 {
		t.Errorf("stored price %d, want 5", d.Price)
	}
	if _, err := s.SetPrice("roads", -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("SetPrice(-1) = %v, want ErrInvalid", err)
	}
	if _, err := s.SetPrice("nope", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetPrice(nope) = %v, want ErrNotFound", err)
	}
	if _, err := s.Dataset("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Dataset(nope) = %v, want ErrNotFound", err)
	}

	if _, err := s.GrantLicence("beta", "roads", LicencePerQuery, testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GrantLicence("beta", "a", LicenceSubscription, testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("roads"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("roads"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second RemoveDataset = %v, want ErrNotFound", err)
	}
	if _, err := s.Dataset("roads"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Dataset after removal = %v, want ErrNotFound", err)
	}
	lic, err := s.Licences("")
	if err != nil || len(lic) != 1 || lic[0].Dataset != "a" {
		t.Errorf("licences after removal = %+v, %v; want only beta's on a", lic, err)
	}
	if b := versionBuckets(t, s); !reflect.DeepEqual(b, []string{"a-b@1", "a@1", "a_b@1"}) {
		t.Errorf("version buckets = %q", b)
	}
	fd, err := s.ReadFrames([]string{"roads", "a"}, []uint64{3}, true, 10)
	if err != nil || len(fd[0].Datasets) != 1 || fd[0].Datasets[0].Dataset != "a" {
		t.Errorf("ReadFrames after removal = %s, %v", dumpFD(fd), err)
	}
	// The id can be used again, by anyone, from version 1.
	if d := mustImport(t, s, Dataset{ID: "roads", Owner: "beta"}, nil); d.Version != 1 {
		t.Errorf("re-created dataset has version %d, want 1", d.Version)
	}
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
	mustImport(t, s, Dataset{ID: "b", Owner: "acme"}, []FrameRecord{
		{Frame: 1, Features: feats(1, 3)},
		{Frame: 2, Features: feats(2, 4)},
		{Frame: 3, Features: feats(3, 2)},
	})
	mustImport(t, s, Dataset{ID: "a", Owner: "acme", Attributes: []Attribute{{Name: "v", Type: TypeNumber, Aggregation: AggMean}}}, []FrameRecord{
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

func TestStore_DatasetCorrupt(t *testing.T) {
	tests := []struct {
		name  string
		value string
		text  string
	}{
		{name: "not JSON", value: `{`, text: `dataset "population"`},
		{name: "other id", value: `{"id":"x","owner":"acme","version":1,"price":0,"name":"x","frames":0,"features":0,"importedAt":"2025-01-01T00:00:00Z"}`, text: `record holds id "x"`},
		{name: "version 0", value: `{"id":"population","owner":"acme","version":0,"price":0,"name":"x","frames":0,"features":0,"importedAt":"2025-01-01T00:00:00Z"}`, text: "version 0"},
		{name: "unknown member", value: `{"id":"population","owner":"acme","version":1,"colour":"red"}`, text: "colour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustOpenStore(t)
			mustAddOrg(t, s, "acme", "pro", 0)
			mustImport(t, s, popDataset(), []FrameRecord{{Frame: 1, Attrs: []byte(`{"class":"a"}`)}})
			if err := s.update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketDatasets).Put([]byte("population"), []byte(tt.value))
			}); err != nil {
				t.Fatal(err)
			}
			_, err := s.Dataset("population")
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Dataset error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, tt.text)
			if _, err := s.Datasets(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Datasets error = %v, want ErrCorrupt", err)
			}
		})
	}
}

// FuzzAttrScanner checks the attributes scanner against encoding/json:
// whatever it accepts is a JSON object whose members are declared
// attributes, each once, with values of their declared types.
func FuzzAttrScanner(f *testing.F) {
	for _, s := range []string{
		`{"n":1,"c":"a","t":"b"}`, // every type
		`{}`, ` { } `,             // empty, with white space
		`{"n":-0.5e+3}`, `{"n":1e400}`, `{"n":01}`, `{"n":1.}`, `{"n":-}`, // numbers, good and bad
		`{"c":"\u00e9\n"}`, `{"c":"\ud800"}`, "{\"c\":\"\xff\"}", `{"c":"\q"}`, // strings and escapes
		`{"\u006e":2}`,                 // an escaped name
		`{"n":1,"n":2}`,                // a member twice
		`{"x":1}`,                      // undeclared
		`{"c":null}`, `{"c":{}}`, `[]`, // wrong kinds
		`{"c":"a"}x`, `{"c":"a",}`, `{"c" "a"}`, `{"c":"a"`, // broken objects
	} {
		f.Add([]byte(s))
	}
	attrs := []Attribute{
		{Name: "n", Type: TypeNumber, Aggregation: AggSum},
		{Name: "c", Type: TypeCategory, Aggregation: AggMode},
		{Name: "t", Type: TypeText, Aggregation: AggMode},
	}
	names := map[string]int{"n": 0, "c": 1, "t": 2}
	sc := attrScanner{attrs: attrs, names: names, seen: make([]uint32, len(attrs))}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := sc.scan(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("scan accepted %q, which is not JSON", b)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("scan accepted %q, which is not a JSON object: %v", b, err)
		}
		if len(m) != n {
			t.Fatalf("scan of %q counted %d members, encoding/json %d", b, n, len(m))
		}
		for k, v := range m {
			i, ok := names[k]
			if !ok {
				t.Fatalf("scan accepted undeclared %q in %q", k, b)
			}
			switch v.(type) {
			case float64:
				if attrs[i].Type != TypeNumber {
					t.Fatalf("scan accepted a number for %s in %q", k, b)
				}
			case string:
				if attrs[i].Type == TypeNumber {
					t.Fatalf("scan accepted a string for %s in %q", k, b)
				}
			default:
				t.Fatalf("scan accepted %T for %s in %q", v, k, b)
			}
		}
	})
}

// FuzzCheckFeature checks that whatever checkFeature accepts decodes as a
// JSON object with "type":"Feature".
func FuzzCheckFeature(f *testing.F) {
	for _, s := range []string{
		`{"type":"Feature","geometry":null,"properties":{}}`,                            // minimal
		`{"properties":{"type":"x"},"geometry":{"a":[1,{}]},"type":"Feature"}`,          // type last, nested values
		` {"id":"a,b:c","type" : "Feature"} `,                                           // separators inside strings
		`{"type":"Point"}`, `{"type":1}`, `[]`, `"Feature"`, `{`, `{"type":"Feature"}x`, // refused
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := checkFeature(b); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("checkFeature accepted %q: %v", b, err)
		}
		var typ string
		if err := json.Unmarshal(m["type"], &typ); err != nil || typ != "Feature" {
			// encoding/json keeps the last of repeated members and
			// matches names without regard to case; checkFeature takes
			// the first "type" exactly.
			if bytes.Count(bytes.ToLower(b), []byte(`"type"`)) < 2 {
				t.Fatalf("checkFeature accepted %q: type %q", b, m["type"])
			}
		}
	})
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
			d := Dataset{ID: "population", Owner: "acme", Attributes: popDataset().Attributes[:1]}
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

// dataStore is a store with 6 datasets of acme over frames 1..n, each with
// attributes on every frame and, for "buildings", 3 features a frame.
func dataStore(b *testing.B, n int) (*Store, []string) {
	s := MustOpenStore(b)
	mustAddOrg(b, s, "acme", "pro", 0)
	ids := []string{"admin", "buildings", "health", "population", "roads", "settlement"}
	for _, id := range ids {
		d := Dataset{ID: id, Owner: "acme", Attributes: []Attribute{
			{Name: "value", Type: TypeNumber, Aggregation: AggSum},
			{Name: "name", Type: TypeCategory},
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
	frames := make([]uint64, 100)
	for i := range frames {
		frames[i] = uint64(i*173%20_000 + 1)
	}
	for _, withFeatures := range []bool{false, true} {
		b.Run(fmt.Sprintf("frames=100/datasets=6/features=%v", withFeatures), func(b *testing.B) {
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
