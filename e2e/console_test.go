package e2e

// Browser tests of the web application: real headless Chromium (Debian's
// `chromium`) driven by chromedp against the real binary. On failure each
// test saves a screenshot of every browser it drove (the path is logged);
// with FRAMEINDEX_SCREENSHOTS=DIR set, the pages are also saved there at
// 1280×800 and at a phone's 390×844.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"frameindex/grid"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumPath finds the browser, or skips the test when none is installed
// (.ci/run installs Debian's chromium).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium absent: install Debian's chromium (apt-get install chromium) to run the browser tests")
	return ""
}

// browser is one headless Chromium for a test; each person gets a browser
// context of their own (separate cookies), like a separate browser.
type browser struct {
	t    *testing.T
	root context.Context
	base string
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // root in CI containers
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.WindowSize(1280, 800),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	root, cancelRoot := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelRoot(); cancelAlloc() })
	// The first run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, root: root, base: base}
}

// person is one signed-in (or signing-in) person's tab.
type person struct {
	t    *testing.T
	name string
	ctx  context.Context
	base string
}

func (b *browser) person(name string) *person {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.root, chromedp.WithNewBrowserContext())
	p := &person{t: b.t, name: name, ctx: ctx, base: b.base}
	b.t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		b.t.Fatalf("open a tab for %s: %v", name, err)
	}
	// Runs before cancel (cleanups run last first): keep the evidence.
	b.t.Cleanup(func() {
		if b.t.Failed() {
			p.saveScreenshot(failureDir(), "FAILED-"+b.t.Name()+"-"+name)
		}
	})
	return p
}

func failureDir() string {
	if d := os.Getenv("FRAMEINDEX_SCREENSHOTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "frameindex-browser-failures")
}

func (p *person) saveScreenshot(dir, name string) {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	p.t.Logf("screenshot saved: %s", file)
}

// shots saves the current page at desktop and phone widths when
// FRAMEINDEX_SCREENSHOTS is set, and checks at both that every control is
// labelled and the page does not scroll sideways.
func (p *person) shots(name string) {
	p.t.Helper()
	dir := os.Getenv("FRAMEINDEX_SCREENSHOTS")
	for _, size := range []struct {
		w, h  int64
		label string
	}{{1280, 800, "desktop"}, {390, 844, "phone"}} {
		p.do(chromedp.EmulateViewport(size.w, size.h))
		p.checkAccessible(name + " at " + size.label)
		if dir != "" {
			p.saveScreenshot(dir, name+"-"+size.label)
		}
	}
	p.do(chromedp.EmulateViewport(1280, 800))
}

// accessibilityCheck lists the problems of the page: a control without an
// accessible name, a control taken out of the keyboard order, the page
// wider than the window.
const accessibilityCheck = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href], summary')) {
    let name = el.getAttribute('aria-label') || '';
    if (el.labels && el.labels.length) name += el.labels[0].textContent;
    if (el.getAttribute('aria-labelledby')) name += 'labelled';
    if (['BUTTON', 'A', 'SUMMARY'].includes(el.tagName)) name += el.textContent;
    if (!name.trim()) bad.push('no accessible name: ' + el.outerHTML.slice(0, 120));
    if (el.tabIndex < 0) bad.push('not reachable by keyboard: ' + el.outerHTML.slice(0, 120));
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    const wide = [...document.querySelectorAll('body *')].filter(e => !(e.parentElement && e.parentElement.closest('.table-wrap')) &&
      e.getBoundingClientRect().right > window.innerWidth + 1).slice(-3).map(e => e.outerHTML.slice(0, 80));
    bad.push('page scrolls sideways: ' + document.documentElement.scrollWidth + 'px in a ' + window.innerWidth + 'px window: ' + wide.join(' | '));
  }
  return bad;
})()`

func (p *person) checkAccessible(where string) {
	p.t.Helper()
	// A page that was still being left when the check began fails it with
	// no document or a destroyed context: wait for the next one and retry.
	var bad []string
	for try := 0; ; try++ {
		p.waitLoaded()
		ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](accessibilityCheck))
		cancel()
		if err == nil {
			bad = v
			break
		}
		if try == 3 {
			p.t.Fatalf("%s, %s: the accessibility check failed: %v", p.name, where, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, b := range bad {
		p.t.Errorf("%s, %s: %s", p.name, where, b)
	}
}

// waitLoaded waits, up to 10 s, until the page is whole: after a submit the
// browser may still be between pages, where the document has no root yet
// and an evaluation can fail or see the old page.
func (p *person) waitLoaded() {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState + (document.documentElement && document.body ? "" : "-empty")`))
		cancel()
		if err == nil && state == "complete" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("%s: the page did not finish loading in 10 s", p.name)
}

