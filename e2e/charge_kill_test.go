package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"frameindex/grid"
)

// TestE2E_ChargesSurviveSIGKILL: 8 clients make charged data calls at once
// (the charges go through the group committer) while the server is killed
// with SIGKILL at a random moment, again and again. After each kill the
// ledger is read from the file: every response that reported a charge has
// its ledger entry (no acknowledged charge lost), every ledger entry is
// one request's and only one (no double spend), the balance is the
// ledger's sum and never below zero. 50 kills with -short, 150 without.
func TestE2E_ChargesSurviveSIGKILL(t *testing.T) {
	kills := 150
	if testing.Short() {
		kills = 50
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	for _, org := range []string{"acme", "rival"} {
		mustCLI(t, "org", "add", org, "--data", data)
	}
	row, col := grid.CellAt(9.05, 7.45)
	f1 := grid.CellID(row, col)
	roads := writeFile(t, dir, "roads.csv", fmt.Sprintf("frame_id,lanes\n%d,4\n", f1))
	mustCLI(t, "import", "--data", data, "--dataset", "roads", "--owner", "rival", "--csv", roads, "--attr", "lanes:number:sum", "--price", "1")
	mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "roads", "--mode", "per_query")
	_, key := mintKey(t, data, "acme", "full")

	granted := int64(0)
	acked, leftOut := 0, 0
	for round := range kills {
		// Often runs out within the round: the last charges are left out.
		grant := int64(5 + (round*37)%40)
		mustCLI(t, "org", "credits", "acme", "--add", fmt.Sprint(grant), "--note", "kill test", "--data", data)
		granted += grant
		srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0",
			"--limit-key-rate", "6e10", "--limit-key-burst", "1000000000", "--limit-org-rate", "6e10", "--limit-org-burst", "1000000000")
		var (
			mu      sync.Mutex
			charged = map[string]bool{} // request ids whose response reported the charge
			wg      sync.WaitGroup
			stop    = make(chan struct{})
		)
		client := &http.Client{Timeout: 10 * time.Second}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					rid, ok, left := chargedCall(client, srv.base, key, f1)
					if rid == "" {
						return // cut off by the kill
					}
					mu.Lock()
					if ok {
						charged[rid] = true
					}
					if left {
						leftOut++
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(50+(round*53)%200) * time.Millisecond)
		if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-srv.done
		close(stop)
		wg.Wait()
		acked += len(charged)

		var d struct {
			Credits int64 `json:"credits"`
			Ledger  []struct {
				Seq       int    `json:"seq"`
				Kind      string `json:"kind"`
				Credits   int64  `json:"credits"`
				Balance   int64  `json:"balance"`
				RequestID string `json:"requestId"`
			} `json:"ledger"`
		}
		out := mustCLI(t, "org", "show", "acme", "--history", "0", "--json", "--data", data)
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("org show --json: %v\n%s", err, out)
		}
		var sum int64
		inLedger := map[string]int{}
		for i, e := range d.Ledger {
			sum += e.Credits
			if e.Seq != i+1 || e.Balance != sum || sum < 0 {
				t.Fatalf("round %d: ledger entry %d: %+v, running balance %d", round, i+1, e, sum)
			}
			if e.Kind == "charge" {
				inLedger[e.RequestID]++
			}
		}
		if sum != d.Credits {
			t.Fatalf("round %d: ledger sums to %d, balance %d", round, sum, d.Credits)
		}
		for rid := range charged {
			if inLedger[rid] != 1 {
				t.Fatalf("round %d: request %s was answered as charged; %d ledger entries", round, rid, inLedger[rid])
			}
		}
		for rid, n := range inLedger {
			if n != 1 {
				t.Fatalf("round %d: request %s charged %d times", round, rid, n)
			}
		}
		if charges := int64(len(inLedger)); charges != granted-d.Credits {
			t.Fatalf("round %d: %d charges of 1 credit, %d granted, balance %d", round, charges, granted, d.Credits)
		}
	}
	if acked == 0 {
		t.Fatal("no charged response before any kill: the test tested nothing")
	}
	t.Logf("%d kills: %d responses reported a charge, %d left the dataset out", kills, acked, leftOut)
}

// chargedCall makes one data call and reports its request id (empty when
// the call did not complete: the server was killed), whether the response
// reported the charge and whether it left the dataset out.
func chargedCall(client *http.Client, base, key string, frame uint64) (rid string, charged, leftOut bool) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v1/frames/data?ids=%d", base, frame), nil)
	if err != nil {
		return "", false, false
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return "", false, false
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		return "", false, false
	}
	var env struct {
		Data dataAnswer `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return "", false, false
	}
	rid = res.Header.Get("X-Request-Id")
	return rid, strings.Join(env.Data.Charged, ",") == "roads", len(env.Data.LeftOut) > 0
}
