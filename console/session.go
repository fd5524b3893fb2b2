package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"frameindex/admin"
	"frameindex/state"
)

// Cookies. Both are HttpOnly, SameSite=Strict, limited to Prefix, and
// Secure over TLS (or with Config.SecureCookies).
const (
	// cookieSession holds the session token; the state holds its digest.
	cookieSession = "fi_session"
	// cookieSignIn holds the sign-in form's CSRF token (double submit):
	// there is no session yet to hold one.
	cookieSignIn = "fi_signin"
)

// tokenLen is the length of a token of newToken.
const tokenLen = 43

// newToken returns 32 random bytes in unpadded base64url.
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// touchEvery is how stale a session's last-seen time may get before a
// request writes it again: the idle limit is kept to within this, without
// a write per request.
const touchEvery = time.Minute

// maxForm bounds a form body.
const maxForm = 64 << 10

// uploadType is the content type of a file sent as a request's body, with
// the CSRF token in the X-CSRF-Token header.
const uploadType = "application/octet-stream"

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /console/{$}", s.handleHome)
	m.HandleFunc("GET /console/signin", s.handleSignInForm)
	m.HandleFunc("POST /console/signin", s.handleSignIn)
	m.HandleFunc("POST /console/signout", s.authed(s.handleSignOut, true))
	m.HandleFunc("GET /console/password", s.authed(s.handlePasswordForm, true))
	m.HandleFunc("POST /console/password", s.authed(s.handlePassword, true))
	m.HandleFunc("POST /console/org", s.authed(s.handleSwitchOrg, false))
	m.HandleFunc("GET /console/keys", s.authed(s.handleKeys, false))
	m.HandleFunc("POST /console/keys", s.authed(s.handleMint, false))
	m.HandleFunc("GET /console/keys/{id}/revoke", s.authed(s.handleRevokeForm, false))
	m.HandleFunc("POST /console/keys/{id}/revoke", s.authed(s.handleRevoke, false))
	m.HandleFunc("GET /console/members", s.authed(s.handleMembers, false))
	m.HandleFunc("POST /console/members", s.authed(s.handleAddMember, false))
	m.HandleFunc("POST /console/members/{name}/role", s.authed(s.handleRole, false))
	m.HandleFunc("GET /console/members/{name}/remove", s.authed(s.handleRemoveForm, false))
	m.HandleFunc("POST /console/members/{name}/remove", s.authed(s.handleRemove, false))
	m.HandleFunc("GET /console/members/{name}/reset", s.authed(s.handleResetForm, false))
	m.HandleFunc("POST /console/members/{name}/reset", s.authed(s.handleReset, false))
	m.HandleFunc("GET /console/usage", s.authed(s.handleUsage, false))
	m.HandleFunc("GET /console/audit", s.authed(s.handleAudit, false))
	s.marketRoutes()
	s.exploreRoutes()
	s.reportRoutes()
	s.enrichRoutes()
	m.HandleFunc("GET /console/static/{file}", s.handleStatic)
	m.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
	})
}

func (s *Server) secureRequest(r *http.Request) bool { return s.secure || r.TLS != nil }

func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.secureRequest(r)})
}

func (s *Server) clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.secureRequest(r)})
}

func cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// sameOrigin refuses a change sent from another site: a browser sends
// Sec-Fetch-Site and Origin with a form post, and both must say it came
// from a page of this server. Requests without them (tools, old browsers)
// rest on the CSRF token alone.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host != r.Host {
			return false
		}
	}
	return true
}

// parseForm reads a form body of at most maxForm bytes.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	if r.Header.Get("Content-Type") == uploadType {
		return nil // a file as the body: its handler caps it (enrich.go)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	return r.ParseForm()
}

// checkCSRF reports whether the request carries want as its CSRF token, in
// the form field "csrf" or the X-CSRF-Token header, and comes from this
// server's own pages.
func checkCSRF(r *http.Request, want string) bool {
	got := r.PostFormValue("csrf")
	if got == "" {
		got = r.Header.Get("X-CSRF-Token")
	}
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1 && sameOrigin(r)
}

