package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
)

// healthz is the data of GET /healthz.
type healthz struct {
	Node     string `json:"node"`
	Version  string `json:"version"`
	Status   string `json:"status"`
	Frames   int    `json:"frames"`
	Datasets struct {
		Count  int    `json:"count"`
		Digest string `json:"digest"`
	} `json:"datasets"`
}

func (s *server) healthz(t *testing.T) healthz {
	t.Helper()
	r := s.get(t, "", "/healthz")
	if r.Status != 200 {
		t.Fatalf("/healthz: %d %+v", r.Status, r.Error)
	}
	var h healthz
	if err := json.Unmarshal(r.Data, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

var metricsLine = regexp.MustCompile(`"msg":"metrics listener","addr":"([^"]+)"`)

// waitLog waits for the server's log (written in batches) to match re and
// returns the match.
func (s *server) waitLog(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := re.FindStringSubmatch(s.stderr.String()); m != nil {
			return m
		}
	}
	t.Fatalf("no line matching %s in the log:\n%s", re, s.stderr)
	return nil
}

func scrapeMetrics(t *testing.T, addr string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", res.StatusCode, b)
	}
	return string(b)
}

// TestE2E_Nodes: two nodes on files with different dataset versions; the
// second is synced from a backup of the first through its running server,
// and /healthz of both then reports the same versions. Metrics, readiness
// and the drain on SIGTERM are checked on the way.
func TestE2E_Nodes(t *testing.T) {
	dir := t.TempDir()
	boundary := writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil)
	row, col := grid.CellAt(9.05, 7.45)
	frame := grid.CellID(row, col)
	files := map[string]string{}
	for _, node := range []string{"a", "b"} {
		data := filepath.Join(dir, node+".db")
		files[node] = data
		mustCLI(t, "grid", "build", "--boundary", boundary, "--data", data)
		mustCLI(t, "org", "add", "acme", "--data", data)
	}
	popAttr := "population_2020:number:sum:people:2020:Estimated population"
	importPop := func(node string, value int) {
		csv := writeFile(t, dir, fmt.Sprintf("pop-%s-%d.csv", node, value), fmt.Sprintf("frame_id,population_2020\n%d,%d\n", frame, value))
		mustCLI(t, "import", "--data", files[node], "--dataset", "population", "--owner", "acme", "--csv", csv, "--attr", popAttr)
	}
	importPop("a", 100)
	importPop("a", 200) // a serves population version 2
	importPop("b", 50)  // b serves version 1, and a dataset a lacks
	mustCLI(t, "import", "--data", files["b"], "--dataset", "old", "--owner", "acme", "--csv",
		writeFile(t, dir, "old.csv", fmt.Sprintf("frame_id,code\n%d,x\n", frame)), "--attr", "code:text")
	_, keyB := mintKey(t, files["b"], "acme", "locality")
	_, keyA := mintKey(t, files["a"], "acme", "locality")

	a := startServer(t, "serve", "--data", files["a"], "--addr", "127.0.0.1:0", "--node", "node-a", "--metrics-addr", "127.0.0.1:0", "--model", "")
	b := startServer(t, "serve", "--data", files["b"], "--addr", "127.0.0.1:0", "--node", "node-b", "--drain-delay", "3s", "--model", "")

	ha, hb := a.healthz(t), b.healthz(t)
	if ha.Node != "node-a" || hb.Node != "node-b" || ha.Status != "ready" || ha.Frames == 0 || ha.Frames != hb.Frames {
		t.Fatalf("healthz: %+v / %+v", ha, hb)
	}
	if reflect.DeepEqual(ha.Datasets, hb.Datasets) {
		t.Fatalf("the nodes agree before the sync: %+v", ha.Datasets)
	}
	for _, s := range []*server{a, b} {
		if r := s.get(t, "", "/readyz"); r.Status != 200 {
			t.Fatalf("/readyz: %d %+v", r.Status, r.Error)
		}
		if r := s.get(t, "", "/livez"); r.Status != 200 {
			t.Fatalf("/livez: %d", r.Status)
		}
	}

	// The operator copies a's file and ships it to b.
	snap := filepath.Join(dir, "a-snapshot.db")
	mustCLI(t, "backup", "--data", files["a"], "--out", snap)
	out := mustCLI(t, "sync", "--from", snap, "--data", files["b"])
	for _, want := range []string{"population: copied, version 1 -> version 2", "old: removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q:\n%s", want, out)
		}
	}
	// It went through b's admin socket.
	b.waitLog(t, regexp.MustCompile(`"msg":"admin operation","op":"dataset.sync"`))

	// Both nodes now report the same versions, and b serves a's records
	// without a restart.
	ha, hb = a.healthz(t), b.healthz(t)
	if !reflect.DeepEqual(ha.Datasets, hb.Datasets) || ha.Datasets.Count != 1 {
		t.Fatalf("after the sync: a %+v, b %+v", ha.Datasets, hb.Datasets)
	}
	for _, c := range []struct {
		s   *server
		key string
	}{{a, keyA}, {b, keyB}} {
		r := c.s.get(t, c.key, fmt.Sprintf("/v1/frames/data?ids=%d", frame))
		if r.Status != 200 || !strings.Contains(string(r.Data), `"population_2020":200`) {
			t.Fatalf("data call: %d %s", r.Status, r.Data)
		}
	}

	// a's metrics: requests, rate-limit decisions, the dataset versions.
	text := scrapeMetrics(t, a.waitLog(t, metricsLine)[1])
	for _, want := range []string{
		`frameindex_dataset_info{dataset="population",version="2"} 1`,
		`frameindex_http_requests_total{route="GET /v1/frames/data",status="200"} 1`,
		`frameindex_http_requests_total{route="GET /healthz",status="200"} 2`,
		`frameindex_ratelimit_decisions_total{kind="request",outcome="allowed"} 1`,
		fmt.Sprintf(`frameindex_grid_frames %d`, ha.Frames),
		`node="node-a"`,
		// The ledger is in the file: its committer's counts are shown
		// (the data call charged nothing).
		"\nframeindex_ledger_journal_records_total 0\n",
		"\nframeindex_ledger_journal_writes_total 0\n",
		"\nframeindex_ledger_journal_write_seconds_total 0\n",
		"\nframeindex_ledger_folds_total ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// No metrics listener on the API port.
	if r, err := http.Get(a.base + "/metrics"); err != nil || r.StatusCode != 404 {
		t.Errorf("/metrics on the API listener: %v %v", r, err)
	}

	// SIGTERM on b: a load balancer probed /readyz, so b answers it 503
	// draining for a while, then stops.
	b.cmd.Process.Signal(syscall.SIGTERM)
	drained := false
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && !drained; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(b.base + "/readyz")
		if err != nil {
			break
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		drained = res.StatusCode == 503 && strings.Contains(string(body), `"draining"`)
	}
	if !drained {
		t.Error("b did not answer /readyz 503 draining after SIGTERM")
	}
	b.stop(t, syscall.SIGTERM)
	a.stop(t, syscall.SIGTERM)
}

