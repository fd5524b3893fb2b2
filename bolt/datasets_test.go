package bolt

import (
	"errors"
	"reflect"
	"testing"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// popDataset is a dataset of acme with one number, one category and one
// text attribute.
func popDataset() state.Dataset {
	return state.Dataset{
		ID: "population", Name: "Estimated population", Owner: "acme", Price: 2,
		Attributes: []state.Attribute{
			{Name: "population_2020", Label: "Estimated population", Unit: "people", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2020, Aliases: []string{"people", "residents"}},
			{Name: "class", Label: "Settlement class", Type: state.TypeCategory},
			{Name: "note", Type: state.TypeText, Aggregation: state.AggMode},
		},
	}
}

// mustImport imports records into d and fails the test on error.
func mustImport(tb testing.TB, s *Store, d state.Dataset, records []FrameRecord) state.Dataset {
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

// feature is a GeoJSON point feature with a name property.
func feature(name string) []byte {
	return []byte(`{"type":"Feature","geometry":{"type":"Point","coordinates":[3.39,6.45]},"properties":{"name":"` + name + `"}}`)
}

func TestStore_DatasetsRemoveSetPrice(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	mustAddOrg(t, s, "beta", "pro", 0)
	if all, err := s.Datasets(); err != nil || all != nil {
		t.Fatalf("Datasets on a new file = %v, %v; want none", all, err)
	}
	for _, id := range []string{"roads", "a-b", "a_b", "a"} {
		mustImport(t, s, state.Dataset{ID: id, Owner: "acme"}, []FrameRecord{{Frame: 3, Features: [][]byte{feature(id)}}})
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
	if _, err := s.SetPrice("roads", -1); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("SetPrice(-1) = %v, want ErrInvalid", err)
	}
	if _, err := s.SetPrice("nope", 1); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("SetPrice(nope) = %v, want ErrNotFound", err)
	}
	if _, err := s.Dataset("nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Dataset(nope) = %v, want ErrNotFound", err)
	}

	if _, err := s.GrantLicence("beta", "roads", state.LicencePerQuery, testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GrantLicence("beta", "a", state.LicenceSubscription, testNow); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("roads"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDataset("roads"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("second RemoveDataset = %v, want ErrNotFound", err)
	}
	if _, err := s.Dataset("roads"); !errors.Is(err, state.ErrNotFound) {
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
	if d := mustImport(t, s, state.Dataset{ID: "roads", Owner: "beta"}, nil); d.Version != 1 {
		t.Errorf("re-created dataset has version %d, want 1", d.Version)
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
			if !errors.Is(err, state.ErrCorrupt) {
				t.Fatalf("Dataset error = %v, want ErrCorrupt", err)
			}
			assertErrText(t, err, tt.text)
			if _, err := s.Datasets(); !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("Datasets error = %v, want ErrCorrupt", err)
			}
		})
	}
}