// run runs one action with a time limit, failing the test on error.
func run[T any](p *person, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		loc, _ := chromedp.Run(p.ctx, chromedp.Location())
		p.t.Fatalf("%s at %s: %v", p.name, loc, err)
	}
	return v
}

func (p *person) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	run(p, chromedp.Steps(steps...))
}

func (p *person) open(path string) { p.t.Helper(); p.do(chromedp.Navigate(p.base + path)) }

// waitPath waits until the tab shows a page whose path starts with prefix
// and the page has loaded.
func (p *person) waitPath(prefix string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// A read that meets the navigation it waits for fails
		// ("Inspected target navigated or closed"): read again.
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && strings.HasPrefix(strings.TrimPrefix(loc, p.base), prefix) {
			var state string
			if state, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState`)); err == nil && state == "complete" {
				cancel()
				return
			}
		}
		cancel()
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: still at %s (%v), waiting for %s", p.name, loc, err, prefix)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *person) text(sel string) string {
	p.t.Helper()
	return run(p, chromedp.Text(chromedp.CSS(sel)))
}

func (p *person) value(sel string) string {
	p.t.Helper()
	return run(p, chromedp.Value(chromedp.CSS(sel)))
}

func (p *person) has(sel string) bool {
	p.t.Helper()
	return run(p, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q) !== null`, sel)))
}

// signIn types the sign-in form and submits it with the Enter key.
func (p *person) signIn(login, password string) {
	p.t.Helper()
	p.open("/console/")
	p.waitPath("/console/signin")
	p.do(
		chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.SendKeys(chromedp.CSS("#login"), login),
		chromedp.SendKeys(chromedp.CSS("#password"), password+kb.Enter),
	)
}

// choosePassword fills the forced password change after a first sign-in.
func (p *person) choosePassword(otp, password string) {
	p.t.Helper()
	p.waitPath("/console/password")
	if h := p.text("h1"); h != "Choose your password" {
		p.t.Fatalf("%s: first sign-in shows %q", p.name, h)
	}
	p.do(
		chromedp.SendKeys(chromedp.CSS("#current"), otp),
		chromedp.SendKeys(chromedp.CSS("#new"), password),
		chromedp.SendKeys(chromedp.CSS("#confirm"), password),
		chromedp.Click(chromedp.CSS(`main form[action="/console/password"] button[type=submit]`)),
	)
	p.waitPath("/console/keys")
}

var otpRe = regexp.MustCompile(`one-time password: (\S+)`)

// addUser adds a person with the CLI and returns their one-time password.
func addUser(t *testing.T, data, name, org, role string) string {
	t.Helper()
	m := otpRe.FindStringSubmatch(mustCLI(t, "user", "add", name, "--org", org, "--role", role, "--data", data))
	if m == nil {
		t.Fatalf("user add %s printed no one-time password", name)
	}
	return m[1]
}

// consoleServer builds a small grid with organisations acme (pro, 20
// credits) and geodata, whose dataset "lights" is licensed to acme per
// query at 3 credits, and serves it. It returns the server, the data file
// and a frame that "lights" records something on.
func consoleServer(t *testing.T) (*server, string, uint64) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--plan", "pro", "--name", "Acme Survey", "--data", data)
	mustCLI(t, "org", "add", "geodata", "--data", data)
	row, col := grid.CellAt(9.05, 7.45)
	frame := grid.CellID(row, col)
	csv := writeFile(t, dir, "lights.csv", fmt.Sprintf("frame_id,radiance\n%d,12.5\n", frame))
	mustCLI(t, "import", "--data", data, "--dataset", "lights", "--owner", "geodata", "--csv", csv,
		"--attr", "radiance:number:mean:nW/cm2/sr::Night-time radiance", "--price", "3")
	mustCLI(t, "licence", "grant", "--data", data, "--org", "acme", "--dataset", "lights", "--mode", "per_query")
	mustCLI(t, "org", "credits", "acme", "--add", "20", "--note", "opening balance", "--data", data)
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--model", "")
	return srv, data, frame
}

// noSecretsLogged fails when the server's log (stderr; stdout is the
// demo's banner, which shows its key and password on purpose) holds any of
// secrets.
func noSecretsLogged(t *testing.T, srv *server, secrets ...string) {
	t.Helper()
	logs := srv.stderr.String()
	if !strings.Contains(logs, "console request") {
		t.Error("the server logged no console requests")
	}
	for _, s := range secrets {
		if s != "" && strings.Contains(logs, s) {
			t.Errorf("a log line holds the secret or password %q", s)
		}
	}
}

