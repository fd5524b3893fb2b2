package origin

import (
	"net/http"
	"testing"
)

func TestBase_URL(t *testing.T) {
	lan, _ := New("", "192.168.7.20:8080")
	local, _ := New("", "127.0.0.1:8080")
	pub, err := New("https://maps.example.gov.ng/frames/", "127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		b      *Base
		host   string
		fwd    string // X-Forwarded-Host, never believed
		proto  string // X-Forwarded-Proto, never believed
		want   string
		secure bool
	}{
		{"loopback host", local, "127.0.0.1:8080", "", "", "http://127.0.0.1:8080", false},
		{"localhost", local, "localhost:8080", "", "", "http://localhost:8080", false},
		{"localhost in capitals", local, "LOCALHOST:8080", "", "", "http://localhost:8080", false},
		{"forged host", local, "evil.example:8080", "", "", "http://127.0.0.1:8080", false},
		{"forged forwarded host", local, "127.0.0.1:8080", "evil.example", "https", "http://127.0.0.1:8080", false},
		{"the listen address", lan, "192.168.7.20:8080", "", "", "http://192.168.7.20:8080", false},
		{"another port", lan, "192.168.7.20:9999", "", "", "http://192.168.7.20:8080", false},
		{"public URL wins", pub, "evil.example", "evil.example", "", "https://maps.example.gov.ng/frames", true},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest("GET", "http://x/ogc", nil)
		r.Host = tc.host
		if tc.fwd != "" {
			r.Header.Set("X-Forwarded-Host", tc.fwd)
		}
		if tc.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tc.proto)
		}
		if got := tc.b.URL(r); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		if tc.b.Secure() != tc.secure {
			t.Errorf("%s: secure %v", tc.name, tc.b.Secure())
		}
	}
	var zero *Base
	r, _ := http.NewRequest("GET", "http://x/", nil)
	r.Host = "evil.example"
	if got := zero.URL(r); got != "http://localhost" {
		t.Errorf("nil base, forged host: %s", got)
	}
}

func TestNew_BadPublicURL(t *testing.T) {
	for _, u := range []string{"maps.example.gov.ng", "ftp://x", "https://", "https://x/?a=1", "https://u:p@x"} {
		if _, err := New(u, "127.0.0.1:8080"); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

func TestNew_Wildcard(t *testing.T) {
	b, err := New("", "0.0.0.0:8080")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("GET", "http://x/", nil)
	r.Host = "127.0.0.1:8080"
	if got := b.URL(r); got != "http://127.0.0.1:8080" {
		t.Errorf("wildcard, loopback: %s", got)
	}
	r.Host = "evil.example:8080"
	if got := b.URL(r); got != "http://127.0.0.1:8080" {
		t.Errorf("wildcard, forged: %s", got)
	}
}