// refuseCSRF answers a change that lacks a valid CSRF token.
func (s *Server) refuseCSRF(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusForbidden, "This form has expired",
		"The change was refused because the form's security token was missing or did not match. Go back, reload the page and try again.")
}

// authed wraps h with the session check: a page needs a live session (or
// goes to the sign-in page), a change needs the session's CSRF token too.
// A person who signed in with a one-time password can reach only the
// handlers marked mustChangeOK until they chose a password.
func (s *Server) authed(h http.HandlerFunc, mustChangeOK bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token := cookieValue(r, cookieSession)
		now := s.now()
		se, u, err := s.state.Session(token, now, s.limits)
		if err != nil {
			if !errors.Is(err, state.ErrNotFound) && !errors.Is(err, state.ErrSessionExpired) {
				s.fail(w, r, err)
				return
			}
			if token != "" {
				s.clearCookie(w, r, cookieSession)
			}
			msg := ""
			if errors.Is(err, state.ErrSessionExpired) {
				msg = "expired"
			}
			if r.Method != http.MethodGet {
				s.errorPage(w, r, http.StatusUnauthorized, "You are signed out",
					"Your session has ended, so nothing was changed. Sign in again and repeat the change.")
				return
			}
			q := url.Values{}
			q.Set("next", r.URL.Path)
			if msg != "" {
				q.Set("msg", msg)
			}
			http.Redirect(w, r, Prefix+"signin?"+q.Encode(), http.StatusSeeOther)
			return
		}
		rq := requestOf(r)
		rq.token, rq.se, rq.u, rq.user, rq.org = token, se, u, u.Name, se.Org
		rq.role, _ = u.Role(se.Org)
		if r.Method != http.MethodGet {
			if err := parseForm(w, r); err != nil {
				s.errorPage(w, r, http.StatusBadRequest, "The form could not be read", "The form was too large or malformed.")
				return
			}
			if !checkCSRF(r, se.CSRF) {
				s.refuseCSRF(w, r)
				return
			}
		}
		if u.MustChange && !mustChangeOK {
			http.Redirect(w, r, Prefix+"password", http.StatusSeeOther)
			return
		}
		if now.Sub(se.Seen) >= touchEvery {
			if err := s.state.TouchSession(token, now); err != nil {
				s.log.Error("console: recording a session's activity failed", "err", err)
			}
		}
		h(w, r)
	}
}

// actorCtx is the request's context carrying the signed-in person as the
// actor the audit log records.
func (s *Server) actorCtx(r *http.Request) *http.Request {
	rq := requestOf(r)
	return r.WithContext(admin.WithActor(r.Context(), admin.Actor{User: rq.user, Org: rq.org, Addr: clientAddr(r)}))
}

// as is the context to run an operation of admin.Ops in as the signed-in
// person: the very methods the command line calls, audited under the
// person's name.
func (s *Server) as(r *http.Request) context.Context { return s.actorCtx(r).Context() }

// deny refuses an action the person's role does not allow, records the
// refusal in the audit log and says why.
func (s *Server) deny(w http.ResponseWriter, r *http.Request, action, target, why string) {
	rq := requestOf(r)
	r = s.actorCtx(r)
	s.ops.Record(r.Context(), state.AuditEntry{Action: action, Target: target, Outcome: state.AuditRefused,
		Reason: "role " + rq.role + ": " + why})
	s.errorPage(w, r, http.StatusForbidden, "Not allowed", "Your role in "+rq.org+" is "+rq.role+": "+why+".")
}

// localNext returns next when it is a page of the web application, so a
// sign-in never redirects elsewhere.
func localNext(next string) string {
	if strings.HasPrefix(next, Prefix) && path.Clean(next) == strings.TrimSuffix(next, "/") && !strings.HasPrefix(next, Prefix+"signin") &&
		!strings.Contains(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return Prefix + "keys"
}

func (s *Server) handleHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, Prefix+"keys", http.StatusSeeOther)
}

// signInData is what the sign-in page shows.
type signInData struct {
	Login string
	Next  string
}

var signInMessages = map[string]string{
	"expired":   "Your session expired. Sign in again.",
	"signedout": "You are signed out.",
	"password":  "Your password was changed. Sign in with the new one.",
}

