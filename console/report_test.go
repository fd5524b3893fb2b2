package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"frameindex/area"
	"frameindex/report"
)

func TestReportRequest(t *testing.T) {
	for _, c := range []struct {
		query string
		want  string // the request's areas as JSON, or the error's text
	}{
		{"place=Dala&kind=lga", `[{"place":"Dala","kind":"lga"}]`},
		{"bbox=8.45,11.95,8.6,12.05", `[{"bbox":[8.45,11.95,8.6,12.05]}]`},
		{"around=8.52,12&radius=5", `[{"around":[8.52,12],"radiusKm":5}]`},
		{"geometry=" + url.QueryEscape(`{"type":"Polygon","coordinates":[[[8.5,12],[8.56,12],[8.56,12.04],[8.5,12]]]}`), `[{"geometry":{"type":"Polygon","coordinates":[[[8.5,12],[8.56,12],[8.56,12.04],[8.5,12]]]}}]`},
		{"geometry=" + url.QueryEscape(`{"type":"Polygon"`), "it is not JSON"},
		{"frames=4411024,4411025", `[{}]`},
		{"frames=4411024,x", `"x" is not a frame id`},
		{"frames=" + strings.Repeat("1,", 50) + "1", "1 to 50 frames; the link names 51"},
		{"geometry=" + url.QueryEscape(`{"type":"Point","coordinates":[8.5,12]}`), "Polygon"},
		{"compare=Dala:lga, Fagge ,,Gwale", `[{"place":"Dala","kind":"lga"},{"place":"Fagge"},{"place":"Gwale"}]`},
		{"bbox=8.45,11.95", "bbox (minLon,minLat,maxLon,maxLat) must be 4 numbers"},
		{"around=8.5,x&radius=5", `"x" is not a number`},
		{"around=8.5,12", "around goes with radius"},
		{"compare=" + strings.Repeat("A,", 21), "2 to 20 places separated by commas; it names 21"},
	} {
		q, _ := url.ParseQuery(c.query)
		req, err := reportRequest(q)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			b, _ := json.Marshal(req.Areas)
			got = string(b)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %s, want %s", c.query, got, c.want)
		}
	}
}

// TestReportRequest_Frames: a selection's ids reach the area as frames.
func TestReportRequest_Frames(t *testing.T) {
	q, _ := url.ParseQuery("frames=4411024, 4411025")
	req, err := reportRequest(q)
	if err != nil || len(req.Areas) != 1 || !slices.Equal(req.Areas[0].Frames, []uint64{4411024, 4411025}) {
		t.Fatalf("%+v %v", req.Areas, err)
	}
}

// FuzzReportRequest: any query is read into areas or refused with an
// area error; never a panic.
func FuzzReportRequest(f *testing.F) {
	for _, s := range []string{"place=Dala&kind=lga", "bbox=1,2,3,4", "frames=1,2", "geometry=%7B%22type%22%3A%22Polygon%22%7D", "around=8,12&radius=5", "compare=a,b:lga", "around=1e999,2&radius=NaN", "bbox=,,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		req, err := reportRequest(q)
		var ae *area.Error
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("%q: %v is not an area error", raw, err)
		}
		for _, s := range req.Areas {
			b, err := json.Marshal(s)
			if err != nil {
				continue // a NaN bbox: refused when made
			}
			if _, err := area.Decode(b); err != nil && !errors.As(err, &ae) {
				t.Fatalf("%s: %v", b, err)
			}
		}
	})
}

// TestReport_Page: the report page is for signed-in people; without a
// report engine it says so; an area the question call would refuse is
// refused on the form with its message.
func TestReport_Page(t *testing.T) {
	f := newFixture(t, false, Config{})
	if res, _ := f.client().get("/console/report?place=Dala"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("signed out: %d, want a redirect to sign in", res.StatusCode)
	}
	res, body := f.signedIn("mo").get("/console/report?place=Dala")
	if res.StatusCode != 200 || !strings.Contains(body, "makes no reports") {
		t.Errorf("without reports: %d\n%s", res.StatusCode, body)
	}

	f = newFixture(t, false, Config{Reports: &report.Engine{}})
	c := f.signedIn("mo")
	res, body = c.get("/console/report")
	if res.StatusCode != 200 || !strings.Contains(body, `action="/console/report"`) {
		t.Errorf("the form: %d\n%s", res.StatusCode, body)
	}
	for query, want := range map[string]string{
		"around=8.5,12&radius=500": "area.radiusKm must be more than 0 and at most 100",
		"bbox=9,12,8,11":           "area.bbox must be",
		"compare=Dala":             "a comparison holds 2 to 20 places",
		"place=Dala&format=csv":    "CSV is for a comparison",
	} {
		res, body := c.get("/console/report?" + query)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("%s: %d, want 400 with %q\n%s", query, res.StatusCode, want, body)
		}
	}
}
