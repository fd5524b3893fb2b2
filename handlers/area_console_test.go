package handlers

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// consoleCall runs one of the console's area calls with body on behalf of
// the fixture's key.
func (f *areaFixture) consoleCall(call func(*Server, http.ResponseWriter, *http.Request, state.Key), body string) (int, json.RawMessage, apiErrorBody) {
	r := httptest.NewRequest(http.MethodPost, "/v1/frames/insight", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	call(f.srv, w, r, state.Key{ID: "key_area", OrgID: "o", Caps: []state.Capability{state.CapAskQuery, state.CapFrameRead}, Expires: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error apiErrorBody    `json:"error"`
	}
	json.Unmarshal(w.Body.Bytes(), &env)
	return w.Code, env.Data, env.Error
}

type apiErrorBody struct{ Code, Message string }

// TestServer_AreaQuote: the quote names the per-query datasets the answer
// would use, with access.Price's credits for the frames of the area each
// records something on, and charges nothing; the question then charges
// what was quoted.
func TestServer_AreaQuote(t *testing.T) {
	f := newAreaFixture(t)
	var q struct {
		Area struct {
			Name       string `json:"name"`
			FrameCount int    `json:"frameCount"`
		} `json:"area"`
		Reads []struct {
			Dataset, Name string
			Frames        int
			Credits       int64
		} `json:"reads"`
		Credits int64 `json:"credits"`
	}
	code, data, e := f.consoleCall((*Server).ServeAreaQuote, `{"area":{"place":"Alpha"},"question":"mean radiance"}`)
	if code != 200 || json.Unmarshal(data, &q) != nil {
		t.Fatalf("quote: %d %+v", code, e)
	}
	// Alpha is 200 frames, each lit: 2 started hundreds at 1 credit.
	if q.Area.Name != "Alpha" || q.Area.FrameCount != 200 || len(q.Reads) != 1 || q.Reads[0].Dataset != "lights" ||
		q.Reads[0].Name != "Night lights" || q.Reads[0].Frames != 200 || q.Reads[0].Credits != 2 || q.Credits != 2 {
		t.Errorf("quote: %s", data)
	}
	if o, _ := f.store.Org("o"); o.Credits != 10 {
		t.Errorf("the quote spent credits: %d left of 10", o.Credits)
	}
	d := f.ask(t, `{"area":{"place":"Alpha"},"question":"mean radiance"}`)
	if o, _ := f.store.Org("o"); len(d.Charged) != 1 || o.Credits != 8 {
		t.Errorf("the question charged %v, %d credits left of 10; the quote said 2", d.Charged, o.Credits)
	}
	// A question that reads nothing per query costs nothing.
	if code, data, _ = f.consoleCall((*Server).ServeAreaQuote, `{"area":{"place":"Beta"},"question":"How many people live here?"}`); code != 200 ||
		json.Unmarshal(data, &q) != nil || q.Credits != 0 || len(q.Reads) != 0 {
		t.Errorf("population quote: %d %s", code, data)
	}
	// Errors are the question's.
	for body, want := range map[string]string{
		`{"frameIds":["1"]}`:                              "invalid",
		`{"area":{"place":"Nowhere"},"question":"x"}`:     "not_found",
		`{"area":{"place":"Alpha"},"question":"x","z":1}`: "invalid_body",
	} {
		if code, _, e := f.consoleCall((*Server).ServeAreaQuote, body); e.Code != want || code < 400 {
			t.Errorf("%s: %d %+v, want %s", body, code, e, want)
		}
	}
}

// TestServer_AreaBeyond: the frames of a coverage question's area farther
// than its distance from the nearest feature, worked out here by
// haversine from one clinic, with their boxes.
func TestServer_AreaBeyond(t *testing.T) {
	f := newAreaFixture(t)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	id0 := f.ix.IDAt(0)
	row, col, _ := grid.RowCol(id0)
	b0 := grid.CellBox(row, col)
	lon, lat := (b0.MinLon+b0.MaxLon)/2, (b0.MinLat+b0.MaxLat)/2
	feature := fmt.Appendf(nil, `{"type":"Feature","geometry":{"type":"Point","coordinates":[%.7f,%.7f]},"properties":{"name":"Clinic"}}`, lon, lat)
	if _, err := f.store.ImportDataset(state.Dataset{ID: "health", Name: "Health facilities", Owner: "o"},
		[]bolt.FrameRecord{{Frame: id0, Features: [][]byte{feature}}}, now); err != nil {
		t.Fatal(err)
	}
	want := map[[4]float64]bool{}
	for p := 0; p < f.ix.Len(); p++ {
		r, c, _ := grid.RowCol(f.ix.IDAt(p))
		b := grid.CellBox(r, c)
		if haversineKm(lon, lat, (b.MinLon+b.MaxLon)/2, (b.MinLat+b.MaxLat)/2) > 5 {
			want[[4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}] = true
		}
	}
	if len(want) == 0 || len(want) == f.ix.Len() {
		t.Fatalf("%d of %d frames beyond 5 km: move the clinic", len(want), f.ix.Len())
	}
	var got struct {
		Feature   string
		Km        float64
		Frames    int
		Truncated bool
		Boxes     [][4]float64
	}
	code, data, e := f.consoleCall((*Server).ServeAreaBeyond, `{"area":{"place":"Gamma","kind":"state"},"question":"How many people live more than 5 km from a health facility?"}`)
	if code != 200 || json.Unmarshal(data, &got) != nil {
		t.Fatalf("beyond: %d %+v", code, e)
	}
	if got.Feature != "health" || got.Km != 5 || got.Frames != len(want) || len(got.Boxes) != len(want) || got.Truncated {
		t.Errorf("beyond: %s frames %d boxes %d; want %d", got.Feature, got.Frames, len(got.Boxes), len(want))
	}
	for _, b := range got.Boxes {
		if !want[b] {
			t.Errorf("box %v is not of a frame beyond 5 km", b)
			break
		}
	}
	// No distance asked: nothing to highlight.
	if code, _, e := f.consoleCall((*Server).ServeAreaBeyond, `{"area":{"place":"Gamma","kind":"state"},"question":"How many people live here?"}`); code != 400 || e.Code != "invalid" {
		t.Errorf("no distance: %d %+v", code, e)
	}
}

func haversineKm(lon1, lat1, lon2, lat2 float64) float64 {
	p1, p2 := lat1*math.Pi/180, lat2*math.Pi/180
	h := math.Pow(math.Sin((p2-p1)/2), 2) + math.Cos(p1)*math.Cos(p2)*math.Pow(math.Sin((lon2-lon1)*math.Pi/360), 2)
	return 2 * 6371.0088 * math.Asin(math.Sqrt(h))
}
