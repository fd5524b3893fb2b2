package state

import (
	"strings"
	"time"
	"unicode"
)

// Outcomes of an audited action.
const (
	AuditOK      = "ok"      // done
	AuditRefused = "refused" // not allowed, or bad input
	AuditFailed  = "failed"  // an error of the server or the store
)

// MaxAuditField bounds each text field of an audit entry, in bytes.
const MaxAuditField = 500

// AuditEntry is one administrative action, recorded whatever path it took
// (the web application, the admin socket, the command line). Entries are
// append-only: never changed or removed.
type AuditEntry struct {
	Seq     uint64    `json:"seq"`              // 1, 2, 3... across the store
	Time    time.Time `json:"time"`             // when, UTC
	Actor   string    `json:"actor"`            // who: a user name, or "operator" for the command line
	Org     string    `json:"org,omitempty"`    // the organisation acted in or on
	Action  string    `json:"action"`           // what: "key.mint", "signin", "member.add", ...
	Target  string    `json:"target,omitempty"` // what it acted on: a key id, a user name, ...
	Detail  string    `json:"detail,omitempty"` // the arguments worth knowing; never a secret
	Addr    string    `json:"addr,omitempty"`   // from where: a client address, "admin socket", "command line"
	Outcome string    `json:"outcome"`          // AuditOK, AuditRefused, AuditFailed
	Reason  string    `json:"reason,omitempty"` // why it was refused or failed
}

// auditText makes a field fit one listing line: control characters become
// spaces and it is cut at MaxAuditField bytes.
func auditText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	return Clip(s, MaxAuditField)
}

// CleanAudit applies AppendAudit's cleaning and checks to e: the time (now
// when zero) in UTC, text fields without control characters and cut to
// 500 bytes. Errors: ErrInvalid when Actor, Action or Outcome is empty.
func CleanAudit(e AuditEntry, now time.Time) (AuditEntry, error) {
	if e.Time.IsZero() {
		e.Time = now
	}
	e.Time = e.Time.Round(0).UTC()
	for _, f := range []*string{&e.Actor, &e.Org, &e.Action, &e.Target, &e.Detail, &e.Addr, &e.Outcome, &e.Reason} {
		*f = auditText(*f)
	}
	if e.Actor == "" || e.Action == "" || e.Outcome == "" {
		return AuditEntry{}, Errorf(ErrInvalid, "audit entry needs an actor, an action and an outcome")
	}
	return e, nil
}
