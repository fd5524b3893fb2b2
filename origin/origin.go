// Package origin says which address this server's links and cookies
// name: the absolute links of the OGC API (which GDAL and QGIS follow,
// sending the key with them) and of the web application.
//
// With a public URL (serve --public-url https://maps.example.gov.ng) every
// link starts with it and cookies are Secure when it is https; the
// request's Host and any X-Forwarded-* header are ignored. Without one, a
// link is built from the request's Host only when that host is one this
// server knows for itself: the listen address, loopback names and, for a
// wildcard listen address, the machine's own interface addresses, each
// with the listening port. Any other Host (a forged one, or a DNS name
// the operator has not declared) gets the listen address instead, so a
// client is never sent a link to a host an attacker chose.
//
// Caveat: behind a reverse proxy, or under a DNS name, set the public URL;
// the proxy's X-Forwarded-Host is never believed.
package origin

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Base is where links point. The zero value allows loopback hosts only.
// Safe for concurrent use once built.
type Base struct {
	public  string          // scheme://host[:port][/path], no trailing slash; "" when none
	secure  bool            // the public URL is https
	allowed map[string]bool // host[:port] accepted from Host, lower case
	listen  string          // host:port of the listen address, the fallback
}

// New returns the base for a server listening on listen (host:port, as
// given to net.Listen or as the listener reports it) with the public URL
// public ("" for none). Errors: a public URL that is not an absolute
// http(s) URL without query or fragment.
func New(public, listen string) (*Base, error) {
	b := &Base{allowed: map[string]bool{}}
	if public != "" {
		u, err := url.Parse(public)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("public URL %q: want an absolute http:// or https:// URL such as https://maps.example.gov.ng (no query, fragment or user)", public)
		}
		b.public = strings.TrimSuffix(u.Scheme+"://"+u.Host+u.EscapedPath(), "/")
		b.secure = u.Scheme == "https"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		host, port = listen, ""
	}
	add := func(h string) {
		h = strings.ToLower(h)
		if port != "" {
			b.allowed[net.JoinHostPort(h, port)] = true
			if port == "80" || port == "443" {
				b.allowed[h] = true
			}
		} else {
			b.allowed[h] = true
		}
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		add(h)
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		// Listening everywhere: the machine's own addresses are its names.
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					add(n.IP.String())
				}
			}
		}
		b.listen = net.JoinHostPort("127.0.0.1", port)
	default:
		add(host)
		b.listen = net.JoinHostPort(host, port)
		if port == "" {
			b.listen = host
		}
	}
	return b, nil
}

// Secure reports whether cookies must be Secure: the public URL is https.
func (b *Base) Secure() bool { return b != nil && b.secure }

// Public returns the public URL, "" when none was set.
func (b *Base) Public() string {
	if b == nil {
		return ""
	}
	return b.public
}

// URL returns the scheme and host (and the public URL's path) that links
// in the answer to r start with, without a trailing slash:
// "https://maps.example.gov.ng" or "http://127.0.0.1:8080".
func (b *Base) URL(r *http.Request) string {
	if b != nil && b.public != "" {
		return b.public
	}
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	host := strings.ToLower(r.Host)
	if b == nil {
		if isLoopback(host) {
			return scheme + host
		}
		return scheme + "localhost"
	}
	if b.allowed[host] {
		return scheme + host
	}
	return scheme + b.listen
}

// isLoopback reports a loopback host[:port], for the zero Base.
func isLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
