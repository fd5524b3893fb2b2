package console

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"frameindex/origin"
)

// TestServer_KeysPageLinks: the keys page's example call names this
// server as the origin allows, never a forged Host.
func TestServer_KeysPageLinks(t *testing.T) {
	pub, _ := origin.New("https://maps.example.gov.ng", "127.0.0.1:8080")
	for _, tc := range []struct {
		name string
		base *origin.Base
		host string
		want string
	}{
		{"loopback", nil, "", "http://127.0.0.1:"},
		{"forged host", nil, "evil.example", `"http://localhost/v1/frames/at`},
		{"public URL", pub, "evil.example", `"https://maps.example.gov.ng/v1/frames/at`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, false, Config{Origin: tc.base})
			c := f.signedIn("olu")
			form := url.Values{"csrf": {c.csrf("/console/keys")}, "name": {"links"}, "preset": {"full"}, "days": {"30"}}
			req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/console/keys", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.host != "" {
				req.Host = tc.host
			}
			// The session cookie by hand: the jar files it under the
			// server's address, not the forged host.
			u, _ := url.Parse(f.srv.URL + "/console/keys")
			for _, ck := range c.http.Jar.Cookies(u) {
				req.AddCookie(ck)
			}
			res, err := f.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			body := string(b)
			if res.StatusCode != http.StatusCreated {
				t.Fatalf("keys: %d %v %.600s", res.StatusCode, res.Header, body)
			}
			i := strings.Index(body, "Try it")
			if i < 0 {
				t.Fatalf("no example call on the page after a mint:\n%.800s", body)
			}
			if !strings.Contains(body[i:], tc.want) || strings.Contains(body, "evil.example") {
				t.Errorf("keys page link: want %q, no evil.example:\n%.300s", tc.want, body[i:])
			}
		})
	}
}
