package bolt_test

import (
	"fmt"
	"log"
	"time"

	"frameindex/bolt"
	"frameindex/state"
)

// Import a dataset, license it per query to another organisation, and
// answer one data call for that organisation's key, as the handler does:
// Readable, ReadFrames, then Charge for the per-query datasets that
// contributed.
func ExampleStore_ImportDataset() {
	s, done := exampleStore()
	defer done()

	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"census", "lagos-gis"} {
		if _, err := s.AddOrg(state.Org{ID: id}); err != nil {
			log.Fatal(err)
		}
	}
	if _, _, err := s.AddCredits("lagos-gis", 1, "trial credit", now); err != nil {
		log.Fatal(err)
	}
	d, err := s.ImportDataset(state.Dataset{
		ID: "population", Name: "Estimated population", Owner: "census", Price: 1,
		Attributes: []state.Attribute{{Name: "population_2020", Label: "Estimated population", Type: state.TypeNumber, Aggregation: state.AggSum, Year: 2020}},
	}, []bolt.FrameRecord{
		{Frame: 433102008, Attrs: []byte(`{"population_2020":1234.5}`)},
		{Frame: 433102007, Attrs: []byte(`{"population_2020":88}`)},
	}, now)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s version %d: %d frames\n", d.ID, d.Version, d.Frames)
	if _, err := s.GrantLicence("lagos-gis", "population", state.LicencePerQuery, now); err != nil {
		log.Fatal(err)
	}

	key := state.Key{ID: "key_example", OrgID: "lagos-gis"}
	for _, request := range []string{"req-1", "req-2"} {
		access, err := s.Readable(key)
		if err != nil {
			log.Fatal(err)
		}
		fd, err := s.ReadFrames([]string{access[0].Dataset.ID}, []uint64{433102008, 1}, false, 200)
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range fd {
			for _, e := range f.Datasets {
				fmt.Printf("frame %d: %s %s\n", f.Frame, e.Dataset, e.Attrs)
			}
		}
		charged, leftOut, err := s.Charge(key.OrgID, key.ID, request, []state.DatasetPrice{{ID: "population", Price: access[0].Dataset.Price}}, now)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: charged %q, left out %q\n", request, charged, leftOut)
	}
	// Output:
	// population version 1: 2 frames
	// frame 433102008: population {"population_2020":1234.5}
	// req-1: charged ["population"], left out []
	// frame 433102008: population {"population_2020":1234.5}
	// req-2: charged [], left out ["population"]
}
