package console

import (
	"errors"
	"frameindex/origin"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

func sessionCookie(res *http.Response) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == cookieSession {
			return c
		}
	}
	return nil
}

func TestServer_CookieFlags(t *testing.T) {
	tests := []struct {
		name       string
		tls        bool
		secure     bool   // Config.SecureCookies
		public     string // serve --public-url
		wantSecure bool
	}{
		{name: "plain HTTP", wantSecure: false},
		{name: "TLS", tls: true, wantSecure: true},
		{name: "behind a TLS proxy", secure: true, wantSecure: true},
		{name: "public https URL", public: "https://maps.example.gov.ng", wantSecure: true},
		{name: "public http URL", public: "http://maps.example.gov.ng", wantSecure: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := origin.New(tt.public, "127.0.0.1:8080")
			if err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, tt.tls, Config{SecureCookies: tt.secure, Origin: base})
			c := f.client()
			res, _ := c.get("/console/signin")
			for _, ck := range res.Cookies() {
				if ck.Name == cookieSignIn && (!ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure != tt.wantSecure || ck.Path != Prefix) {
					t.Errorf("sign-in cookie %+v", ck)
				}
			}
			res, body := c.signIn("olu", passwords["olu"])
			ck := sessionCookie(res)
			if res.StatusCode != http.StatusSeeOther || ck == nil {
				t.Fatalf("sign in: %d, cookie %v\n%s", res.StatusCode, ck, body)
			}
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Secure != tt.wantSecure || ck.Path != Prefix {
				t.Errorf("session cookie HttpOnly=%v SameSite=%v Secure=%v Path=%q", ck.HttpOnly, ck.SameSite, ck.Secure, ck.Path)
			}
			if ck.MaxAge != 0 || !ck.Expires.IsZero() {
				t.Errorf("session cookie outlives the browser: %+v", ck)
			}
			res, _ = c.get("/console/keys")
			h := res.Header
			if res.StatusCode != http.StatusOK || h.Get("Cache-Control") != "no-store" || h.Get("X-Frame-Options") != "DENY" ||
				!strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("keys page: %d, headers %v", res.StatusCode, h)
			}
		})
	}
}

func TestServer_CSRF(t *testing.T) {
	f := newFixture(t, false, Config{})
	olu := f.signedIn("olu")
	good := olu.csrf("/console/keys")
	mint := url.Values{"preset": {"full"}, "days": {"30"}, "name": {"csrf probe"}}
	with := func(extra url.Values) url.Values {
		v := url.Values{}
		for k, vs := range mint {
			v[k] = vs
		}
		for k, vs := range extra {
			v[k] = vs
		}
		return v
	}
	tests := []struct {
		name   string
		form   url.Values
		header []string
		want   int
	}{
		{name: "token missing", form: with(nil), want: http.StatusForbidden},
		{name: "token wrong", form: with(url.Values{"csrf": {strings.Repeat("A", 43)}}), want: http.StatusForbidden},
		{name: "token of the sign-in form", form: with(url.Values{"csrf": {olu.csrf("/console/signin")}}), want: http.StatusForbidden},
		{name: "other origin", form: with(url.Values{"csrf": {good}}), header: []string{"Origin", "http://evil.example"}, want: http.StatusForbidden},
		{name: "cross-site fetch", form: with(url.Values{"csrf": {good}}), header: []string{"Sec-Fetch-Site", "cross-site"}, want: http.StatusForbidden},
		{name: "token in a header", form: mint, header: []string{"X-CSRF-Token", good}, want: http.StatusCreated},
		{name: "token right, same origin", form: with(url.Values{"csrf": {good}}), header: []string{"Origin", f.srv.URL, "Sec-Fetch-Site", "same-origin"}, want: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := f.store.Keys("acme")
			res, body := olu.post("/console/keys", tt.form, tt.header...)
			if res.StatusCode != tt.want {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, tt.want, body)
			}
			after, _ := f.store.Keys("acme")
			if minted := len(after) - len(before); (minted == 1) != (tt.want == http.StatusCreated) {
				t.Errorf("%d keys minted", minted)
			}
		})
	}
	// Sign-out and sign-in are changes too.
	if res, _ := olu.post("/console/signout", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without a token: %d", res.StatusCode)
	}
	anon := f.client()
	anon.get("/console/signin") // sets the sign-in cookie, whose token is left out below
	res, _ := anon.post("/console/signin", url.Values{"login": {"olu"}, "password": {passwords["olu"]}})
	if res.StatusCode != http.StatusForbidden || sessionCookie(res) != nil {
		t.Errorf("sign-in without a token: %d", res.StatusCode)
	}
	res, _ = f.client().post("/console/signin", url.Values{"csrf": {strings.Repeat("A", 43)}, "login": {"olu"}, "password": {passwords["olu"]}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("sign-in with a token but no cookie: %d", res.StatusCode)
	}
}

