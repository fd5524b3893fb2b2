package e2e

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"frameindex/state"
)

// consoleClient is a browser stand-in for the web application of several
// nodes on one host: one cookie jar (cookies do not tell ports apart), no
// redirects followed.
type consoleClient struct {
	t    *testing.T
	http *http.Client
}

func newConsoleClient(t *testing.T) *consoleClient {
	jar, _ := cookiejar.New(nil)
	return &consoleClient{t: t, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *consoleClient) do(req *http.Request) (*http.Response, string) {
	c.t.Helper()
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func (c *consoleClient) get(s *server, path string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
	return c.do(req)
}

func (c *consoleClient) post(s *server, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

var consoleCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// change posts form to path on s with the CSRF token of the page from.
func (c *consoleClient) change(s *server, from, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	_, body := c.get(s, from)
	m := consoleCSRF.FindStringSubmatch(body)
	if m == nil {
		c.t.Fatalf("no CSRF token on %s of %s:\n%.400s", from, s.base, body)
	}
	form.Set("csrf", m[1])
	return c.post(s, path, form)
}

func (c *consoleClient) signIn(s *server, login, password string) *http.Response {
	c.t.Helper()
	res, _ := c.change(s, "/console/signin", "/console/signin", url.Values{"login": {login}, "password": {password}})
	return res
}

// sessionCookie is the client's session token for s, "" when none.
func (c *consoleClient) sessionCookie(s *server) string {
	u, _ := url.Parse(s.base + "/console/")
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == "fi_session" {
			return ck.Value
		}
	}
	return ""
}

var pageOTP = regexp.MustCompile(`id="otp" type="text" readonly value="([^"]+)"`)

// TestE2E_PGConsoleNodes: two nodes on one PostgreSQL serve one web
// application with no affinity. A person signs in on node A and goes on
// on node B; a member added through A's console signs in on B; signing
// out on B ends the session on A at its next request; 30 wrong passwords
// spread over both nodes are admitted 5 times; with node A killed, B
// keeps serving the person.
func TestE2E_PGConsoleNodes(t *testing.T) {
	d := startPGDeployment(t)
	m := otpRe.FindStringSubmatch(mustCLI(t, "user", "add", "olu", "--org", "acme", "--role", "owner", "--state", d.url))
	if m == nil {
		t.Fatal("user add --state printed no one-time password")
	}
	const password = "copper kettle under lagoon rain"

	// Signed in on A, the one-time password replaced on B.
	olu := newConsoleClient(t)
	if res := olu.signIn(d.a, "olu", m[1]); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/password" {
		t.Fatalf("sign in on A: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res, body := olu.change(d.b, "/console/password", "/console/password",
		url.Values{"current": {m[1]}, "new": {password}, "confirm": {password}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("password change on B with A's session: %d\n%.400s", res.StatusCode, body)
	}
	for _, s := range []*server{d.a, d.b} {
		if res, body := olu.get(s, "/console/members"); res.StatusCode != http.StatusOK || !strings.Contains(body, "olu") {
			t.Fatalf("members page on %s: %d", s.base, res.StatusCode)
		}
	}

	// A member added through A's console signs in on B.
	res, body = olu.change(d.a, "/console/members", "/console/members", url.Values{"name": {"tunde"}, "role": {state.RoleMember}})
	otp := pageOTP.FindStringSubmatch(body)
	if res.StatusCode != http.StatusCreated || otp == nil {
		t.Fatalf("adding a member on A: %d\n%.400s", res.StatusCode, body)
	}
	tunde := newConsoleClient(t)
	if res := tunde.signIn(d.b, "tunde", otp[1]); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/password" {
		t.Fatalf("the new member's sign-in on B: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	log, err := d.state.AuditLog("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	var added bool
	for _, e := range log {
		added = added || (e.Action == "user.add" && e.Actor == "olu" && e.Target == "tunde" && e.Outcome == state.AuditOK)
	}
	if !added {
		t.Fatalf("no audit entry of olu adding tunde in the shared log: %+v", log)
	}

	// Signed out on B, the same token is refused on A.
	token := tunde.sessionCookie(d.b)
	if token == "" {
		t.Fatal("no session cookie")
	}
	if res, _ := tunde.change(d.b, "/console/password", "/console/signout", url.Values{}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out on B: %d", res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, d.a.base+"/console/password", nil)
	req.AddCookie(&http.Cookie{Name: "fi_session", Value: token})
	if res, _ := newConsoleClient(t).do(req); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/console/signin") {
		t.Fatalf("a session signed out on B, on A: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	// 30 wrong passwords for tunde, at once, half on each node.
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []*server{d.a, d.b}[i%2]
			res := newConsoleClient(t).signIn(s, "tunde", "not the password")
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses[http.StatusUnauthorized] != state.SignInAccountFree || statuses[http.StatusTooManyRequests] != 30-state.SignInAccountFree {
		t.Fatalf("30 wrong passwords over two nodes: %v, want %d checked (401) and the rest throttled (429)", statuses, state.SignInAccountFree)
	}
	// Even the right password now waits, on either node.
	if res := newConsoleClient(t).signIn(d.a, "tunde", otp[1]); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the right password during the wait: %d", res.StatusCode)
	}

	// Node A dies with a session it started in use; B keeps serving it.
	olu = newConsoleClient(t)
	if res := olu.signIn(d.a, "olu", password); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in on A: %d", res.StatusCode)
	}
	if res, _ := olu.get(d.a, "/console/keys"); res.StatusCode != http.StatusOK {
		t.Fatalf("keys page on A: %d", res.StatusCode)
	}
	before := olu.sessionCookie(d.a)
	d.a.cmd.Process.Signal(syscall.SIGKILL)
	<-d.a.done
	if res, body := olu.get(d.b, "/console/keys"); res.StatusCode != http.StatusOK || olu.sessionCookie(d.b) != before {
		t.Fatalf("B after A was killed: %d\n%.400s", res.StatusCode, body)
	}
}
