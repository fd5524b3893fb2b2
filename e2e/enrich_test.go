package e2e

// Batch enrichment (issue 25, part 4) of the 4,385 real OpenStreetMap
// health facilities of ../shared/data/nga at 2, 5 and 10 km: every row's
// population must be the question call's answer about the same ring, asked
// of a started server.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestE2E_EnrichRingsEqualQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	nga := ngaDir(t)
	sites := filepath.Join(nga, "nga_health_facilities_osm.geojson")
	data := filepath.Join(t.TempDir(), "demo.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0")
	srv.stop(t, syscall.SIGINT)

	out := filepath.Join(t.TempDir(), "enriched.csv")
	stdout := mustCLI(t, "enrich", "--data", data, "--in", sites, "--radius", "2,5,10",
		"--measures", "population_2020,building_count", "--out", out)
	if !strings.Contains(stdout, "4385 sites enriched (3 rings, 2 measures, distance to health)") {
		t.Fatalf("enrich printed %q", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4386 {
		t.Fatalf("%d rows, want a header and 4,385 sites", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"osm_id", "lon", "lat", "population_2020_2km", "population_2020_5km", "population_2020_10km",
		"building_count_10km", "nearest_health_km", "enrich_note"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("no column %s in %v", h, rows[0])
		}
	}

	// Polygon sites: three LGAs of Kano, each enriched over itself.
	var lgas struct {
		Type     string            `json:"type"`
		Features []json.RawMessage `json:"features"`
	}
	raw, err := os.ReadFile(filepath.Join(nga, "nga_lgas.geojson"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &lgas); err != nil {
		t.Fatal(err)
	}
	var picked []json.RawMessage
	for _, f := range lgas.Features {
		for _, name := range []string{`"lga_name": "Dala"`, `"lga_name": "Fagge"`, `"lga_name": "Gwale"`} {
			if strings.Contains(string(f), name) || strings.Contains(string(f), strings.ReplaceAll(name, " ", "")) {
				picked = append(picked, f)
			}
		}
	}
	if len(picked) != 3 {
		t.Fatalf("found %d of the three LGAs", len(picked))
	}
	polyIn := filepath.Join(t.TempDir(), "lgas.geojson")
	fc, _ := json.Marshal(map[string]any{"type": "FeatureCollection", "features": picked})
	if err := os.WriteFile(polyIn, fc, 0o644); err != nil {
		t.Fatal(err)
	}
	polyOut := filepath.Join(t.TempDir(), "lgas-enriched.geojson")
	mustCLI(t, "enrich", "--data", data, "--in", polyIn, "--radius", "2", "--measures", "population_2020", "--out", polyOut)
	var enriched struct {
		Features []struct {
			Geometry   json.RawMessage `json:"geometry"`
			Properties map[string]any  `json:"properties"`
		} `json:"features"`
	}
	if raw, err = os.ReadFile(polyOut); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &enriched); err != nil || len(enriched.Features) != 3 {
		t.Fatalf("the enriched LGAs: %v, %d features", err, len(enriched.Features))
	}

	// A measure the organisation cannot read is refused by name.
	mustCLI(t, "org", "add", "other", "--name", "Other", "--data", data)
	o, e, code := cli(t, "enrich", "--data", data, "--org", "other", "--in", sites, "--radius", "2",
		"--measures", "population_2020", "--out", filepath.Join(t.TempDir(), "x.csv"))
	if code == 0 || !strings.Contains(e, "population_2020") || !strings.Contains(e, "no dataset you may read") {
		t.Fatalf("enrich as an organisation that reads nothing: exit %d\nstdout: %s\nstderr: %s", code, o, e)
	}

	var key struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "key", "mint", "--data", data, "--org", "demo", "--preset", "full", "--json")), &key); err != nil {
		t.Fatal(err)
	}
	srv = startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0",
		"--limit-insight-burst", "0", "--limit-key-burst", "0", "--limit-org-burst", "0")

	for _, f := range enriched.Features {
		got, _ := f.Properties["population_2020_site"].(float64)
		if ring := f.Properties["population_2020_2km"]; ring != nil {
			t.Errorf("%v: a polygon site has ring figures: %v", f.Properties["lga_name"], ring)
		}
		status, value, msg, err := askValue(srv.base, key.Secret, `{"area":{"geometry":`+string(f.Geometry)+`},"question":"total population"}`)
		if err != nil || status != 200 || value == nil || *value != got || got <= 0 {
			t.Errorf("%v: the row's population %v, the question call's %v (status %d %s %v)", f.Properties["lga_name"], got, value, status, msg, err)
		}
	}

	type check struct {
		row    int
		radius string
	}
	jobs := make(chan check)
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	asked := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				row := rows[c.row]
				got := row[col["population_2020_"+c.radius+"km"]]
				body := fmt.Sprintf(`{"area":{"around":[%s,%s],"radiusKm":%s},"question":"total population"}`,
					row[col["lon"]], row[col["lat"]], c.radius)
				status, value, msg, err := askValue(srv.base, key.Secret, body)
				switch {
				case err != nil:
					fail("site %s: %v", row[col["osm_id"]], err)
				case status == 404:
					// The ring lies off the grid: the row says so and has no figure.
					if got != "" || !strings.Contains(row[col["enrich_note"]], "the "+c.radius+" km ring covers no frame") {
						fail("site %s at %s km: the question call found no frame (%s), the row has %q, note %q", row[col["osm_id"]], c.radius, msg, got, row[col["enrich_note"]])
					}
				case status != 200:
					fail("site %s at %s km: status %d: %s", row[col["osm_id"]], c.radius, status, msg)
				case value == nil:
					if got != "" {
						fail("site %s at %s km: the answer has no value, the row %q", row[col["osm_id"]], c.radius, got)
					}
				default:
					v, err := strconv.ParseFloat(got, 64)
					if err != nil || v != *value {
						fail("site %s at %s km: row %q, question call %v", row[col["osm_id"]], c.radius, got, *value)
					}
				}
			}
		}()
	}
	for i := 1; i < len(rows); i++ {
		if rows[i][col["lon"]] == "" {
			t.Errorf("site %s has no point: %q", rows[i][col["osm_id"]], rows[i][col["enrich_note"]])
			continue
		}
		if d := rows[i][col["nearest_health_km"]]; d == "" {
			t.Errorf("site %s: no distance to the nearest facility", rows[i][col["osm_id"]])
		}
		for _, r := range []string{"2", "5", "10"} {
			jobs <- check{i, r}
			asked++
		}
	}
	close(jobs)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if asked != 3*4385 {
		t.Fatalf("asked %d questions, want %d", asked, 3*4385)
	}
}

// askValue asks a question and returns the status, the answer's
// result.value and an error's message.
func askValue(base, key, body string) (int, *float64, string, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/v1/frames/insight", bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, "", err
	}
	var env struct {
		Data *struct {
			Result struct {
				Value *float64 `json:"value"`
			} `json:"result"`
		} `json:"data"`
		Error *struct {
			Code, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return res.StatusCode, nil, "", fmt.Errorf("status %d, not JSON: %v", res.StatusCode, err)
	}
	if env.Error != nil {
		return res.StatusCode, nil, env.Error.Code + ": " + env.Error.Message, nil
	}
	return res.StatusCode, env.Data.Result.Value, "", nil
}
