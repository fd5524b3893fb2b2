package e2e

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowser_EnrichJob: a member uploads 30,000 sites in the console,
// sees the job progress, is quoted the per-query charge of the licensed
// "lights" (3 credits for each ring that reads its frame), accepts it,
// downloads the result, and the balance shows the one charge. A measure
// the organisation cannot read is refused by name first.
func TestBrowser_EnrichJob(t *testing.T) {
	srv, data, _ := consoleServer(t)
	mustCLI(t, "org", "credits", "acme", "--add", "100000", "--note", "for enrichment", "--data", data)
	otp := addUser(t, data, "olu", "acme", "member")

	dir := t.TempDir()
	sites := filepath.Join(dir, "sites.csv")
	var b strings.Builder
	b.WriteString("name,lon,lat\n")
	rng := rand.New(rand.NewPCG(25, 25))
	// Enough sites that the job outlasts a few of the page's progress
	// updates (every 250 ms) on a quiet machine: 3,000 finished first.
	const n = 30000
	for i := range n {
		fmt.Fprintf(&b, "site %d,%.5f,%.5f\n", i, 7.42+rng.Float64()*0.11, 9.02+rng.Float64()*0.06)
	}
	if err := os.WriteFile(sites, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	br := newBrowser(t, srv.base)
	olu := br.person("olu")
	olu.signIn("olu", otp)
	olu.choosePassword(otp, "olu's own long password")
	olu.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/enrich"]`)))
	olu.waitPath("/console/enrich")
	if h := olu.text("#enrich-form p.hint"); !strings.Contains(h, "lights.radiance (per query)") {
		t.Errorf("readable measures: %q", h)
	}
	olu.checkAccessible("the enrichment page")

	// A measure the organisation does not read.
	olu.do(chromedp.SetUploadFiles(chromedp.CSS("#enrich-file"), []string{sites}),
		chromedp.SetValue(chromedp.CSS("#enrich-radius"), "2"),
		chromedp.SetValue(chromedp.CSS("#enrich-measures"), "population_2020"),
		chromedp.Click(chromedp.CSS(`#enrich-form button[type=submit]`)))
	olu.waitFor("the refusal", `!document.getElementById('enrich-error').hidden`, 20*time.Second)
	if e := run(olu, chromedp.Evaluate[string](`document.getElementById('enrich-error').textContent`)); !strings.Contains(e, "measure population_2020: no dataset you may read") {
		t.Errorf("unreadable measure: %q", e)
	}

	olu.do(chromedp.SetValue(chromedp.CSS("#enrich-measures"), "radiance"),
		chromedp.Click(chromedp.CSS(`#enrich-form button[type=submit]`)))
	// Progress: the state line shows a part of the sites before the end.
	seenPart := false
	deadline := time.Now().Add(120 * time.Second)
	for {
		if olu.has("#enrich-job:not([hidden])") {
			st := olu.text("#enrich-state")
			if strings.HasPrefix(st, "Enriching: ") && !strings.HasPrefix(st, "Enriching: 0 sites") {
				seenPart = true
			}
			if !strings.HasPrefix(st, "Enriching") && st != "" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job did not finish: %q", olu.text("#enrich-state"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	olu.shots("enrich-quoted")
	if !seenPart {
		t.Error("the page never showed the job part-way")
	}
	if st := olu.text("#enrich-state"); !strings.Contains(st, thousands(n)+" sites") {
		t.Errorf("state: %q", st)
	}
	quote := olu.text("#enrich-quote")
	olu.do(chromedp.Click(chromedp.CSS("#enrich-run")))
	olu.waitFor("the download link", `!document.getElementById('enrich-download').hidden`, 20*time.Second)
	body := run(olu, chromedp.Evaluate[string](`fetch(document.getElementById('enrich-download').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != n+1 {
		t.Fatalf("the result: %d rows, %v\n%.500s", len(rows), err, body)
	}
	if strings.Join(rows[0], ",") != "name,lon,lat,radiance_2km,enrich_note" {
		t.Fatalf("header %v", rows[0])
	}
	reads := 0
	for _, r := range rows[1:] {
		if r[3] != "" {
			// The weighted mean of one frame: 12.5 to float64 rounding.
			if v, err := strconv.ParseFloat(r[3], 64); err != nil || math.Abs(v-12.5) > 1e-9 {
				t.Fatalf("row %v: radiance is recorded as 12.5 on its one frame", r)
			}
			reads++
		}
	}
	if reads == 0 || reads == n {
		t.Fatalf("%d of %d rings read the lights frame; the sites should fall on both sides", reads, n)
	}
	want := 3 * reads
	if !strings.Contains(quote, fmt.Sprintf("lights %s credits", thousands(float64(want)))) {
		t.Errorf("quote %q, want lights %d credits", quote, want)
	}
	// Downloaded once: the job is gone.
	again := run(olu, chromedp.Evaluate[int](`fetch(document.getElementById('enrich-download').href).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if again != 404 {
		t.Errorf("a second download: status %d, want 404", again)
	}
	olu.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/usage"]`)))
	olu.waitPath("/console/usage")
	if bal := olu.text("#h-credits + p.big"); !strings.HasPrefix(bal, thousands(float64(100020-want))) {
		t.Errorf("balance %q, want %d (100,020 granted, %d charged once)", bal, 100020-want, want)
	}
}
