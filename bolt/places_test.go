package bolt

import (
	"slices"
	"testing"
	"time"

	"frameindex/state"
)

func TestStore_CategoryValues(t *testing.T) {
	s := MustOpenStore(t)
	mustAddOrg(t, s, "acme", "pro", 0)
	mustAddOrg(t, s, "other", "pro", 0)
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	admin := state.Dataset{ID: "admin", Owner: "acme", Attributes: []state.Attribute{
		{Name: "state", Label: "State", Type: state.TypeCategory},
		{Name: "lga", Label: "LGA", Type: state.TypeCategory},
		{Name: "code", Label: "Code", Type: state.TypeNumber, Aggregation: state.AggSum},
	}}
	_, err := s.ImportDataset(admin, []FrameRecord{
		{Frame: 1, Attrs: []byte(`{"state":"Kano","lga":"Kano Municipal","code":1}`)},
		{Frame: 2, Attrs: []byte(`{"state":"Kano","lga":"Dala"}`)},
		{Frame: 3, Attrs: []byte(`{"state":"Lagos"}`)},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	// Another organisation's dataset counts too: the list only rejects
	// wording, it is never shown.
	_, err = s.ImportDataset(state.Dataset{ID: "zones", Owner: "other", Attributes: []state.Attribute{{Name: "state", Label: "State", Type: state.TypeText}}},
		[]FrameRecord{{Frame: 9, Attrs: []byte(`{"state":"Kaduna"}`)}}, now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.CategoryValues([]string{"state", "lga", "ward"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Dala", "Kaduna", "Kano", "Kano Municipal", "Lagos"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, _ := s.CategoryValues([]string{"code"}); len(got) != 0 {
		t.Fatalf("a number attribute gave names %q", got)
	}
}
