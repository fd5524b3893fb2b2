package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/narrate/ollamatest"
	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
)

const pgPassword = "e2e-s3cret-pw"

// pgDeployment is two nodes serving copies of one data file and sharing
// their state in one PostgreSQL database.
type pgDeployment struct {
	cluster *pgtest.Cluster
	url     string
	a, b    *server
	flags   []string // serve flags of both nodes, less --data
	data    string   // the data file the nodes' files are copies of
	files   [2]string
	frame   uint64 // a frame the "roads" dataset records
	key     string // acme's full key: roads is licensed per query at 1 credit
	keyID   string
	state   *pgstate.Store // the database, read directly by the test
	model   *ollamatest.Server
}

// startPGDeployment makes the data file with the CLI (grid, organisations,
// a per-query dataset licensed to acme, credits for 10, a key), copies its
// shared state into a fresh database with `state import`, and starts two
// nodes on copies of the file with --state.
func startPGDeployment(t *testing.T, extra ...string) *pgDeployment {
	t.Helper()
	d := &pgDeployment{cluster: pgtest.Start(t)}
	// The cluster trusts loopback connections, so the password is not
	// checked: it is there to show that no output or log shows it.
	d.url = strings.Replace(d.cluster.NewDatabase(t), "postgres@", "postgres:"+pgPassword+"@", 1)
	d.model = ollamatest.NewServer()
	t.Cleanup(d.model.Close)
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	d.data = data
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data)
	mustCLI(t, "org", "add", "rival", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	d.frame = grid.CellID(row, col)
	roads := writeFile(t, dir, "roads.csv", fmt.Sprintf("frame_id,lanes\n%d,4\n", d.frame))
	mustCLI(t, "import", "--data", data, "--dataset", "roads", "--owner", "rival", "--csv", roads, "--attr", "lanes:number:sum", "--price", "1")
	pop := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,population_2020\n%d,12000\n", d.frame))
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "roads", "--mode", "per_query")
	mustCLI(t, "org", "credits", "acme", "--add", "10", "--note", "opening balance", "--data", data)
	d.keyID, d.key = mintKey(t, data, "acme", "full")

	out := mustCLI(t, "state", "import", "--data", data, "--state", d.url)
	if !strings.Contains(out, "2 organisations") || !strings.Contains(out, "1 keys") || strings.Contains(out, pgPassword) {
		t.Fatalf("state import: %s", out)
	}
	var err error
	if d.state, err = pgstate.Open(context.Background(), d.url, pgstate.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.state.Close)

	d.flags = append([]string{"--addr", "127.0.0.1:0", "--state", d.url, "--ollama-host", d.model.URL(), "--model", ollamatest.DefaultModel,
		"--limit-key-burst", "100000", "--limit-key-rate", "600000", "--limit-insight-burst", "0"}, extra...)
	for i := range d.files {
		d.files[i] = filepath.Join(dir, fmt.Sprintf("node%c.db", 'a'+i))
		copyFile(t, data, d.files[i])
	}
	d.a = d.start(t, 0)
	d.b = d.start(t, 1)
	return d
}

