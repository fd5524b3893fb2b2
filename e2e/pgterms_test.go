package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestE2E_PGTermsOneHome: with --state, a dataset's price lives in the
// shared state alone. sync keeps the node's price and says so; a node
// whose file disagrees with the shared price logs it once, at start, and
// not again at the next change of datasets.
func TestE2E_PGTermsOneHome(t *testing.T) {
	d := startPGDeployment(t)
	// The operator prices roads for every node in the shared state; the
	// nodes' files still say 1.
	mustCLI(t, "dataset", "price", "roads", "--credits", "3", "--data", d.data, "--state", d.url)

	// A snapshot whose roads costs 5 is synced into node B.
	snap := filepath.Join(t.TempDir(), "snap.db")
	copyFile(t, d.data, snap)
	mustCLI(t, "dataset", "price", "roads", "--credits", "5", "--data", snap)
	out := mustCLI(t, "sync", "--from", snap, "--data", d.files[1])
	for _, want := range []string{"prices, offers and licence terms: the shared state's", "the snapshot's price differs for roads: not copied"} {
		if !strings.Contains(out, want) {
			t.Errorf("sync output lacks %q:\n%s", want, out)
		}
	}
	if out := mustCLI(t, "dataset", "list", "--data", d.files[1]); !regexp.MustCompile(`roads.*\b3\b`).MatchString(out) {
		t.Errorf("node B lists roads without the shared price 3:\n%s", out)
	}

	// Node A restarts: its file's price 1 disagrees with the shared 3.
	d.a.cmd.Process.Signal(syscall.SIGTERM)
	<-d.a.done
	d.a = d.start(t, 0)
	drift := regexp.MustCompile(`"msg":"this node's data file disagrees with the shared state; the shared state's terms are used and the file's ignored","dataset":"roads","what":"price","file":"1","shared":"3"`)
	d.a.waitLog(t, drift)
	// A change of datasets through A's socket checks again: logged once.
	mustCLI(t, "dataset", "price", "roads", "--credits", "3", "--data", d.files[0])
	d.a.waitLog(t, regexp.MustCompile(`"msg":"admin operation","op":"dataset.price"`))
	if n := len(drift.FindAllString(d.a.stderr.String(), -1)); n != 1 {
		t.Fatalf("the disagreement was logged %d times, want once:\n%s", n, d.a.stderr)
	}
}
