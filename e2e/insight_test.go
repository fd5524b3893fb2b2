package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"frameindex/grid"
)

type insightAnswer struct {
	Intent     string `json:"intent"`
	Headline   string `json:"headline"`
	Detail     string `json:"detail"`
	Confidence string `json:"confidence"`
	Engine     string `json:"engine"`
	Facets     []struct {
		Label, Value string
	} `json:"facets"`
	Table *struct {
		Columns []string   `json:"columns"`
		Rows    [][]string `json:"rows"`
	} `json:"table"`
	FollowUps []string                      `json:"followUps"`
	FrameIDs  []string                      `json:"frameIds"`
	Charged   []string                      `json:"charged"`
	LeftOut   []struct{ ID, Reason string } `json:"leftOut"`
}

func (s *server) ask(t *testing.T, key, body string) (insightAnswer, apiResponse) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+"/v1/frames/insight", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var r apiResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("insight: %d, not JSON: %s", res.StatusCode, raw)
	}
	r.Status, r.Header = res.StatusCode, res.Header
	var a insightAnswer
	if r.Status == 200 {
		if bytes.Contains(raw, []byte("null")) {
			t.Fatalf("insight answer holds a null: %s", raw)
		}
		json.Unmarshal(r.Data, &a)
	}
	return a, r
}

// TestE2E_Insight asks questions of the real binary and checks every figure
// against the stored values the data call returns for the same frames.
func TestE2E_Insight(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	var ids []string
	var csv strings.Builder
	csv.WriteString("frame_id,population_2020,building_count\n")
	for i := 0; i < 5; i++ {
		id := grid.CellID(row, col+i)
		ids = append(ids, strconv.FormatUint(id, 10))
		fmt.Fprintf(&csv, "%d,%d,%d\n", id, 1000*(i+1)+7, 200*(i+1))
	}
	pop := writeFile(t, dir, "pop.csv", csv.String())
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population",
		"--attr", "building_count:number:sum:buildings::Buildings")
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0")
	_, analyst := mintKey(t, data, "acme", "analyst")
	_, locality := mintKey(t, data, "acme", "locality")
	_, full := mintKey(t, data, "acme", "full")
	frameIDs, _ := json.Marshal(ids)

	// The stored values, read through the data call.
	d, _ := srv.data(t, full, strings.Join(ids, ","))
	total := 0.0
	for _, f := range d.Frames {
		for _, ds := range f.Datasets {
			total += ds.Attributes["population_2020"].(float64)
		}
	}

	t.Run("one measure", func(t *testing.T) {
		a, r := srv.ask(t, analyst, `{"frameIds":`+string(frameIDs)+`,"question":"What is the total population_2020?"}`)
		if r.Status != 200 || a.Intent != "frames_attribute" || a.Confidence != "exact" || a.Engine != "deterministic" {
			t.Fatalf("%d %+v", r.Status, a)
		}
		want := strconv.FormatFloat(total, 'f', 0, 64)
		want = want[:len(want)-3] + "," + want[len(want)-3:] // 15,035
		if !strings.Contains(a.Headline, want) {
			t.Fatalf("headline %q does not hold the total %s", a.Headline, want)
		}
	})
	t.Run("profile", func(t *testing.T) {
		a, r := srv.ask(t, analyst, `{"frameIds":`+string(frameIDs)+`}`)
		if r.Status != 200 || a.Intent != "frames" || len(a.Facets) == 0 || a.Facets[0].Label != "Areas selected" || a.Facets[0].Value != "5" {
			t.Fatalf("%d %+v", r.Status, a)
		}
		if a.Table == nil || strings.Join(a.Table.Columns, "|") != "Dataset|In selection|In dataset" {
			t.Fatalf("table %+v", a.Table)
		}
	})
	t.Run("partial match and unknown ids", func(t *testing.T) {
		a, _ := srv.ask(t, analyst, `{"frameIds":["`+ids[0]+`","12"],"question":"how many people live here"}`)
		if a.Confidence != "partial" || !strings.Contains(a.Headline+a.Detail, "not found") {
			t.Fatalf("%+v", a)
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, r := srv.ask(t, locality, `{"frameIds":["1"]}`)
		wantError(t, r, 403, "insufficient_scope")
		_, r = srv.ask(t, analyst, `{"frameIds":["1"],"colour":"red"}`)
		wantError(t, r, 400, "invalid_body")
		_, r = srv.ask(t, analyst, `{"frameIds":[]}`)
		wantError(t, r, 400, "invalid")
		_, r = srv.ask(t, analyst, `{"frameIds":["1"],"question":"`+strings.Repeat("é", 1001)+`"}`)
		wantError(t, r, 400, "too_long")
		_, r = srv.ask(t, analyst, `{"frameIds":["1"],"format":"poem"}`)
		wantError(t, r, 400, "invalid")
	})
	t.Run("the insight bucket", func(t *testing.T) {
		_, key := mintKey(t, data, "acme", "full")
		for i := 1; i <= 30; i++ {
			if _, r := srv.ask(t, key, `{"frameIds":["`+ids[0]+`"]}`); r.Status != 200 {
				t.Fatalf("question %d: %d", i, r.Status)
			}
		}
		_, r := srv.ask(t, key, `{"frameIds":["`+ids[0]+`"]}`)
		wantError(t, r, 429, "rate_limited")
		// The key's other calls still have their own budget.
		if r := srv.get(t, key, "/v1/frames/at?lat=9.05&lon=7.45"); r.Status != 200 {
			t.Fatalf("frames/at after the insight bucket ran out: %d", r.Status)
		}
	})
}
