package console

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/state"
)

// Passwords of the fixture's people.
var passwords = map[string]string{
	"olu":  "olu has a long password",
	"ada":  "ada has a long password",
	"mo":   "mo has a long password",
	"rivo": "rivo has a long password",
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a web application over a temporary data file holding
// organisations acme (owner olu, admin ada, member mo) and rival (owner
// rivo), with a key in each, served by an httptest server in front of a
// stand-in API.
type fixture struct {
	t      *testing.T
	store  *bolt.Store
	ops    *admin.Ops
	con    *Server
	srv    *httptest.Server
	clock  *clock
	logs   *syncBuffer
	apiHit chan *http.Request
	keys   map[string]state.Key // by organisation
}

var fixtureStart = time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)

func newFixture(t *testing.T, tls bool, cfg Config) *fixture {
	t.Helper()
	store, err := bolt.Open(filepath.Join(t.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f := &fixture{t: t, store: store, clock: &clock{t: fixtureStart}, logs: &syncBuffer{},
		apiHit: make(chan *http.Request, 16), keys: map[string]state.Key{}}
	f.ops = &admin.Ops{Store: store, Now: f.clock.Now}
	for _, org := range []string{"acme", "rival"} {
		if _, err := store.AddOrg(state.Org{ID: org, Plan: state.PlanPro}); err != nil {
			t.Fatal(err)
		}
		k, _, err := store.MintKey(state.MintRequest{OrgID: org, Preset: "full", Name: org + " app", Now: fixtureStart})
		if err != nil {
			t.Fatal(err)
		}
		f.keys[org] = k
	}
	for _, p := range []struct{ name, org, role string }{
		{"olu", "acme", state.RoleOwner}, {"ada", "acme", state.RoleAdmin}, {"mo", "acme", state.RoleMember}, {"rivo", "rival", state.RoleOwner},
	} {
		_, otp, err := store.AddUser(state.NewUser{Name: p.name, Email: p.name + "@example.ng", Org: p.org, Role: p.role, Now: fixtureStart})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.ChangePassword(p.name, otp, passwords[p.name], fixtureStart); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Ops = f.ops
	cfg.Now = f.clock.Now
	cfg.Logger = slog.New(slog.NewJSONHandler(f.logs, nil))
	if cfg.FlushEvery == 0 {
		cfg.FlushEvery = time.Hour
	}
	f.con = New(cfg)
	t.Cleanup(func() { f.con.Close() })
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case f.apiHit <- r:
		default:
		}
		w.WriteHeader(http.StatusTeapot)
	})
	if tls {
		f.srv = httptest.NewTLSServer(f.con.Wrap(api))
	} else {
		f.srv = httptest.NewServer(f.con.Wrap(api))
	}
	t.Cleanup(f.srv.Close)
	return f
}

// client is a browser stand-in: a cookie jar, no redirects followed.
type client struct {
	f    *fixture
	http *http.Client
}

func (f *fixture) client() *client {
	jar, _ := cookiejar.New(nil)
	hc := new(http.Client)
	*hc = *f.srv.Client() // a copy: the server's client is shared
	hc.Jar = jar
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{f: f, http: hc}
}

func (c *client) do(req *http.Request) (*http.Response, string) {
	c.f.t.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.f.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// get fetches path as the browser does from one of this server's pages
// (Sec-Fetch-Site: same-origin).
func (c *client) get(path string) (*http.Response, string) {
	c.f.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.f.srv.URL+path, nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.do(req)
}

// openExplore opens the Explore page as its script does: the form that
// mints the person's key is sent when the page shows it.
func (c *client) openExplore() (*http.Response, string) {
	c.f.t.Helper()
	res, body := c.get("/console/explore")
	if strings.Contains(body, `id="explore-start"`) {
		if res, body := c.change("/console/explore", "/console/explore/key", nil); res.StatusCode != http.StatusSeeOther {
			c.f.t.Fatalf("minting the Explore key: %d\n%.300s", res.StatusCode, body)
		}
		res, body = c.get("/console/explore")
	}
	return res, body
}

// post sends a form; header pairs are added to the request.
func (c *client) post(path string, form url.Values, header ...string) (*http.Response, string) {
	c.f.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(req)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the form on the page at path.
func (c *client) csrf(path string) string {
	c.f.t.Helper()
	_, body := c.get(path)
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		c.f.t.Fatalf("no CSRF token on %s:\n%s", path, body)
	}
	return m[1]
}

// signIn signs in as name with password and returns the response.
func (c *client) signIn(login, password string) (*http.Response, string) {
	c.f.t.Helper()
	tok := c.csrf("/console/signin")
	return c.post("/console/signin", url.Values{"csrf": {tok}, "login": {login}, "password": {password}})
}

// signedIn returns a client signed in as name.
func (f *fixture) signedIn(name string) *client {
	f.t.Helper()
	c := f.client()
	res, body := c.signIn(name, passwords[name])
	if res.StatusCode != http.StatusSeeOther {
		f.t.Fatalf("sign in as %s: %d\n%s", name, res.StatusCode, body)
	}
	return c
}

// change posts a form with the CSRF token of the page at from.
func (c *client) change(from, path string, form url.Values) (*http.Response, string) {
	c.f.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", c.csrf(from))
	return c.post(path, form)
}