func TestServer_SessionExpiry(t *testing.T) {
	f := newFixture(t, false, Config{Sessions: state.SessionLimits{Idle: 30 * time.Minute, Absolute: 2 * time.Hour}})
	tests := []struct {
		name  string
		steps []time.Duration // wait, then load a page
		alive []bool
	}{
		{name: "active within the idle limit", steps: []time.Duration{20 * time.Minute, 20 * time.Minute, 20 * time.Minute}, alive: []bool{true, true, true}},
		{name: "idle too long", steps: []time.Duration{10 * time.Minute, 31 * time.Minute}, alive: []bool{true, false}},
		{name: "absolute limit", steps: []time.Duration{25 * time.Minute, 25 * time.Minute, 25 * time.Minute, 25 * time.Minute, 25 * time.Minute}, alive: []bool{true, true, true, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := f.signedIn("olu")
			for i, d := range tt.steps {
				f.clock.Add(d)
				res, _ := c.get("/console/usage")
				alive := res.StatusCode == http.StatusOK
				if alive != tt.alive[i] {
					t.Fatalf("step %d (+%v): status %d, alive %v, want %v", i, d, res.StatusCode, alive, tt.alive[i])
				}
				if !alive {
					loc := res.Header.Get("Location")
					if !strings.HasPrefix(loc, "/console/signin?") || !strings.Contains(loc, "msg=expired") || !strings.Contains(loc, "next=%2Fconsole%2Fusage") {
						t.Errorf("expired session sent to %q", loc)
					}
					if ck := sessionCookie(res); ck == nil || ck.MaxAge >= 0 {
						t.Errorf("expired session's cookie not cleared: %v", ck)
					}
				}
			}
		})
	}
	// Signing out ends the session on the server, not just in the browser.
	c := f.signedIn("olu")
	token := ""
	u, _ := url.Parse(f.srv.URL + Prefix)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == cookieSession {
			token = ck.Value
		}
	}
	if res, _ := c.change("/console/keys", "/console/signout", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.StatusCode)
	}
	if _, _, err := f.store.Session(token, f.clock.Now(), state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session after sign-out: %v", err)
	}
	replay := f.client()
	replay.http.Jar.SetCookies(u, []*http.Cookie{{Name: cookieSession, Value: token, Path: Prefix}})
	if res, _ := replay.get("/console/keys"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a signed-out token still opens pages: %d", res.StatusCode)
	}
}

func TestServer_ThrottlesFailedSignIns(t *testing.T) {
	f := newFixture(t, false, Config{})
	c := f.client()
	for i := 0; i < acctFree; i++ {
		if res, _ := c.signIn("olu", "wrong password "+string(rune('a'+i))); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d", i, res.StatusCode)
		}
	}
	// Now even the right password is not checked.
	res, body := c.signIn("olu", passwords["olu"])
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "30" || !strings.Contains(body, "Too many failed sign-ins") {
		t.Fatalf("sixth try: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	// The person is throttled whatever login they type: the name in
	// capitals and the e-mail address share the account's allowance.
	for _, login := range []string{"OLU", "olu@example.ng", "OLU@Example.NG"} {
		if res, _ := c.signIn(login, passwords["olu"]); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("%s: %d", login, res.StatusCode)
		}
	}
	// Another account from the same address is not held up yet.
	if res, _ := c.signIn("ada", passwords["ada"]); res.StatusCode != http.StatusSeeOther {
		t.Errorf("another account: %d", res.StatusCode)
	}
	f.clock.Add(31 * time.Second)
	if res, _ := c.signIn("olu", passwords["olu"]); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after the wait: %d", res.StatusCode)
	}

	// Per address: many accounts, each failing once, from one address.
	f.clock.Add(2 * time.Hour)
	c2 := f.client()
	for i := 0; i < addrFree; i++ {
		c2.signIn("nobody"+string(rune('a'+i)), "guess")
	}
	if res, _ := c2.signIn("mo", passwords["mo"]); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("after %d failures from one address: %d", addrFree, res.StatusCode)
	}
	entries, _ := f.store.AuditLog("", 0)
	failed := 0
	for _, e := range entries {
		if e.Action == "signin" && e.Outcome == state.AuditRefused {
			failed++
		}
	}
	if failed != acctFree+addrFree {
		t.Errorf("%d failed sign-ins audited, want %d", failed, acctFree+addrFree)
	}
}