// TestBrowser_DevelopersArea: sign in (a wrong password refused), the
// first sign-in forces a new password, mint a key in the Developers area
// and use it, revoke it and get 401.
func TestBrowser_DevelopersArea(t *testing.T) {
	srv, data, frame := consoleServer(t)
	otp := addUser(t, data, "olu", "acme", "owner")
	b := newBrowser(t, srv.base)
	olu := b.person("olu")

	olu.signIn("olu", "not the password")
	olu.do(chromedp.WaitVisible(chromedp.CSS("#form-error")))
	if msg := olu.text("#form-error"); !strings.Contains(msg, "Wrong user name") {
		t.Fatalf("wrong password: %q", msg)
	}
	olu.shots("signin-refused")

	olu.do(chromedp.Clear(chromedp.CSS("#password")))
	olu.do(chromedp.SendKeys(chromedp.CSS("#password"), otp+kb.Enter))
	olu.shots("choose-password")
	const password = "olu's own long password"
	olu.choosePassword(otp, password)
	if f := olu.text(".flash.ok"); !strings.Contains(f, "password was changed") {
		t.Errorf("after the change: %q", f)
	}

	// Keyboard: the first Tab reaches the skip link.
	olu.do(chromedp.KeyEvent(kb.Tab))
	if cls := run(olu, chromedp.Evaluate[string](`document.activeElement.className`)); cls != "skip" {
		t.Errorf("first Tab focuses %q, want the skip link", cls)
	}

	// Mint: the presets show their capabilities.
	for _, want := range []string{"Locality", "Analyst", "Full read", "frame.read", "feature.read", "ask.query"} {
		if !strings.Contains(olu.text("#h-mint + form fieldset"), want) {
			t.Errorf("preset choice lacks %q", want)
		}
	}
	olu.shots("developers")
	olu.do(
		chromedp.SendKeys(chromedp.CSS("#key-name"), "browser test"),
		chromedp.Click(chromedp.CSS(`label[for="preset-full"]`)),
		chromedp.SetValue(chromedp.CSS("#key-days"), "30"),
		chromedp.Click(chromedp.CSS(`#h-mint + form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#secret")),
	)
	secret := olu.value("#secret")
	if !secretRe.MatchString(secret) {
		t.Fatalf("minted secret %q", secret)
	}
	if w := olu.text(".secret .warning"); !strings.Contains(w, "shown only this once") {
		t.Errorf("no warning: %q", w)
	}
	olu.do(chromedp.Click(chromedp.CSS(`button[data-copy="secret"]`)))
	time.Sleep(200 * time.Millisecond)
	if st := olu.text("#secret-status"); st == "" {
		t.Error("the copy button said nothing")
	}
	olu.shots("key-minted")
	keyID := strings.TrimSuffix(strings.TrimPrefix(olu.text("#h-minted"), "Key "), " is ready")

	// The key works against the API.
	r := srv.get(t, secret, "/v1/frames/at?lat=9.05&lon=7.45")
	if r.Status != http.StatusOK {
		t.Fatalf("new key on /v1/frames/at: %d %+v", r.Status, r.Error)
	}
	var fr struct{ ID string }
	json.Unmarshal(r.Data, &fr)
	if fr.ID != fmt.Sprint(frame) {
		t.Errorf("frame %s, want %d", fr.ID, frame)
	}
	// The list shows its last use (kept in memory, not written per request).
	olu.open("/console/keys")
	rowText := run(olu, chromedp.Evaluate[string](fmt.Sprintf(
		`[...document.querySelectorAll('tbody tr')].find(r => r.textContent.includes(%q)).textContent`, keyID)))
	if strings.Contains(rowText, "never") || !strings.Contains(rowText, "UTC") || strings.Contains(rowText, secret) {
		t.Errorf("key row: %q", rowText)
	}

	// Revoke with confirmation; the key then gets 401.
	olu.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/console/keys/%s/revoke"]`, keyID))))
	olu.waitPath("/console/keys/" + keyID + "/revoke")
	olu.shots("revoke-confirm")
	olu.do(chromedp.Click(chromedp.CSS(`main form.actions button[type=submit]`)))
	olu.waitPath("/console/keys?msg=revoked")
	if f := olu.text(".flash.ok"); !strings.Contains(f, keyID) {
		t.Errorf("after revoking: %q", f)
	}
	wantError(t, srv.get(t, secret, "/v1/frames/at?lat=9.05&lon=7.45"), http.StatusUnauthorized, "invalid_key")

	// A session never authorises /v1, and a key never opens the console.
	cookies := run(olu, chromedp.Evaluate[string](`document.cookie`))
	if cookies != "" {
		t.Errorf("scripts can read cookies: %q", cookies)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.base+"/console/keys", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("API key on the console: %d", res.StatusCode)
	}
	status := run(olu, chromedp.Evaluate[int](`fetch('/v1/frames/at?lat=9.05&lon=7.45').then(r => r.status)`, chromedp.EvalAwaitPromise))
	if status != http.StatusUnauthorized {
		t.Errorf("/v1 from a signed-in browser: %d, want 401", status)
	}

	// The owner reads the audit log in the browser, the operator with the CLI.
	olu.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/audit"]`)))
	olu.waitPath("/console/audit")
	if log := olu.text("main .table-wrap"); !strings.Contains(log, "key.revoke") || !strings.Contains(log, keyID) {
		t.Errorf("audit page: %q", log)
	}
	olu.shots("audit")
	audit := mustCLI(t, "audit", "--data", data, "--org", "acme")
	for _, want := range []string{"signin", "user.password", "key.mint", "key.revoke", keyID, "refused"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log lacks %q:\n%s", want, audit)
		}
	}
	noSecretsLogged(t, srv, secret, otp, password, "not the password")
}

