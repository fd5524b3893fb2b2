package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/grid"

	"github.com/chromedp/chromedp"
)

// TestBrowser_Marketplace: geodata offers "lights" per query at 3 credits
// (with the CLI, the web application's code path); acme's owner licenses
// it in the marketplace, after which acme's data call is charged for it;
// acme's member sees the catalogue but cannot license, even with a crafted
// request.
func TestBrowser_Marketplace(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--plan", "pro", "--data", data)
	mustCLI(t, "org", "add", "geodata", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	frame := grid.CellID(row, col)
	csv := writeFile(t, dir, "lights.csv", fmt.Sprintf("frame_id,radiance\n%d,12.5\n", frame))
	mustCLI(t, "import", "--data", data, "--dataset", "lights", "--owner", "geodata", "--csv", csv,
		"--attr", "radiance:number:mean:nW/cm2/sr:2025:Night-time radiance")
	mustCLI(t, "dataset", "offer", "lights", "--mode", "per_query", "--price", "3", "--licence-text", "Attribution: geodata", "--data", data)
	mustCLI(t, "org", "credits", "acme", "--add", "20", "--note", "opening balance", "--data", data)
	oluOTP := addUser(t, data, "olu", "acme", "owner")
	moOTP := addUser(t, data, "mo", "acme", "member")
	_, key := mintKey(t, data, "acme", "locality")
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--model", "")

	if a, r := srv.data(t, key, fmt.Sprint(frame)); r.Status != http.StatusOK || len(a.Charged) != 0 {
		t.Fatalf("data call before licensing: %d, charged %v", r.Status, a.Charged)
	}

	b := newBrowser(t, srv.base)
	mo := b.person("mo")
	mo.signIn("mo", moOTP)
	mo.choosePassword(moOTP, "mo's own long password")
	mo.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/market"]`)))
	mo.waitPath("/console/market")
	if cat := mo.text(`#h-catalogue + .table-wrap`); !strings.Contains(cat, "lights") || !strings.Contains(cat, "Attribution: geodata") {
		t.Errorf("member's catalogue: %q", cat)
	}
	if mo.has(`a[href="/console/market/license/lights"]`) {
		t.Error("a member is offered licensing")
	}
	mo.checkAccessible("marketplace (member)")
	status := run(mo, chromedp.Evaluate[int](`(async () => {
	  const t = document.querySelector('input[name=csrf]').value;
	  const r = await fetch('/console/market/license/lights', {method: 'POST',
	    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
	    body: 'csrf=' + encodeURIComponent(t)});
	  return r.status;
	})()`, chromedp.EvalAwaitPromise))
	if status != http.StatusForbidden {
		t.Errorf("member's crafted licensing: %d, want 403", status)
	}
	if ls := mustCLI(t, "licence", "list", "--org", "acme", "--data", data); strings.Contains(ls, "lights") {
		t.Errorf("licence after the member's attempt:\n%s", ls)
	}

	olu := b.person("olu")
	olu.signIn("olu", oluOTP)
	olu.choosePassword(oluOTP, "olu's own long password")
	olu.open("/console/market")
	olu.waitPath("/console/market")
	olu.checkAccessible("marketplace (owner)")
	olu.shots("marketplace")
	olu.do(chromedp.Click(chromedp.CSS(`a[href="/console/market/license/lights"]`)))
	olu.waitPath("/console/market/license/lights")
	if text := olu.text("main p"); !strings.Contains(text, "3 credits") || !strings.Contains(text, "Attribution: geodata") {
		t.Errorf("confirmation: %q", text)
	}
	olu.do(chromedp.Click(chromedp.CSS(`main form button[type=submit]`)))
	olu.waitPath("/console/market?msg=licensed")
	if held := olu.text(`#h-held + ul`); !strings.Contains(held, "lights: per_query") {
		t.Errorf("licences held: %q", held)
	}

	a, r := srv.data(t, key, fmt.Sprint(frame))
	if r.Status != http.StatusOK || len(a.Charged) != 1 || a.Charged[0] != "lights" {
		t.Fatalf("data call after licensing: %d, charged %v", r.Status, a.Charged)
	}
	if show := mustCLI(t, "org", "show", "acme", "--data", data); !strings.Contains(show, "credits: 17\n") {
		t.Errorf("acme after one charged call (want 17 credits):\n%s", show)
	}
	audit := mustCLI(t, "audit", "--data", data, "--org", "acme")
	for _, want := range []string{"licence.acquire", "refused", "only admins and owners license datasets"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log lacks %q", want)
		}
	}
	noSecretsLogged(t, srv, oluOTP, moOTP, "olu's own long password", "mo's own long password")
}
