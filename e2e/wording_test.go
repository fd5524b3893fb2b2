package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/narrate/ollamatest"
)

// TestE2E_Wording runs the real binary against an Ollama stand-in that
// speaks the real /api/chat protocol.
func TestE2E_Wording(t *testing.T) {
	model := ollamatest.NewServer()
	defer model.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data) // plan trial: 100 worded answers a month
	row, col := grid.CellAt(9.05, 7.45)
	id1, id2 := grid.CellID(row, col), grid.CellID(row, col+1)
	pop := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,population_2020\n%d,12000\n%d,345\n", id1, id2))
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	states := writeFile(t, dir, "states.csv", fmt.Sprintf("frame_id,state\n%d,Kano\n%d,Kaduna\n", id1, id2+5))
	mustCLI(t, "import", "--data", data, "--dataset", "admin", "--owner", "acme", "--csv", states, "--attr", "state:category")
	flags := []string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--ollama-host", model.URL(), "--model", ollamatest.DefaultModel,
		"--limit-insight-burst", "0", "--limit-key-burst", "100000", "--limit-key-rate", "600000"}
	srv := startServer(t, flags...)
	// The log is flushed every 200 ms; place names load in the background.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(srv.stderr.String(), "place names loaded"); {
		if time.Now().After(deadline) {
			t.Fatalf("the server does not report the model and its place names:\n%s", srv.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(srv.stderr.String(), "model ready") {
		t.Fatalf("no model ready line:\n%s", srv.stderr)
	}
	_, key := mintKey(t, data, "acme", "analyst")
	body := fmt.Sprintf(`{"frameIds":["%d","%d"],"question":"total population"}`, id1, id2)

	model.SetReply("About 12,000 people live in the 2 selected frames (2020).")
	a, r := srv.ask(t, key, body)
	if r.Status != 200 || a.Engine != "llm" || !strings.Contains(string(r.Data), `"narrative":"About 12,000`) ||
		!strings.Contains(string(r.Data), `"model":"`+ollamatest.DefaultModel+`"`) {
		t.Fatalf("kept wording: %d %s", r.Status, r.Data)
	}
	model.SetReply("About 13,500 people live in the 2 selected frames.")
	if a, r := srv.ask(t, key, body); a.Engine != "deterministic" || strings.Contains(string(r.Data), "narrative") {
		t.Fatalf("a wrong number was not discarded: %s", r.Data)
	}
	model.SetReply("About 12,000 people live in the 2 selected frames of Kaduna.")
	if a, r := srv.ask(t, key, body); a.Engine != "deterministic" {
		t.Fatalf("an invented place name was not discarded: %s", r.Data)
	}
	model.SetReply("Roughly 12,345 people (2020).")
	model.SetFail(500, "out of memory")
	if a, _ := srv.ask(t, key, body); a.Engine != "deterministic" {
		t.Fatal("a failing model gave a worded answer")
	}
	model.SetFail(0, "")

	// One answer is counted so far (discarded and failed ones are refunded);
	// 99 more use up the trial allowance, then with no credits the answer
	// carries the notice.
	for i := 0; i < 99; i++ {
		if a, r := srv.ask(t, key, body); a.Engine != "llm" {
			t.Fatalf("answer %d: %s", i+2, r.Data)
		}
	}
	a, r = srv.ask(t, key, body)
	if a.Engine != "deterministic" || !strings.Contains(string(r.Data), `"notice":"`) || a.Headline == "" {
		t.Fatalf("out of allowance and credits: %s", r.Data)
	}
	if out := mustCLI(t, "usage", "--org", "acme", "--data", data); !strings.Contains(out, "100 of 100") {
		t.Fatalf("usage:\n%s", out)
	}

	// Killed while a reserved answer waits for the model: on restart the
	// reservation is refunded, so the ledger matches the answers delivered.
	mustCLI(t, "org", "credits", "acme", "--add", "5", "--note", "top-up", "--data", data)
	model.SetDelay(5 * time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Cut off by the kill: the transport error is expected.
		req, _ := http.NewRequest(http.MethodPost, srv.base+"/v1/frames/insight", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	time.Sleep(700 * time.Millisecond)
	if out := mustCLI(t, "org", "show", "acme", "--data", data); !strings.Contains(out, "credits: 4") {
		t.Fatalf("the pending answer did not reserve a credit:\n%s", out)
	}
	srv.cmd.Process.Signal(syscall.SIGKILL)
	<-srv.done
	<-done
	model.SetDelay(0)
	srv = startServer(t, flags...)
	out := mustCLI(t, "org", "show", "acme", "--data", data)
	if !strings.Contains(out, "credits: 5") || !strings.Contains(out, "refund") {
		t.Fatalf("after the restart the pending answer was not refunded:\n%s", out)
	}
	if u := mustCLI(t, "usage", "--org", "acme", "--data", data); !strings.Contains(u, "100 of 100") {
		t.Fatalf("usage after the restart:\n%s", u)
	}

	// 50 parallel questions against 10 remaining worded answers (credits):
	// exactly 10 are worded, and the ledger holds exactly 10 answers.
	mustCLI(t, "org", "credits", "acme", "--add", "5", "--note", "top-up to 10", "--data", data)
	var wg sync.WaitGroup
	var mu sync.Mutex
	worded := 0
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, r := srv.ask(t, key, body)
			mu.Lock()
			defer mu.Unlock()
			if r.Status != 200 {
				t.Errorf("status %d", r.Status)
			}
			if a.Engine == "llm" {
				worded++
			}
		}()
	}
	wg.Wait()
	out = mustCLI(t, "org", "show", "acme", "--history", "0", "--data", data)
	if worded != 10 || !strings.Contains(out, "credits: 0") || strings.Count(out, "  answer  ") != 10+1 {
		t.Fatalf("%d worded answers; ledger:\n%s", worded, out)
	}
	srv.stop(t, syscall.SIGTERM)
}

// A report keeps its sections; a model slower than the budget still gets
// a deterministic answer inside the 30 s budget.
func TestE2E_WordingReportAndSlowModel(t *testing.T) {
	if testing.Short() {
		t.Skip("short: waits out most of the 30 s request budget")
	}
	model := ollamatest.NewServer()
	defer model.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--plan", "pro", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	id1 := grid.CellID(row, col)
	pop := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,population_2020\n%d,12345\n", id1))
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--ollama-host", model.URL(), "--model", ollamatest.DefaultModel)
	_, key := mintKey(t, data, "acme", "full")
	body := fmt.Sprintf(`{"frameIds":["%d"],"question":"total population","format":"report"}`, id1)

	model.SetReply("## Population\n\n- 12,345 people live in the selected frame (2020 estimate).")
	_, r := srv.ask(t, key, body)
	if !strings.Contains(string(r.Data), `"format":"report"`) || !strings.Contains(string(r.Data), `"engine":"llm"`) {
		t.Fatalf("report: %s", r.Data)
	}
	model.SetReply("12,345 people live in the selected frame.") // no sections
	// The answer's own format member, not the plan's (which says how the
	// question was asked).
	var top struct {
		Engine string  `json:"engine"`
		Format *string `json:"format"`
	}
	if _, r := srv.ask(t, key, body); json.Unmarshal(r.Data, &top) != nil || top.Engine != "deterministic" || top.Format != nil {
		t.Fatalf("a report without sections was kept: %s", r.Data)
	}

	model.SetReply("## Population\n\n- 12,345 people.")
	model.SetDelay(time.Minute)
	start := time.Now()
	a, r := srv.ask(t, key, body)
	if took := time.Since(start); took > 30*time.Second || a.Engine != "deterministic" || r.Status != 200 {
		t.Fatalf("slow model: %v, %d %s", took, r.Status, r.Data)
	}
	if out := mustCLI(t, "usage", "--org", "acme", "--data", data); !strings.Contains(out, "1 of 2000") {
		t.Fatalf("only the kept report counts:\n%s", out)
	}
	srv.stop(t, syscall.SIGTERM)
}