func (d *pgDeployment) start(t *testing.T, node int) *server {
	t.Helper()
	return startServer(t, append([]string{"serve", "--data", d.files[node]}, d.flags...)...)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkLedger checks that acme's ledger in the database is numbered
// without gaps and sums to its balance, and returns it.
func (d *pgDeployment) checkLedger(t *testing.T) (state.Org, []state.LedgerEntry) {
	t.Helper()
	o, entries, err := d.state.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for i, e := range entries {
		sum += e.Credits
		if e.Seq != uint64(i+1) || e.Balance != sum {
			t.Fatalf("ledger entry %d: %+v (want seq %d, balance %d)", i, e, i+1, sum)
		}
	}
	if sum != o.Credits {
		t.Fatalf("ledger sums to %d, balance %d", sum, o.Credits)
	}
	return o, entries
}

// TestE2E_PGSharedCharges: credits for 10, 50 parallel charged data calls
// split across two nodes: exactly 10 are charged, on either node.
func TestE2E_PGSharedCharges(t *testing.T) {
	d := startPGDeployment(t, "--metrics-addr", "127.0.0.1:0")
	var wg sync.WaitGroup
	var mu sync.Mutex
	charged, leftOut := 0, 0
	for i := range 50 {
		node := d.a
		if i%2 == 1 {
			node = d.b
		}
		wg.Go(func() {
			a, r := node.data(t, d.key, fmt.Sprint(d.frame))
			mu.Lock()
			defer mu.Unlock()
			if r.Status != 200 {
				t.Errorf("status %d %+v", r.Status, r.Error)
			}
			charged += len(a.Charged)
			leftOut += len(a.LeftOut)
		})
	}
	wg.Wait()
	if charged != 10 || leftOut != 40 {
		t.Fatalf("%d charged, %d left out; want 10 and 40", charged, leftOut)
	}
	o, entries := d.checkLedger(t)
	if o.Credits != 0 || len(entries) != 11 {
		t.Fatalf("balance %d, %d ledger entries; want 0 and 11", o.Credits, len(entries))
	}
	u, err := d.state.Usage("acme", time.Now())
	if err != nil || len(u.Charges) != 1 || u.Charges[0].Requests != 10 {
		t.Fatalf("usage: %+v %v", u, err)
	}
	// PostgreSQL keeps the ledger: the data file's committer counts are
	// not shown, as they would say nothing.
	metrics := scrapeMetrics(t, d.a.waitLog(t, metricsLine)[1])
	if !strings.Contains(metrics, "\nframeindex_charges_total ") || strings.Contains(metrics, "frameindex_ledger_") {
		t.Errorf("node a's metrics, with the ledger in PostgreSQL:\n%s", metrics)
	}
	// The database holds state now: a second import is refused; its
	// schema is current.
	if _, errOut, code := cli(t, "state", "import", "--data", d.files[0]+".copy", "--state", d.url); code == 0 || strings.Contains(errOut, pgPassword) {
		t.Fatalf("state import of a missing file: exit %d: %s", code, errOut)
	}
	if _, errOut, code := cli(t, "state", "import", "--data", d.data, "--state", d.url); code == 0 || !strings.Contains(errOut, "already holds shared state") || strings.Contains(errOut, pgPassword) {
		t.Fatalf("a second state import: exit %d: %s", code, errOut)
	}
	if out := mustCLI(t, "state", "migrate", "--state", d.url); !strings.Contains(out, "schema is current") {
		t.Fatalf("state migrate: %s", out)
	}
	for _, s := range []*server{d.a, d.b} {
		// The log is flushed every 200 ms.
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(s.stderr.String(), "shared state in PostgreSQL"); {
			if time.Now().After(deadline) {
				t.Fatalf("the node does not say where its state is:\n%s", s.stderr)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if log := s.stderr.String(); strings.Contains(log, "svc_sk_") || strings.Contains(log, pgPassword) || !strings.Contains(log, "127.0.0.1") {
			t.Fatalf("node log:\n%s", log)
		}
	}
}

// TestE2E_PGRevocation: a key minted through node A's admin socket serves
// on node B, and a key revoked through node A is refused by both nodes
// within the bound (notification, or the key version polled every second).
func TestE2E_PGRevocation(t *testing.T) {
	d := startPGDeployment(t)
	const point = "/v1/frames/at?lat=9.05&lon=7.45"
	const bound = pgstate.DefaultKeyPoll + 2*time.Second // the poll, and a keyring load, on a loaded machine
	// until asks node s for the point with key until it answers status,
	// failing the test after bound.
	until := func(s *server, key string, status int, since time.Time) apiResponse {
		t.Helper()
		for {
			r := s.get(t, key, point)
			if r.Status == status {
				return r
			}
			if time.Since(since) > bound {
				t.Fatalf("node still answers %d (want %d) %v after the change", r.Status, status, time.Since(since))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Minted through node A (no --state: the command goes through node A's
	// socket, whose operations act on the shared state).
	minted := time.Now()
	id, secret := mintKey(t, d.files[0], "acme", "full")
	until(d.b, secret, 200, minted)
	if _, err := d.state.Key(id); err != nil {
		t.Fatalf("the key minted through node A is not in the shared state: %v", err)
	}
	for _, key := range []string{d.key, secret} {
		for _, s := range []*server{d.a, d.b} {
			if r := s.get(t, key, point); r.Status != 200 {
				t.Fatalf("before revocation: %d %+v", r.Status, r.Error)
			}
		}
	}
	// Revoked through node A's socket.
	revoked := time.Now()
	mustCLI(t, "key", "revoke", id, "--data", d.files[0])
	for _, s := range []*server{d.b, d.a} {
		wantError(t, until(s, secret, 401, revoked), 401, "invalid_key")
	}
	t.Logf("revocation through node A refused by both nodes %v after the command", time.Since(revoked).Round(time.Millisecond))
	// Revoked directly in the shared state (another node, or the command
	// line with --state).
	revoked = time.Now()
	if _, err := d.state.RevokeKey(d.keyID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*server{d.b, d.a} {
		wantError(t, until(s, d.key, 401, revoked), 401, "invalid_key")
	}
	t.Logf("revocation in the shared state refused by both nodes %v after it was written", time.Since(revoked).Round(time.Millisecond))
}

// TestE2E_PGDown: with PostgreSQL stopped, a charged data call fails with
// 500 internal and writes nothing, a worded answer is given without
// wording and counts nothing, point and box lookups keep working; once
// PostgreSQL is back, everything works again.
func TestE2E_PGDown(t *testing.T) {
	d := startPGDeployment(t)
	const point = "/v1/frames/at?lat=9.05&lon=7.45"
	if a, r := d.a.data(t, d.key, fmt.Sprint(d.frame)); r.Status != 200 || len(a.Charged) != 1 {
		t.Fatalf("a charged call: %d %+v", r.Status, a.Charged)
	}
	_, before := d.checkLedger(t)

	d.cluster.Stop()
	for _, s := range []*server{d.a, d.b} {
		if r := s.get(t, d.key, point); r.Status != 200 {
			t.Fatalf("point lookup with PostgreSQL stopped: %d %+v", r.Status, r.Error)
		}
		if r := s.get(t, d.key, "/v1/frames?bbox=7.44,9.04,7.46,9.06"); r.Status != 200 {
			t.Fatalf("box lookup with PostgreSQL stopped: %d %+v", r.Status, r.Error)
		}
		_, r := s.data(t, d.key, fmt.Sprint(d.frame))
		wantError(t, r, 500, "internal")
		if strings.Contains(r.Error.Message, "127.0.0.1") || strings.Contains(r.Error.Message, "postgres") {
			t.Fatalf("the error shows the client the database: %s", r.Error.Message)
		}
		body := fmt.Sprintf(`{"frameIds":["%d"],"question":"total population"}`, d.frame)
		d.model.SetReply("About 12,000 people live in the selected frame (2020).")
		_, r = s.ask(t, d.key, body)
		wantError(t, r, 500, "internal")
	}

	d.cluster.Start()
	// The first call after the restart works: the nodes' dead pooled
	// connections are dropped and the statement sent again.
	if a, r := d.b.data(t, d.key, fmt.Sprint(d.frame)); r.Status != 200 || len(a.Charged) != 1 {
		t.Fatalf("after PostgreSQL started again: %d %+v", r.Status, r.Error)
	}
	_, after := d.checkLedger(t)
	if len(after) != len(before)+1 {
		t.Fatalf("ledger went from %d to %d entries over the outage and one charged call", len(before), len(after))
	}
	u, err := d.state.Usage("acme", time.Now())
	if err != nil || u.AnswersThisMonth != 0 {
		t.Fatalf("answers counted over the outage: %+v %v", u, err)
	}
	for _, s := range []*server{d.a, d.b} {
		if log := s.stderr.String(); strings.Contains(log, "svc_sk_") || strings.Contains(log, pgPassword) {
			t.Fatal("a secret reached the log")
		}
	}
}

// TestE2E_PGNodeKilled: a node killed while a worded answer it reserved
// waits for a slow model never settles it; the other node refunds it once
// it is older than --state-recover-after, within half that again.
func TestE2E_PGNodeKilled(t *testing.T) {
	const recoverAfter = 3 * time.Second
	d := startPGDeployment(t, "--state-recover-after", recoverAfter.String())
	// Spend the trial allowance so that the answer is paid in credits.
	if _, err := d.state.Pool().Exec(context.Background(),
		"INSERT INTO usage (org, name, count, credits) VALUES ('acme', $1, 100, 0)", state.AnswersCounter(state.MonthOf(time.Now()))); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"frameIds":["%d"],"question":"total population"}`, d.frame)
	d.model.SetReply("About 12,000 people live in the selected frame (2020).")
	d.model.SetDelay(15 * time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequest(http.MethodPost, d.a.base+"/v1/frames/insight", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+d.key)
		if res, err := http.DefaultClient.Do(req); err == nil { // cut off by the kill
			res.Body.Close()
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if o, err := d.state.Org("acme"); err == nil && o.Credits == 9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the answer was not reserved in credits")
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.a.cmd.Process.Signal(syscall.SIGKILL)
	<-d.a.done
	<-done
	killed := time.Now()

	bound := recoverAfter + recoverAfter/2 + 2*time.Second
	for {
		o, entries := d.checkLedger(t)
		if o.Credits == 10 {
			if last := entries[len(entries)-1]; last.Kind != state.LedgerRefund {
				t.Fatalf("last ledger entry %+v, want a refund", last)
			}
			break
		}
		if time.Since(killed) > bound {
			t.Fatalf("the reservation of the killed node was not refunded within %v:\n%s", bound, d.b.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("refunded by the other node %v after the kill", time.Since(killed).Round(time.Millisecond))
	u, err := d.state.Usage("acme", time.Now())
	if err != nil || u.AnswersThisMonth != 100 {
		t.Fatalf("usage after the refund: %+v %v", u, err)
	}
}

// TestE2E_PGUnreachable: the state commands and serve say in one line what
// is wrong with --state, and never show its password.
func TestE2E_PGUnreachable(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	down := "postgres://frameindex:" + pgPassword + "@127.0.0.1:1/frameindex?connect_timeout=2"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"migrate without --state", []string{"state", "migrate"}, "--state is required"},
		{"migrate unreachable", []string{"state", "migrate", "--state", down}, "cannot reach PostgreSQL at 127.0.0.1:1/frameindex"},
		{"import unreachable", []string{"state", "import", "--data", data, "--state", down}, "cannot reach PostgreSQL at 127.0.0.1:1/frameindex"},
		{"serve unreachable", []string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--state", down}, "cannot reach PostgreSQL at 127.0.0.1:1/frameindex"},
		{"bad URL", []string{"state", "migrate", "--state", "postgres://frameindex:" + pgPassword + "@127.0.0.1:notaport/x"}, "invalid shared state URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := cli(t, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, pgPassword) {
				t.Fatalf("exit %d, stderr %q; want it to say %q without the password", code, errOut, tc.want)
			}
			if tc.args[0] != "serve" && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("not one line: %q", errOut)
			}
		})
	}
}

// TestE2E_PGChargeLatency measures charged data calls alternating between
// the two nodes (HTTP, the key, what it may read and the charge in
// PostgreSQL) and logs the median; it asserts what was charged, not how
// fast.
func TestE2E_PGChargeLatency(t *testing.T) {
	d := startPGDeployment(t)
	const n = 200
	if _, _, err := d.state.AddCredits("acme", n, "latency run", time.Time{}); err != nil {
		t.Fatal(err)
	}
	took := make([]time.Duration, 0, n)
	for i := range n {
		node := d.a
		if i%2 == 1 {
			node = d.b
		}
		start := time.Now()
		a, r := node.data(t, d.key, fmt.Sprint(d.frame))
		took = append(took, time.Since(start))
		if r.Status != 200 || len(a.Charged) != 1 {
			t.Fatalf("call %d: %d, charged %v", i, r.Status, a.Charged)
		}
	}
	slices.Sort(took)
	t.Logf("charged data call across two nodes: median %v, 90th percentile %v (%d calls)",
		took[n/2].Round(time.Microsecond), took[n*9/10].Round(time.Microsecond), n)
	if o, entries := d.checkLedger(t); o.Credits != 10 || len(entries) != 2+n {
		t.Fatalf("balance %d, %d ledger entries", o.Credits, len(entries))
	}
}
