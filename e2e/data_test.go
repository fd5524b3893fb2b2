package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"frameindex/grid"
)

// dataAnswer is the data of GET /v1/frames/data.
type dataAnswer struct {
	Frames []struct {
		ID       string    `json:"id"`
		BBox     []float64 `json:"bbox"`
		Datasets []struct {
			ID         string         `json:"id"`
			Name       string         `json:"name"`
			Attributes map[string]any `json:"attributes"`
			Features   *struct {
				Features []json.RawMessage `json:"features"`
			} `json:"features"`
			FeatureCount      int  `json:"featureCount"`
			FeaturesTruncated bool `json:"featuresTruncated"`
		} `json:"datasets"`
	} `json:"frames"`
	Charged []string `json:"charged"`
	LeftOut []struct {
		ID, Name, Reason string
	} `json:"leftOut"`
}

func (s *server) data(t *testing.T, key, ids string) (dataAnswer, apiResponse) {
	t.Helper()
	r := s.get(t, key, "/v1/frames/data?ids="+ids)
	var a dataAnswer
	if r.Status == 200 {
		if err := json.Unmarshal(r.Data, &a); err != nil {
			t.Fatalf("data: %v\n%s", err, r.Data)
		}
	}
	return a, r
}

func datasetIDs(a dataAnswer, frame int) []string {
	var ids []string
	for _, d := range a.Frames[frame].Datasets {
		ids = append(ids, d.ID)
	}
	return ids
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestE2E_DataCall: two organisations, private and licensed datasets, a
// narrowed key, the feature cap, per-query charges and a re-import while
// the server runs — all from the outside, against the real binary.
func TestE2E_DataCall(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	for _, org := range []string{"acme", "rival"} {
		mustCLI(t, "org", "add", org, "--data", data)
	}
	row, col := grid.CellAt(9.05, 7.45)
	f1, f2 := grid.CellID(row, col), grid.CellID(row, col+1)
	ids := fmt.Sprintf("%d,%d,12,%d", f1, f2, f1)

	// acme's private population; rival's private secrets; rival's roads,
	// licensed to acme per query at 2 credits.
	pop := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,population_2020\n%d,1200\n%d,35.5\n", f1, f2))
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	sec := writeFile(t, dir, "secret.csv", fmt.Sprintf("frame_id,code\n%d,RIVAL-ONLY\n", f1))
	mustCLI(t, "import", "--data", data, "--dataset", "secrets", "--owner", "rival", "--csv", sec, "--attr", "code:text")
	var feats []string
	for i := 0; i < 250; i++ {
		feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"n":%d},"geometry":{"type":"Point","coordinates":[%.6f,%.6f]}}`,
			i, grid.Lon(col)+0.0001+float64(i)*0.00001, grid.Lat(row)-0.004))
	}
	roads := writeFile(t, dir, "roads.geojson", `{"type":"FeatureCollection","features":[`+strings.Join(feats, ",")+`]}`)
	mustCLI(t, "import", "--data", data, "--dataset", "roads", "--owner", "rival", "--features", roads, "--price", "2")
	mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "roads", "--mode", "per_query")
	mustCLI(t, "org", "credits", "acme", "--add", "5", "--note", "test credit", "--data", data)

	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0")
	_, acmeFull := mintKey(t, data, "acme", "full")
	_, rivalFull := mintKey(t, data, "rival", "full")
	var m struct{ Secret string }
	json.Unmarshal([]byte(mustCLI(t, "key", "mint", "--data", data, "--org", "acme", "--preset", "analyst", "--datasets", "population", "--json")), &m)
	narrow := m.Secret

	t.Run("isolation and licences", func(t *testing.T) {
		a, r := srv.data(t, acmeFull, ids)
		if r.Status != 200 || len(a.Frames) != 3 {
			t.Fatalf("%d %s", r.Status, r.Data)
		}
		if got := strings.Join(datasetIDs(a, 0), ","); got != "population,roads" {
			t.Fatalf("acme reads %s on frame 1", got)
		}
		if a.Frames[0].Datasets[0].Attributes["population_2020"] != 1200.0 || a.Frames[1].Datasets[0].Attributes["population_2020"] != 35.5 {
			t.Fatalf("attributes %v", a.Frames[0].Datasets[0].Attributes)
		}
		if a.Frames[2].ID != "12" || a.Frames[2].BBox != nil || len(a.Frames[2].Datasets) != 0 {
			t.Fatalf("unknown id: %+v", a.Frames[2])
		}
		roads := a.Frames[0].Datasets[1]
		if roads.FeatureCount != 250 || roads.Features == nil || len(roads.Features.Features) != 200 || !roads.FeaturesTruncated {
			t.Fatalf("feature cap: count %d, %v features, truncated %v", roads.FeatureCount, roads.Features != nil, roads.FeaturesTruncated)
		}
		if len(a.Charged) != 1 || a.Charged[0] != "roads" {
			t.Fatalf("charged %v", a.Charged)
		}
		b, _ := srv.data(t, rivalFull, ids)
		if got := strings.Join(datasetIDs(b, 0), ","); got != "roads,secrets" {
			t.Fatalf("rival reads %s", got)
		}
		if len(b.Charged) != 0 {
			t.Fatal("an owner was charged for its own dataset")
		}
		if strings.Contains(string(r.Data), "RIVAL-ONLY") {
			t.Fatal("acme saw rival's private dataset")
		}
	})
	t.Run("narrowed key without feature.read", func(t *testing.T) {
		a, r := srv.data(t, narrow, ids)
		if r.Status != 200 || strings.Join(datasetIDs(a, 0), ",") != "population" || strings.Contains(string(r.Data), `"features"`) {
			t.Fatalf("narrowed key: %s", r.Data)
		}
	})
	t.Run("charges until the credits run out", func(t *testing.T) {
		// 5 credits, 2 a request: the first call took 2, this one 2, then 1 is left.
		a, _ := srv.data(t, acmeFull, ids)
		if len(a.Charged) != 1 {
			t.Fatalf("second call charged %v", a.Charged)
		}
		a, r := srv.data(t, acmeFull, ids)
		if len(a.Charged) != 0 || len(a.LeftOut) != 1 || a.LeftOut[0].ID != "roads" || a.LeftOut[0].Reason != "insufficient_credits" {
			t.Fatalf("third call: %s", r.Data)
		}
		if got := strings.Join(datasetIDs(a, 0), ","); got != "population" {
			t.Fatalf("left-out dataset still answered: %s", got)
		}
		out := mustCLI(t, "usage", "--org", "acme", "--data", data)
		if !strings.Contains(out, "credit balance: 1") || !strings.Contains(out, "roads: 2 requests, 4 credits") {
			t.Fatalf("usage:\n%s", out)
		}
	})
	t.Run("50 parallel requests against credits for 10", func(t *testing.T) {
		mustCLI(t, "dataset", "price", "roads", "--credits", "1", "--data", data)
		// acme's licence keeps the 2 credits it was granted at; granted
		// again, it takes the new price.
		mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "roads", "--mode", "per_query")
		// The balance is 1 after the calls above; make it 10.
		mustCLI(t, "org", "credits", "acme", "--add", "9", "--note", "parallel test", "--data", data)
		_, key := mintKey(t, data, "acme", "full")
		var wg sync.WaitGroup
		var mu sync.Mutex
		charged, leftOut := 0, 0
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, r := srv.data(t, key, fmt.Sprint(f1))
				mu.Lock()
				defer mu.Unlock()
				if r.Status != 200 {
					t.Errorf("status %d", r.Status)
				}
				charged += len(a.Charged)
				leftOut += len(a.LeftOut)
			}()
		}
		wg.Wait()
		if charged != 10 || leftOut != 40 {
			t.Fatalf("%d charged, %d left out; want 10 and 40", charged, leftOut)
		}
		if out := mustCLI(t, "org", "show", "acme", "--data", data); !strings.Contains(out, "credits: 0") {
			t.Fatalf("balance after the parallel run:\n%s", out)
		}
	})
	t.Run("re-import while serving", func(t *testing.T) {
		pop2 := writeFile(t, dir, "pop2.csv", fmt.Sprintf("frame_id,population_2020\n%d,999\n", f2))
		mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop2,
			"--attr", "population_2020:number:sum:people:2020:Estimated population")
		a, _ := srv.data(t, narrow, ids)
		if len(a.Frames[0].Datasets) != 0 || a.Frames[1].Datasets[0].Attributes["population_2020"] != 999.0 {
			t.Fatalf("after re-import: %+v", a.Frames[:2])
		}
	})
	t.Run("bad input", func(t *testing.T) {
		bad := writeFile(t, dir, "bad.csv", fmt.Sprintf("frame_id,population_2020\n%d,12\n%d,lots\n", f1, f2))
		_, errOut, code := cli(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", bad,
			"--attr", "population_2020:number:sum")
		if code == 0 || !strings.Contains(errOut, "bad.csv") || !strings.Contains(errOut, "line 3") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if _, r := srv.data(t, narrow, ids); !strings.Contains(string(r.Data), "999") {
			t.Fatal("a refused import changed what is served")
		}
		wantError(t, srv.get(t, acmeFull, "/v1/frames/data"), 400, "invalid")
		many := strings.Repeat("1,", 100) + "1"
		wantError(t, srv.get(t, acmeFull, "/v1/frames/data?ids="+many), 400, "invalid")
	})
}
