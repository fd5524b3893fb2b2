package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"frameindex/state"
)

// Everything the web application shows is in the binary: templates, the
// stylesheet and the script. Nothing is fetched from another host.
//
//go:embed assets
var assets embed.FS

// page is what every template gets.
type page struct {
	Title    string
	Nav      string // the section the page belongs to, for aria-current
	Signed   bool
	UserName string
	Org      string
	Role     string
	Orgs     []state.Membership
	CSRF     string
	Can      struct{ Mint, Members, Audit bool }
	Flash    string
	Error    string
	Data     any
}

// newPage returns a page for the signed-in person of r (if any).
func (s *Server) newPage(r *http.Request, title, nav string) *page {
	rq := requestOf(r)
	p := &page{Title: title, Nav: nav}
	if rq.token != "" && rq.user != "" {
		p.Signed = !rq.u.MustChange
		p.UserName, p.Org, p.Role, p.Orgs, p.CSRF = rq.user, rq.org, rq.role, rq.u.Orgs, rq.se.CSRF
		p.Can.Mint, p.Can.Members, p.Can.Audit = can(rq.role, actMint), can(rq.role, actMembers), can(rq.role, actAudit)
	}
	return p
}

// pages holds the parsed templates, one set per page, and the static
// files with their content hashes.
type pages struct {
	sets    map[string]*template.Template
	static  map[string][]byte
	version map[string]string // file -> first 8 hex digits of its SHA-256
}

func mustParsePages() *pages {
	p := &pages{sets: map[string]*template.Template{}, static: map[string][]byte{}, version: map[string]string{}}
	files, err := fs.Glob(assets, "assets/static/*")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		b, err := assets.ReadFile(f)
		if err != nil {
			panic(err)
		}
		name := path.Base(f)
		sum := sha256.Sum256(b)
		p.static[name], p.version[name] = b, hex.EncodeToString(sum[:4])
	}
	funcs := template.FuncMap{
		"asset": func(name string) string { return Prefix + "static/" + name + "?v=" + p.version[name] },
		"thousands": func(n int64) string {
			return thousands(n)
		},
		"join": strings.Join,
	}
	base := template.Must(template.New("layout").Funcs(funcs).ParseFS(assets, "assets/templates/layout.html"))
	pagesFiles, err := fs.Glob(assets, "assets/templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, f := range pagesFiles {
		name := strings.TrimSuffix(path.Base(f), ".html")
		if name == "layout" {
			continue
		}
		p.sets[name] = template.Must(template.Must(base.Clone()).ParseFS(assets, f))
	}
	return p
}

// render writes page p with template name and status.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	t := s.pages.sets[name]
	var buf bytes.Buffer
	if t == nil {
		s.log.Error("console: no template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.Error("console: rendering a page failed", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

type errorData struct{ Heading, Text string }

// errorPage answers with a page that says what went wrong and what to do.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	p := s.newPage(r, heading, "")
	p.Data = errorData{Heading: heading, Text: text}
	s.render(w, r, status, "error", p)
}

// fail answers a server failure: a vague page, the cause in the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("console: request failed", "path", logPath(r.URL.Path), "err", err)
	s.errorPage(w, r, http.StatusInternalServerError, "Something went wrong",
		"The server could not do this. Nothing was changed unless the page says so. Try again; if it keeps failing, tell your operator (the cause is in the server's log).")
}

var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// handleStatic serves an embedded static file. Asked for with its current
// version (as pages link it), it may be cached for good.
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, ok := s.pages.static[name]
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no file at this address.")
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentTypes[path.Ext(name)])
	if r.URL.Query().Get("v") == s.pages.version[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	w.Write(b)
}