func TestThrottle_Backoff(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{
		{acctFree - 1, 0},
		{acctFree, 30 * time.Second},
		{acctFree + 1, time.Minute},
		{acctFree + 2, 2 * time.Minute},
		{acctFree + 10, state.SignInWaitMax},
	}
	for _, tt := range tests {
		th := newThrottle()
		for i := 0; i < tt.failures; i++ {
			// Backdated attempts, so each is admitted and counted.
			th.mu.Lock()
			th.failKey(acctKey("olu"), acctFree, fixtureStart)
			th.mu.Unlock()
		}
		if got := th.begin("olu", "10.9.9.9", fixtureStart); got != tt.want {
			t.Errorf("%d failures: wait %v, want %v", tt.failures, got, tt.want)
		}
		th.succeed("olu", "10.9.9.9")
		if got := th.begin("olu", "10.9.9.9", fixtureStart); got != 0 {
			t.Errorf("after a success: wait %v", got)
		}
	}
	th := newThrottle()
	th.begin("olu", "a", fixtureStart)
	th.prune(fixtureStart.Add(throttleForget))
	if len(th.entries) != 0 {
		t.Errorf("prune kept %d entries", len(th.entries))
	}
}

func TestServer_FirstSignInForcesNewPassword(t *testing.T) {
	f := newFixture(t, false, Config{})
	_, otp, err := f.store.AddUser(state.NewUser{Name: "neo", Org: "acme", Role: state.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	c := f.client()
	res, _ := c.signIn("neo", otp)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/console/password" {
		t.Fatalf("sign in with a one-time password: %d to %q", res.StatusCode, loc)
	}
	for _, p := range []string{"/console/keys", "/console/usage", "/console/members"} {
		if res, _ := c.get(p); res.Header.Get("Location") != "/console/password" {
			t.Errorf("%s before choosing a password: %d %q", p, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if res, _ := c.change("/console/password", "/console/keys", url.Values{"preset": {"full"}, "days": {"9"}}); res.Header.Get("Location") != "/console/password" {
		t.Errorf("mint before choosing a password: %d", res.StatusCode)
	}
	tests := []struct {
		name, current, next, confirm string
		want                         int
		text                         string
	}{
		{"confirmation differs", otp, "a brand new password", "a brand new passwort", http.StatusBadRequest, "differ"},
		{"too short", otp, "short", "short", http.StatusBadRequest, "at least 12"},
		{"too common", otp, "123456789012", "123456789012", http.StatusBadRequest, "too easy to guess: it is one of the most common passwords"},
		{"wrong current", "nope", "a brand new password", "a brand new password", http.StatusBadRequest, "current password is wrong"},
		{"ok", otp, "a brand new password", "a brand new password", http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		res, body := c.change("/console/password", "/console/password", url.Values{"current": {tt.current}, "new": {tt.next}, "confirm": {tt.confirm}})
		if res.StatusCode != tt.want || !strings.Contains(body, tt.text) {
			t.Errorf("%s: %d\n%s", tt.name, res.StatusCode, body)
		}
	}
	if res, body := c.get("/console/keys"); res.StatusCode != http.StatusOK || !strings.Contains(body, "Mint a key") {
		t.Errorf("after choosing a password: %d", res.StatusCode)
	}
	if res, _ := f.client().signIn("neo", otp); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("one-time password works twice: %d", res.StatusCode)
	}
}

var secretRe = regexp.MustCompile(`svc_sk_[0-9A-Za-z]{43}`)

func TestServer_MintAndRevoke(t *testing.T) {
	f := newFixture(t, false, Config{})
	olu := f.signedIn("olu")
	tests := []struct {
		name string
		form url.Values
		want int
		text string
	}{
		{"no preset", url.Values{"days": {"30"}}, http.StatusBadRequest, "Choose a preset"},
		{"unknown preset", url.Values{"preset": {"root"}, "days": {"30"}}, http.StatusBadRequest, "Choose a preset"},
		{"zero days", url.Values{"preset": {"full"}, "days": {"0"}}, http.StatusBadRequest, "1 to 366"},
		{"too long", url.Values{"preset": {"full"}, "days": {"367"}}, http.StatusBadRequest, "1 to 366"},
		{"not a number", url.Values{"preset": {"full"}, "days": {"9d"}}, http.StatusBadRequest, "1 to 366"},
		{"dataset not readable", url.Values{"preset": {"full"}, "days": {"30"}, "datasets": {"secrets"}}, http.StatusBadRequest, "can read"},
		{"name with a control character", url.Values{"preset": {"full"}, "days": {"30"}, "name": {"a\tb"}}, http.StatusBadRequest, "control character"},
		{"ok", url.Values{"preset": {"locality"}, "days": {"30"}, "name": {"<b>field app</b>"}}, http.StatusCreated, "Copy the secret now"},
	}
	var secret string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := olu.change("/console/keys", "/console/keys", tt.form)
			if res.StatusCode != tt.want || !strings.Contains(body, tt.text) {
				t.Fatalf("status %d, want %d with %q\n%s", res.StatusCode, tt.want, tt.text, body)
			}
			if tt.want == http.StatusCreated {
				secret = secretRe.FindString(body)
				if strings.Contains(body, "<b>field app</b>") {
					t.Error("key name not escaped")
				}
			}
		})
	}
	kr, _ := f.store.Keyring()
	k, err := kr.Lookup(secret, f.clock.Now())
	if err != nil || k.OrgID != "acme" || k.Preset != "locality" || !k.Expires.Equal(f.clock.Now().Add(30*24*time.Hour)) {
		t.Fatalf("minted key %+v, %v", k, err)
	}
	// The secret is shown once: the list never holds it.
	if _, body := olu.get("/console/keys"); strings.Contains(body, secret) || !strings.Contains(body, k.ID) {
		t.Error("the key list shows the secret, or not the key")
	}
	// Last use, recorded in memory by the API's lookup, shows at once.
	tracked := f.con.Keys(func() *state.Keyring { return kr })
	f.clock.Add(time.Minute)
	if _, err := tracked.Lookup(secret, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, body := olu.get("/console/keys"); !strings.Contains(body, timeText(f.clock.Now())) {
		t.Error("last use not shown")
	}
	// Revoking another organisation's key is "not found", and changes nothing.
	rivalKey := f.keys["rival"].ID
	if res, _ := olu.get("/console/keys/" + rivalKey + "/revoke"); res.StatusCode != http.StatusNotFound {
		t.Errorf("confirm page of rival's key: %d", res.StatusCode)
	}
	if res, _ := olu.change("/console/keys", "/console/keys/"+rivalKey+"/revoke", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("revoke rival's key: %d", res.StatusCode)
	}
	if rk, _ := f.store.Key(rivalKey); !rk.Revoked.IsZero() {
		t.Fatal("rival's key was revoked")
	}
	if res, body := olu.get("/console/keys/" + k.ID + "/revoke"); res.StatusCode != http.StatusOK || !strings.Contains(body, "cannot be undone") {
		t.Errorf("confirm page: %d", res.StatusCode)
	}
	res, _ := olu.change("/console/keys", "/console/keys/"+k.ID+"/revoke", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	if rk, _ := f.store.Key(k.ID); rk.Revoked.IsZero() {
		t.Error("not revoked")
	}
	// Close writes the last uses to the file.
	if err := f.con.Close(); err != nil {
		t.Fatal(err)
	}
	if used, _ := f.store.KeysLastUsed([]string{k.ID}); !used[k.ID].Equal(f.clock.Now().Truncate(time.Second)) {
		t.Errorf("last use in the file: %v", used)
	}
}

// TestServer_Roles: what each role may do, whatever the pages show; a
// crafted request is refused, audited, and changes nothing.
func TestServer_Roles(t *testing.T) {
	f := newFixture(t, false, Config{})
	olu, ada, mo := f.signedIn("olu"), f.signedIn("ada"), f.signedIn("mo")
	moKeys := mo.csrf("/console/keys")
	if _, body := mo.get("/console/keys"); strings.Contains(body, "Mint a key") || strings.Contains(body, "/revoke") {
		t.Error("a member is offered minting or revoking")
	}
	tests := []struct {
		name   string
		c      *client
		method string
		path   string
		form   url.Values
		want   int
	}{
		{"member sees keys", mo, "GET", "/console/keys", nil, http.StatusOK},
		{"member sees usage", mo, "GET", "/console/usage", nil, http.StatusOK},
		{"member cannot mint", mo, "POST", "/console/keys", url.Values{"preset": {"full"}, "days": {"30"}}, http.StatusForbidden},
		{"member cannot revoke", mo, "POST", "/console/keys/" + "KEY" + "/revoke", nil, http.StatusForbidden},
		{"member cannot see members", mo, "GET", "/console/members", nil, http.StatusForbidden},
		{"member cannot add a member", mo, "POST", "/console/members", url.Values{"name": {"x1"}, "role": {"member"}}, http.StatusForbidden},
		{"member cannot read the audit log", mo, "GET", "/console/audit", nil, http.StatusForbidden},
		{"admin cannot read the audit log", ada, "GET", "/console/audit", nil, http.StatusForbidden},
		{"admin cannot add an owner", ada, "POST", "/console/members", url.Values{"name": {"x2"}, "role": {"owner"}}, http.StatusForbidden},
		{"admin cannot demote an owner", ada, "POST", "/console/members/olu/role", url.Values{"role": {"member"}}, http.StatusForbidden},
		{"admin cannot make an owner", ada, "POST", "/console/members/mo/role", url.Values{"role": {"owner"}}, http.StatusForbidden},
		{"admin cannot remove an owner", ada, "POST", "/console/members/olu/remove", nil, http.StatusForbidden},
		{"admin cannot reset an owner", ada, "POST", "/console/members/olu/reset", nil, http.StatusForbidden},
		{"nobody changes themselves", olu, "POST", "/console/members/olu/role", url.Values{"role": {"admin"}}, http.StatusForbidden},
		{"another organisation's member is not found", olu, "POST", "/console/members/rivo/remove", nil, http.StatusNotFound},
		{"another organisation's member's reset", olu, "GET", "/console/members/rivo/reset", nil, http.StatusNotFound},
		{"admin mints", ada, "POST", "/console/keys", url.Values{"preset": {"analyst"}, "days": {"7"}}, http.StatusCreated},
		{"admin changes a member's role", ada, "POST", "/console/members/mo/role", url.Values{"role": {"admin"}}, http.StatusSeeOther},
		{"owner reads the audit log", olu, "GET", "/console/audit", nil, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keysBefore, _ := f.store.Keys("")
			path := strings.Replace(tt.path, "KEY", f.keys["acme"].ID, 1)
			var res *http.Response
			var body string
			if tt.method == "GET" {
				res, body = tt.c.get(path)
			} else {
				form := url.Values{}
				for k, v := range tt.form {
					form[k] = v
				}
				if tt.c == mo {
					form.Set("csrf", moKeys)
					res, body = tt.c.post(path, form)
				} else {
					res, body = tt.c.change("/console/keys", path, form)
				}
			}
			if res.StatusCode != tt.want {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, tt.want, body)
			}
			keysAfter, _ := f.store.Keys("")
			if tt.want == http.StatusForbidden || tt.want == http.StatusNotFound {
				if len(keysAfter) != len(keysBefore) {
					t.Error("a refused request minted a key")
				}
				for _, k := range keysAfter {
					if !k.Revoked.IsZero() {
						t.Errorf("a refused request revoked %s", k.ID)
					}
				}
			}
		})
	}
	if u, _ := f.store.User("olu"); u.Orgs[0].Role != state.RoleOwner {
		t.Error("olu is no longer owner")
	}
	log, _ := f.store.AuditLog("acme", 0)
	refused := 0
	for _, e := range log {
		if e.Outcome == state.AuditRefused && (e.Actor == "mo" || e.Actor == "ada" || e.Actor == "olu") {
			refused++
		}
	}
	if refused < 12 {
		t.Errorf("%d refusals audited", refused)
	}
	// The members page hides what a person may not do.
	_, body := ada.get("/console/members")
	if strings.Contains(body, `value="owner"`) || strings.Contains(body, "/console/members/olu/remove") {
		t.Error("an admin is offered owner actions")
	}
}

func TestServer_MembersLifecycle(t *testing.T) {
	f := newFixture(t, false, Config{})
	olu := f.signedIn("olu")
	res, body := olu.change("/console/members", "/console/members", url.Values{"name": {"Tunde"}, "email": {"tunde@example.ng"}, "role": {"member"}})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("add: %d\n%s", res.StatusCode, body)
	}
	otp := regexp.MustCompile(`id="otp" type="text" readonly value="([^"]+)"`).FindStringSubmatch(body)
	if otp == nil {
		t.Fatalf("no one-time password shown:\n%s", body)
	}
	for _, tt := range []struct {
		name string
		form url.Values
		want int
	}{
		{"taken here", url.Values{"name": {"tunde"}, "role": {"member"}}, http.StatusConflict},
		{"taken in another organisation", url.Values{"name": {"rivo"}, "role": {"member"}}, http.StatusConflict},
		{"e-mail taken", url.Values{"name": {"tunde2"}, "email": {"TUNDE@example.ng"}, "role": {"member"}}, http.StatusConflict},
		{"bad name", url.Values{"name": {"tu nde"}, "role": {"member"}}, http.StatusBadRequest},
		{"bad role", url.Values{"name": {"tunde3"}, "role": {"boss"}}, http.StatusBadRequest},
	} {
		if res, body := olu.change("/console/members", "/console/members", tt.form); res.StatusCode != tt.want {
			t.Errorf("%s: %d, want %d\n%s", tt.name, res.StatusCode, tt.want, body)
		}
	}
	tunde := f.client()
	if res, _ := tunde.signIn("tunde@example.ng", otp[1]); res.Header.Get("Location") != "/console/password" {
		t.Fatalf("new member's first sign-in: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// A reset gives a new one-time password and signs them out.
	res, body = olu.change("/console/members", "/console/members/tunde/reset", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "New one-time password for tunde") {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	if res, _ := tunde.get("/console/password"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("session survived the reset: %d", res.StatusCode)
	}
	// The last owner cannot go; removal signs the member out.
	if _, err := f.store.SetRole("ada", "acme", state.RoleOwner); err != nil {
		t.Fatal(err)
	}
	ada := f.signedIn("ada")
	if res, _ := ada.change("/console/members", "/console/members/olu/remove", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner removes owner: %d", res.StatusCode)
	}
	if res, _ := olu.get("/console/keys"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("removed member still signed in: %d", res.StatusCode)
	}
	if _, err := f.store.User("olu"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("olu, in no organisation, still exists: %v", err)
	}
	// A person of several organisations is not reset from one of them.
	if _, _, err := f.store.AddUser(state.NewUser{Name: "mo", Org: "rival", Role: state.RoleMember}); err != nil {
		t.Fatal(err)
	}
	if res, _ := ada.get("/console/members/mo/reset"); res.StatusCode != http.StatusForbidden {
		t.Errorf("reset of a person of two organisations: %d", res.StatusCode)
	}
}

// TestServer_Boundaries: an API key does not open the web application, and
// nothing of the API is served by it, nor anything of it by the API.
func TestServer_Boundaries(t *testing.T) {
	f := newFixture(t, false, Config{})
	c := f.client()
	req, _ := http.NewRequest(http.MethodGet, f.srv.URL+"/console/keys", nil)
	req.Header.Set("Authorization", "Bearer svc_sk_"+strings.Repeat("A", 43))
	if res, _ := c.do(req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("API key on the console: %d", res.StatusCode)
	}
	olu := f.signedIn("olu")
	// With a session, still refused when a key is sent along.
	req, _ = http.NewRequest(http.MethodGet, f.srv.URL+"/console/keys", nil)
	req.Header.Set("Authorization", "Bearer x")
	if res, _ := olu.do(req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("session plus Authorization: %d", res.StatusCode)
	}
	// The session cookie is scoped to /console/: /v1 never gets it.
	res, _ := olu.get("/v1/frames/at?lat=9&lon=7")
	if res.StatusCode != http.StatusTeapot {
		t.Fatalf("/v1 not passed to the API: %d", res.StatusCode)
	}
	r := <-f.apiHit
	if _, err := r.Cookie(cookieSession); err == nil {
		t.Error("the API received the session cookie")
	}
	for _, p := range []string{"/consolex", "/v1/console/", "/"} {
		if res, _ := olu.get(p); res.StatusCode != http.StatusTeapot {
			t.Errorf("%s: %d, want the API's", p, res.StatusCode)
		}
	}
	if res, _ := olu.get("/console"); res.StatusCode != http.StatusMovedPermanently {
		t.Errorf("/console: %d", res.StatusCode)
	}
	if res, _ := olu.get("/console/nope"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/console/nope: %d", res.StatusCode)
	}
	// Another organisation's keys, members and usage never show.
	for _, p := range []string{"/console/keys", "/console/members", "/console/usage", "/console/audit"} {
		_, body := olu.get(p)
		if strings.Contains(body, f.keys["rival"].ID) || strings.Contains(body, "rivo") || strings.Contains(body, "rival app") {
			t.Errorf("%s shows rival's things", p)
		}
	}
	// The sign-in redirect never leaves the web application.
	for _, next := range []string{"https://evil.example/", "//evil.example", "/console/../v1", "/console/\\evil", "/console/signin"} {
		if got := localNext(next); got != "/console/keys" {
			t.Errorf("localNext(%q) = %q", next, got)
		}
	}
	if got := localNext("/console/usage"); got != "/console/usage" {
		t.Errorf("localNext(usage) = %q", got)
	}
}

// TestServer_NoSecretsInLogs: passwords, one-time passwords, key secrets,
// session and CSRF tokens never reach a log line.
func TestServer_NoSecretsInLogs(t *testing.T) {
	f := newFixture(t, false, Config{})
	c := f.client()
	c.signIn("olu", "a wrong password here")
	olu := f.signedIn("olu")
	_, body := olu.change("/console/keys", "/console/keys", url.Values{"preset": {"full"}, "days": {"3"}})
	secret := secretRe.FindString(body)
	_, body = olu.change("/console/members", "/console/members", url.Values{"name": {"kemi"}, "role": {"member"}})
	otp := regexp.MustCompile(`id="otp" type="text" readonly value="([^"]+)"`).FindStringSubmatch(body)
	csrf := olu.csrf("/console/keys")
	kemi := f.client()
	kemi.signIn("kemi", otp[1])
	kemi.change("/console/password", "/console/password", url.Values{"current": {otp[1]}, "new": {"kemi's new password"}, "confirm": {"kemi's new password"}})
	olu.get("/console/" + secret) // pasted into the address bar
	u, _ := url.Parse(f.srv.URL + Prefix)
	var tokens []string
	for _, cl := range []*client{olu, kemi} {
		for _, ck := range cl.http.Jar.Cookies(u) {
			tokens = append(tokens, ck.Value)
		}
	}
	logs := f.logs.String()
	if !strings.Contains(logs, "console request") {
		t.Fatal("nothing logged")
	}
	for _, s := range append(tokens, secret, otp[1], csrf, passwords["olu"], "a wrong password here", "kemi's new password") {
		if s != "" && strings.Contains(logs, s) {
			t.Errorf("log holds %q", s)
		}
	}
	audit, _ := f.store.AuditLog("", 0)
	for _, e := range audit {
		line := e.Actor + e.Target + e.Detail + e.Reason
		for _, s := range []string{secret, otp[1], passwords["olu"], "a wrong password here", "kemi's new password"} {
			if strings.Contains(line, s) {
				t.Errorf("audit entry holds a secret: %+v", e)
			}
		}
	}
}

func TestServer_UsagePage(t *testing.T) {
	f := newFixture(t, false, Config{})
	if _, _, err := f.store.AddCredits("acme", 10, "opening <grant>", fixtureStart); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.Charge("acme", f.keys["acme"].ID, "req1", []state.DatasetPrice{{ID: "nightlights", Price: 2}}, fixtureStart); err != nil {
		t.Fatal(err)
	}
	r, err := f.store.ReserveAnswer("acme", f.keys["acme"].ID, "req2", 1, fixtureStart)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.CommitAnswer(r); err != nil {
		t.Fatal(err)
	}
	mo := f.signedIn("mo")
	res, body := mo.get("/console/usage")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("usage: %d", res.StatusCode)
	}
	for _, want := range []string{
		"<strong>Pro</strong> plan", "2,000 worded answers a month", // the plan
		`1 <span class="of">of 2,000</span>`,                                            // this month
		`8 <span class="of">credits</span>`,                                             // balance
		"<code>nightlights</code></th><td class=\"num\">1</td><td class=\"num\">2</td>", // charges by dataset
		`role="img"`, "<svg", "Credit balance over time", "Credits charged per dataset", // charts
		"opening &lt;grant&gt;", "dataset nightlights, key " + f.keys["acme"].ID, // the ledger, escaped
	} {
		if !strings.Contains(body, want) {
			t.Errorf("usage page lacks %q", want)
		}
	}
	if strings.Contains(body, "<grant>") {
		t.Error("ledger note not escaped")
	}
}

func TestServer_StaticAssets(t *testing.T) {
	f := newFixture(t, false, Config{})
	c := f.client()
	_, page := c.get("/console/signin")
	for _, name := range []string{"console.css", "console.js", "icon.svg"} {
		m := regexp.MustCompile(`/console/static/` + regexp.QuoteMeta(name) + `\?v=[0-9a-f]{8}`).FindString(page)
		if m == "" {
			t.Fatalf("page does not link %s", name)
		}
		res, body := c.get(m)
		if res.StatusCode != http.StatusOK || body == "" || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %q", name, res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
	if res, _ := c.get("/console/static/console.css"); res.Header.Get("Cache-Control") != "no-cache" {
		t.Error("unversioned asset cached for good")
	}
	if res, _ := c.get("/console/static/nope.js"); res.StatusCode != http.StatusNotFound {
		t.Error("missing asset found")
	}
	// Nothing is fetched from another host.
	for _, p := range []string{"/console/signin"} {
		_, body := c.get(p)
		if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(body) {
			t.Errorf("%s links another host", p)
		}
	}
}

func TestServer_OneTimePasswordExpires(t *testing.T) {
	f := newFixture(t, false, Config{})
	_, otp, err := f.store.AddUser(state.NewUser{Name: "late", Org: "acme", Role: state.RoleMember, Now: f.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Add(state.OneTimePasswordTTL + time.Minute)
	res, body := f.client().signIn("late", otp)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "one-time password has expired") {
		t.Fatalf("expired one-time password: %d\n%s", res.StatusCode, body)
	}
}

func TestServer_SwitchOrganisation(t *testing.T) {
	f := newFixture(t, false, Config{})
	if _, _, err := f.store.AddUser(state.NewUser{Name: "mo", Org: "rival", Role: state.RoleAdmin}); err != nil {
		t.Fatal(err)
	}
	mo := f.signedIn("mo")
	_, body := mo.get("/console/keys")
	if !strings.Contains(body, `id="org-switch"`) || !strings.Contains(body, f.keys["acme"].ID) || strings.Contains(body, "Mint a key") {
		t.Fatal("acme as a member: no switch, or wrong keys")
	}
	if res, _ := mo.change("/console/keys", "/console/org", url.Values{"org": {"nope"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("switch to a foreign organisation: %d", res.StatusCode)
	}
	if res, _ := mo.change("/console/keys", "/console/org", url.Values{"org": {"rival"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch: %d", res.StatusCode)
	}
	_, body = mo.get("/console/keys")
	if !strings.Contains(body, f.keys["rival"].ID) || strings.Contains(body, f.keys["acme"].ID) || !strings.Contains(body, "Mint a key") {
		t.Error("after switching to rival (admin): wrong keys or no minting")
	}
	// In rival, mo is an admin: a key minted now is rival's.
	res, body := mo.change("/console/keys", "/console/keys", url.Values{"preset": {"analyst"}, "days": {"5"}})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("mint in rival: %d", res.StatusCode)
	}
	kr, _ := f.store.Keyring()
	if k, err := kr.Lookup(secretRe.FindString(body), f.clock.Now()); err != nil || k.OrgID != "rival" {
		t.Errorf("minted %+v, %v", k, err)
	}
}