// TestE2E_SyncInterrupted: SIGTERM during a sync of the national demo
// datasets stops it within a second, says so, and leaves the file's
// datasets as they were with no staging bucket; a sync run again to the
// end makes them the snapshot's.
func TestE2E_SyncInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the national demo file")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	srv := startServer(t, "demo", "--data", a, "--addr", "127.0.0.1:0", "--model", "")
	srv.stop(t, syscall.SIGTERM)
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "dataset", "list", "--data", a, "--json")), &list); err != nil || len(list) == 0 {
		t.Fatalf("dataset list: %v %+v", err, list)
	}
	// b: the same grid and organisations, no datasets.
	mustCLI(t, "backup", "--data", a, "--out", b)
	for _, d := range list {
		mustCLI(t, "dataset", "remove", d.ID, "--data", b)
	}
	before := mustCLI(t, "dataset", "list", "--data", b)

	r := startCLI(t, nil, "sync", "--from", a, "--data", b)
	t.Logf("stopped in %v", r.term(t, 300*time.Millisecond))
	if got := mustCLI(t, "dataset", "list", "--data", b); got != before {
		t.Errorf("an interrupted sync changed the datasets:\n%s", got)
	}
	if out := mustCLI(t, "check", "--data", b); !strings.Contains(out, "sound") || strings.Contains(out, "staging") {
		t.Errorf("check after an interrupted sync: %s", out)
	}

	out := mustCLI(t, "sync", "--from", a, "--data", b)
	for _, d := range list {
		if !strings.Contains(out, d.ID+": copied, new -> version") {
			t.Errorf("sync output lacks %s:\n%s", d.ID, out)
		}
	}
	if got, want := mustCLI(t, "dataset", "list", "--data", b, "--json"), mustCLI(t, "dataset", "list", "--data", a, "--json"); got != want {
		t.Errorf("after sync b lists\n%s\nwant\n%s", got, want)
	}
}