func (s *Server) handleSignInForm(w http.ResponseWriter, r *http.Request) {
	s.renderSignIn(w, r, http.StatusOK, signInData{Next: r.URL.Query().Get("next")}, signInMessages[r.URL.Query().Get("msg")], "")
}

func (s *Server) renderSignIn(w http.ResponseWriter, r *http.Request, status int, d signInData, flash, errText string) {
	token := cookieValue(r, cookieSignIn)
	if len(token) != tokenLen {
		var err error
		if token, err = newToken(); err != nil {
			s.fail(w, r, err)
			return
		}
		s.setCookie(w, r, cookieSignIn, token)
	}
	p := s.newPage(r, "Sign in", "")
	p.CSRF, p.Flash, p.Error, p.Data = token, flash, errText, d
	s.render(w, r, status, "signin", p)
}

func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, "The form could not be read", "The form was too large or malformed.")
		return
	}
	if !checkCSRF(r, cookieValue(r, cookieSignIn)) {
		s.refuseCSRF(w, r)
		return
	}
	login := strings.TrimSpace(r.PostFormValue("login"))
	password := r.PostFormValue("password")
	d := signInData{Login: login, Next: r.PostFormValue("next")}
	now := s.now()
	addr := clientAddr(r)
	acct := s.throttleAccount(login)
	// A slot for the password check first, then the throttle's check and
	// count in one step, so a refused attempt never holds a count.
	if !s.hashes.enter(r.Context()) {
		s.busy(w)
		s.renderSignIn(w, r, http.StatusTooManyRequests, d, "", "Too many sign-ins at once. Try again in a few seconds.")
		return
	}
	defer s.hashes.leave()
	wait, err := s.throttle.admit(acct, addr, now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wait > 0 {
		secs := int(wait.Round(time.Second) / time.Second)
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.log.Warn("console: sign-in throttled", "addr", addr)
		s.renderSignIn(w, r, http.StatusTooManyRequests, d, "",
			"Too many failed sign-ins. Wait "+waitText(secs)+" and try again.")
		return
	}
	u, err := s.state.SignIn(login, password, now)
	audit := state.AuditEntry{Actor: clip(login, 64), Action: "signin", Addr: addr}
	if audit.Actor == "" {
		audit.Actor = "(no name)"
	}
	switch {
	case errors.Is(err, state.ErrBadSignIn):
		audit.Outcome, audit.Reason = state.AuditRefused, "wrong user name, e-mail address or password"
		// A failure on a real account shows in its organisations' logs,
		// for their owners to see.
		if known, err := s.state.UserByLogin(login); err == nil {
			audit.Target = known.Name
			for _, m := range known.Orgs {
				audit.Org = m.Org
				s.ops.Record(r.Context(), audit)
			}
		} else {
			s.ops.Record(r.Context(), audit)
		}
		s.renderSignIn(w, r, http.StatusUnauthorized, d, "", "Wrong user name, e-mail address or password.")
		return
	case errors.Is(err, state.ErrPasswordExpired):
		s.throttle.succeed(acct, addr) // the password was right
		audit.Outcome, audit.Reason = state.AuditRefused, "one-time password expired"
		s.ops.Record(r.Context(), audit)
		s.renderSignIn(w, r, http.StatusUnauthorized, d, "",
			"Your one-time password has expired. Ask an administrator of your organisation for a new one.")
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	s.throttle.succeed(acct, addr)
	org := u.Orgs[0].Org
	token, se, err := s.state.CreateSession(u.Name, org, addr, now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.clearCookie(w, r, cookieSignIn)
	s.setCookie(w, r, cookieSession, token)
	rq := requestOf(r)
	rq.user, rq.org = u.Name, se.Org
	audit.Actor, audit.Org, audit.Outcome = u.Name, se.Org, state.AuditOK
	s.ops.Record(r.Context(), audit)
	if u.MustChange {
		http.Redirect(w, r, Prefix+"password", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, localNext(d.Next), http.StatusSeeOther)
}

// throttleAccount is the throttle's name for the person a login names:
// the account's own name whether they typed it or their e-mail address
// (in any case), so a person has one allowance of failures; the login as
// typed, in lower case, when no account has it.
func (s *Server) throttleAccount(login string) string {
	if u, err := s.state.UserByLogin(login); err == nil {
		return u.Name
	}
	return strings.ToLower(login)
}

// busy marks a refusal for load: the client may retry in a few seconds.
func (s *Server) busy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "5")
	s.log.Warn("console: password checks queue full")
}

// waitText says how long to wait, in words.
func waitText(secs int) string {
	if secs < 90 {
		return strconv.Itoa(secs) + " seconds"
	}
	return strconv.Itoa((secs+59)/60) + " minutes"
}

// clip cuts s to n bytes of valid UTF-8.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

func (s *Server) handleSignOut(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if err := s.state.EndSession(rq.token); err != nil {
		s.fail(w, r, err)
		return
	}
	s.clearCookie(w, r, cookieSession)
	r = s.actorCtx(r)
	s.ops.Record(r.Context(), state.AuditEntry{Action: "signout", Outcome: state.AuditOK})
	http.Redirect(w, r, Prefix+"signin?msg=signedout", http.StatusSeeOther)
}

// passwordData is what the password page shows.
type passwordData struct {
	Forced bool
	MinLen int
}

func (s *Server) handlePasswordForm(w http.ResponseWriter, r *http.Request) {
	s.renderPassword(w, r, http.StatusOK, "")
}

func (s *Server) renderPassword(w http.ResponseWriter, r *http.Request, status int, errText string) {
	rq := requestOf(r)
	p := s.newPage(r, "Change your password", "password")
	p.Error = errText
	p.Data = passwordData{Forced: rq.u.MustChange, MinLen: state.MinPasswordLen}
	s.render(w, r, status, "password", p)
}

func (s *Server) handlePassword(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	now := s.now()
	addr := clientAddr(r)
	if !s.hashes.enter(r.Context()) {
		s.busy(w)
		s.renderPassword(w, r, http.StatusTooManyRequests, "Too many password checks at once. Try again in a few seconds.")
		return
	}
	defer s.hashes.leave()
	current, next, confirm := r.PostFormValue("current"), r.PostFormValue("new"), r.PostFormValue("confirm")
	if next != confirm {
		s.renderPassword(w, r, http.StatusBadRequest, "The new password and its confirmation differ.")
		return
	}
	wait, err := s.throttle.admit(rq.user, addr, now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(wait/time.Second))))
		s.renderPassword(w, r, http.StatusTooManyRequests, "Too many wrong passwords. Wait "+waitText(max(1, int(wait/time.Second)))+" and try again.")
		return
	}
	_, err = s.ops.ChangePassword(s.as(r), admin.UserPassword{Name: rq.user, Current: current, New: next})
	switch {
	case err == nil:
		s.throttle.succeed(rq.user, addr)
	case !errors.Is(err, state.ErrBadSignIn):
		s.throttle.cancel(rq.user, addr) // not a wrong current password
	}
	switch {
	case errors.Is(err, state.ErrBadSignIn):
		s.renderPassword(w, r, http.StatusBadRequest, "The current password is wrong.")
		return
	case errors.Is(err, state.ErrInvalid):
		s.renderPassword(w, r, http.StatusBadRequest, personMessage(err))
		return
	case err != nil:
		s.fail(w, r, err)
		return
	}
	// Every session of the person ended with the change: start a new one
	// here, so this browser stays signed in and any other is signed out.
	token, _, err := s.state.CreateSession(rq.user, rq.org, addr, now)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.setCookie(w, r, cookieSession, token)
	http.Redirect(w, r, Prefix+"keys?msg=password", http.StatusSeeOther)
}

func (s *Server) handleSwitchOrg(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	org := r.PostFormValue("org")
	if _, err := s.state.SetSessionOrg(rq.token, org); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			s.errorPage(w, r, http.StatusNotFound, "No such organisation", "You do not belong to that organisation.")
			return
		}
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"keys", http.StatusSeeOther)
}

// personMessage is an operation's refusal as a sentence for a person.
func personMessage(err error) string {
	msg := err.Error()
	if msg == "" {
		return "The change was refused."
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
