package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReportRequest_Flags(t *testing.T) {
	areas := map[string]reportFlags{
		`[{"place":"Dala","kind":"lga"}]`:                                       {area: askFlags{place: "Dala", kind: "lga"}},
		`[{"around":[8.52,12],"radiusKm":5}]`:                                   {area: askFlags{around: "8.52,12", radius: 5}},
		`[{"place":"Dala","kind":"lga"},{"place":"Fagge"},{"place":"Gwale"}]`:   {compare: "Dala:lga, Fagge,Gwale"},
		`[{"around":[8.5,12],"radiusKm":2},{"around":[8.6,11.9],"radiusKm":2}]`: {compareAround: "8.5,12;8.6,11.9", area: askFlags{radius: 2}},
	}
	for want, f := range areas {
		req, err := reportRequest(f)
		if err != nil {
			t.Errorf("%+v: %v", f, err)
			continue
		}
		if b, _ := json.Marshal(req.Areas); string(b) != want {
			t.Errorf("%+v: areas %s, want %s", f, b, want)
		}
	}
	refused := map[string]reportFlags{
		"give one area (":                 {area: askFlags{place: "Dala"}, compare: "A,B"},
		"2 to 20 areas; 1 were given":     {compare: "Dala"},
		"2 to 20 areas; 21 were given":    {compare: strings.Repeat("A,", 21)},
		"--compare-around needs --radius": {compareAround: "8.5,12;8.6,11.9"},
		"give 2 comma-separated numbers":  {compareAround: "8.5;8.6,11.9", area: askFlags{radius: 2}},
	}
	for msg, f := range refused {
		if _, err := reportRequest(f); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%+v: %v, want an error saying %q", f, err, msg)
		}
	}
	if _, err := reportRequest(reportFlags{}); err == nil {
		t.Error("no area at all was accepted")
	}
}
