package console

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"frameindex/enrich"
)

// TestEnrichJobs_Limits: one running job per organisation, a bounded
// table, finished jobs expire with their files, and a job is only its
// organisation's.
func TestEnrichJobs_Limits(t *testing.T) {
	var jobs enrichJobs
	now := fixtureStart
	a, err := jobs.add("acme", "olu", "sites.csv", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.add("acme", "ada", "more.csv", now); err == nil || !strings.Contains(err.Error(), "one enrichment runs at a time") {
		t.Errorf("a second running job of acme: %v", err)
	}
	if jobs.get(a.id, "rival", now) != nil {
		t.Error("rival sees acme's job")
	}
	// Finished, the organisation may start another.
	a.mu.Lock()
	a.state, a.finished = jobReady, now
	a.mu.Unlock()
	b, err := jobs.add("acme", "ada", "more.csv", now)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.state, b.finished = jobFailed, now
	b.mu.Unlock()
	// The table is bounded.
	for i := len(jobs.jobs); i < maxEnrichJobs; i++ {
		j, err := jobs.add("org"+string(rune('a'+i)), "u", "s.csv", now)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { jobs.remove(j) })
	}
	if _, err := jobs.add("rival", "rivo", "s.csv", now); err == nil || !strings.Contains(err.Error(), "its most") {
		t.Errorf("a full table: %v", err)
	}
	// An hour after they finished, a and b are gone with their files.
	later := now.Add(enrichKeep + time.Minute)
	if jobs.get(a.id, "acme", later) != nil || jobs.get(b.id, "acme", later) != nil {
		t.Error("finished jobs outlived enrichKeep")
	}
	if _, err := os.Stat(a.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the expired job's folder: %v", err)
	}
	c, err := jobs.add("rival", "rivo", "s.csv", later)
	if err != nil {
		t.Fatalf("after expiry there is room: %v", err)
	}
	jobs.remove(c)
}

// TestEnrichUpload_Refusals: over HTTP, a file over the cap, a format
// that is not a site file, a bad radius, and another organisation's job.
func TestEnrichUpload_Refusals(t *testing.T) {
	built := 0
	f := newFixture(t, false, Config{Enrich: func(enrich.Config) (*enrich.Engine, error) {
		built++
		return nil, &enrich.Error{Code: enrich.CodeInvalid, Message: "measure population_2020: no dataset you may read records it as a number"}
	}})
	olu := f.signedIn("olu")
	tok := olu.csrf("/console/enrich")
	upload := func(c *client, query string, body []byte) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/console/enrich/jobs?"+query, bytes.NewReader(body))
		req.Header.Set("Content-Type", uploadType)
		req.Header.Set("X-CSRF-Token", tok)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		return c.do(req)
	}
	for _, c := range []struct {
		query  string
		body   []byte
		status int
		want   string
	}{
		{"name=sites.csv", bytes.Repeat([]byte("x"), maxEnrichUpload+1), http.StatusRequestEntityTooLarge, "over 32 MiB"},
		{"name=sites.xlsx", []byte("lon,lat\n"), http.StatusBadRequest, "must be .csv"},
		{"name=sites.csv&radius=two", []byte("lon,lat\n"), http.StatusBadRequest, `radius \"two\" is not a number`},
		{"name=sites.csv", nil, http.StatusBadRequest, "empty"},
		{"name=sites.csv", []byte("name,lon,lat\na,8,12\n"), http.StatusBadRequest, "measure population_2020"},
	} {
		res, body := upload(olu, c.query, c.body)
		if res.StatusCode != c.status || !strings.Contains(body, `"code":"invalid"`) || !strings.Contains(body, c.want) {
			t.Errorf("%s (%d bytes): %d %s, want %d %q", c.query, len(c.body), res.StatusCode, body, c.status, c.want)
		}
	}
	if built != 1 {
		t.Errorf("the engine was built %d times, want once (the other uploads were refused before)", built)
	}
	// Refused jobs leave nothing behind.
	if n := len(f.con.enrichJobs.jobs); n != 0 {
		t.Errorf("%d jobs left in the table", n)
	}
	// Without the CSRF token nothing is taken.
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/console/enrich/jobs?name=s.csv", strings.NewReader("lon,lat\n8,12\n"))
	req.Header.Set("Content-Type", uploadType)
	if res, _ := olu.do(req); res.StatusCode != http.StatusForbidden {
		t.Errorf("an upload without the CSRF token: %d", res.StatusCode)
	}
	// Another organisation's job is not found.
	j, err := f.con.enrichJobs.add("acme", "olu", "s.csv", fixtureStart)
	if err != nil {
		t.Fatal(err)
	}
	rivo := f.signedIn("rivo")
	if res, body := rivo.get("/console/enrich/jobs/" + j.id); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "not_found") {
		t.Errorf("rival reads acme's job: %d %s", res.StatusCode, body)
	}
	if res, _ := olu.get("/console/enrich/jobs/" + j.id + "/download"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("downloading a running job: %d", res.StatusCode)
	}
	f.con.enrichJobs.remove(j)
}