// TestBrowser_MembersAndRoles: an owner adds a member, who signs in with
// the one-time password shown once; the member cannot mint, even with a
// crafted request.
func TestBrowser_MembersAndRoles(t *testing.T) {
	srv, data, _ := consoleServer(t)
	otp := addUser(t, data, "olu", "acme", "owner")
	b := newBrowser(t, srv.base)
	olu := b.person("olu")
	olu.signIn("olu@", "x") // refused: no such account
	olu.do(chromedp.WaitVisible(chromedp.CSS("#form-error")))
	olu.do(chromedp.Clear(chromedp.CSS("#login")), chromedp.Clear(chromedp.CSS("#password")))
	olu.do(chromedp.SendKeys(chromedp.CSS("#login"), "olu"), chromedp.SendKeys(chromedp.CSS("#password"), otp+kb.Enter))
	olu.choosePassword(otp, "olu's own long password")

	olu.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/members"]`)))
	olu.waitPath("/console/members")
	olu.do(
		chromedp.SendKeys(chromedp.CSS("#m-name"), "ada"),
		chromedp.SendKeys(chromedp.CSS("#m-email"), "ada@acme.ng"),
		chromedp.SetValue(chromedp.CSS("#m-role"), "member"),
		chromedp.Click(chromedp.CSS(`#h-add + form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#otp")),
	)
	adaOTP := olu.value("#otp")
	if !regexp.MustCompile(`^[a-z2-9]{4}(-[a-z2-9]{4}){3}$`).MatchString(adaOTP) {
		t.Fatalf("one-time password %q", adaOTP)
	}
	olu.shots("members")
	if table := olu.text(`#h-members + .table-wrap`); !strings.Contains(table, "ada@acme.ng") || !strings.Contains(table, "one-time password, not yet changed") {
		t.Errorf("members table: %q", table)
	}

	ada := b.person("ada")
	ada.signIn("ada@acme.ng", adaOTP)
	ada.choosePassword(adaOTP, "ada's own long password")
	if ada.has("#h-mint") || ada.has(`a[href$="/revoke"]`) || ada.has(`nav a[href="/console/members"]`) {
		t.Error("a member is offered minting, revoking or members")
	}
	if note := ada.text("p.note"); !strings.Contains(note, "Admins and owners mint") {
		t.Errorf("member's note: %q", note)
	}
	ada.shots("developers-member")
	keysBefore := mustCLI(t, "key", "list", "--org", "acme", "--data", data)
	// A crafted request, with the member's own valid CSRF token.
	status := run(ada, chromedp.Evaluate[int](`(async () => {
	  const t = document.querySelector('input[name=csrf]').value;
	  const r = await fetch('/console/keys', {method: 'POST',
	    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
	    body: 'csrf=' + encodeURIComponent(t) + '&preset=full&days=30&name=sneaky'});
	  return r.status;
	})()`, chromedp.EvalAwaitPromise))
	if status != http.StatusForbidden {
		t.Errorf("member's crafted mint: %d, want 403", status)
	}
	// Without the token it is refused before the role is even asked.
	status = run(ada, chromedp.Evaluate[int](`fetch('/console/keys', {method: 'POST',
	    headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'preset=full&days=30'}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if status != http.StatusForbidden {
		t.Errorf("mint without a CSRF token: %d, want 403", status)
	}
	if after := mustCLI(t, "key", "list", "--org", "acme", "--data", data); after != keysBefore {
		t.Errorf("keys changed:\n%s\n%s", keysBefore, after)
	}
	ada.open("/console/members")
	if h := ada.text("h1"); h != "Not allowed" {
		t.Errorf("member on the members page: %q", h)
	}

	// The owner makes ada an admin; ada can then mint.
	olu.open("/console/members")
	olu.do(
		chromedp.SetValue(chromedp.CSS("#role-ada"), "admin"),
		chromedp.Click(chromedp.CSS(`button[aria-label="Change the role of ada"]`)),
	)
	olu.waitPath("/console/members?msg=role")
	ada.open("/console/keys")
	if !ada.has("#h-mint") {
		t.Error("an admin is not offered minting")
	}
	audit := mustCLI(t, "audit", "--data", data, "--org", "acme")
	for _, want := range []string{"user.add", "user.role", "key.mint", "refused", "only admins and owners mint keys"} {
		if !strings.Contains(audit, want) {
			t.Errorf("audit log lacks %q", want)
		}
	}
	noSecretsLogged(t, srv, otp, adaOTP, "olu's own long password", "ada's own long password")
}

// TestBrowser_UsageShowsCharges: a per-query charge made through the API
// shows on the usage page, as a chart and in the tables.
func TestBrowser_UsageShowsCharges(t *testing.T) {
	srv, data, frame := consoleServer(t)
	otp := addUser(t, data, "olu", "acme", "member")
	_, key := mintKey(t, data, "acme", "locality")
	a, r := srv.data(t, key, fmt.Sprint(frame))
	if r.Status != http.StatusOK || len(a.Charged) != 1 || a.Charged[0] != "lights" {
		t.Fatalf("data call: %d, charged %v", r.Status, a.Charged)
	}
	b := newBrowser(t, srv.base)
	olu := b.person("olu")
	olu.signIn("olu", otp)
	olu.choosePassword(otp, "olu's own long password")
	olu.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/usage"]`)))
	olu.waitPath("/console/usage")
	olu.shots("usage")
	if lead := olu.text("p.lead"); !strings.Contains(lead, "Pro") || !strings.Contains(lead, "2,000 worded answers a month") {
		t.Errorf("plan: %q", lead)
	}
	if bal := olu.text("#h-credits + p.big"); !strings.HasPrefix(bal, "17") {
		t.Errorf("balance %q, want 17 (20 granted, 3 charged)", bal)
	}
	charges := olu.text(`#h-charges ~ .table-wrap tbody`)
	if !strings.Contains(charges, "lights") || !strings.Contains(charges, "1") || !strings.Contains(charges, "3") {
		t.Errorf("charges table: %q", charges)
	}
	if n := run(olu, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart[role=img]').length`)); n < 5 {
		t.Errorf("%d charts, want the two meters, per day, per dataset and the balance", n)
	}
	ledger := olu.text(`#h-ledger ~ .table-wrap tbody`)
	if !strings.Contains(ledger, "charge") || !strings.Contains(ledger, "dataset lights") || !strings.Contains(ledger, "opening balance") {
		t.Errorf("ledger table: %q", ledger)
	}
}

var demoSignIn = regexp.MustCompile(`sign in as "(\w+)" with the one-time password\s+([a-z2-9]{4}(?:-[a-z2-9]{4}){3})`)

// TestBrowser_DemoSignIn: `frameindex demo` prints the demo owner's sign-in
// beside the API key, and it works.
func TestBrowser_DemoSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	chromiumPath(t)
	srv := startServer(t, "demo", "--data", filepath.Join(t.TempDir(), "demo.db"), "--addr", "127.0.0.1:0", "--model", "")
	out := srv.stdout.String()
	m := demoSignIn.FindStringSubmatch(out)
	key := secretRe.FindString(out)
	if m == nil || key == "" || !strings.Contains(out, srv.base+"/console/") {
		t.Fatalf("demo banner lacks the sign-in or the key:\n%s", out)
	}
	b := newBrowser(t, srv.base)
	demo := b.person("demo")
	demo.signIn(m[1], m[2])
	demo.choosePassword(m[2], "the demo owner's password")
	if keys := demo.text(`#h-keys + .table-wrap`); !strings.Contains(keys, "demo") || !strings.Contains(keys, "Full read") {
		t.Errorf("the demo key is not listed: %q", keys)
	}
	demo.open("/console/usage")
	if charges := demo.text("#h-charges"); !strings.Contains(charges, "Per-query charges") {
		t.Errorf("usage page: %q", charges)
	}
	noSecretsLogged(t, srv, key, m[2], "the demo owner's password")
}
