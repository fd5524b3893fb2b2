package admin

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"frameindex/bolt"
	"frameindex/state"
)

// Actor is who runs an operation, as the audit log records it.
type Actor struct {
	User string // user name in the web application; "" is the operator at the command line
	Org  string // the organisation the person acts in
	Addr string // where the request came from (a client address)
}

// Operator is the audit log's name for whoever runs the command line on the
// server machine: the file's or the admin socket's owner.
const Operator = "operator"

type actorKey struct{}

// WithActor returns ctx carrying the actor that the operations of Ops
// record in the audit log for what they do under ctx.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// actorOf returns the actor of ctx: the one WithActor put there, or the
// operator, reached through the admin socket (a request whose local address
// is a unix socket) or at the command line with the file opened directly.
func actorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.User != "" {
		return a
	}
	a := Actor{User: Operator, Addr: "command line"}
	if addr, ok := ctx.Value(http.LocalAddrContextKey).(net.Addr); ok && addr.Network() == "unix" {
		a.Addr = "admin socket"
	}
	return a
}

// audit is the audit entry of one operation that changes something. The
// change writes it in its own transaction (state, file); done records it
// when no change did: the operation was refused or failed, changed
// nothing, or changed the data file while the log is in a shared state
// apart from it (two databases: the entry follows the change).
type audit struct {
	o   *Ops
	ctx context.Context
	e   state.AuditEntry
}

// audit starts the entry of action on target, acting in organisation org
// (the actor's own when ""), by the actor of ctx (WithActor; the operator
// otherwise). detail is name, value pairs shown in the entry, in order;
// they never hold a password or a secret.
func (o *Ops) audit(ctx context.Context, action, org, target string, detail ...string) *audit {
	a := actorOf(ctx)
	if org == "" {
		org = a.Org
	}
	var parts []string
	for i := 0; i+1 < len(detail); i += 2 {
		parts = append(parts, detail[i]+"="+detail[i+1])
	}
	return &audit{o: o, ctx: ctx, e: state.AuditEntry{Actor: a.User, Org: org, Action: action, Target: target,
		Detail: strings.Join(parts, " "), Addr: a.Addr, Time: o.now(), Outcome: state.AuditOK}}
}

// state is the shared state, writing the entry with its change.
func (a *audit) state() state.Store { return a.o.state().Audited(&a.e) }

// file is the data file, writing the entry with its change when it also
// keeps the audit log. Errors: errNoCatalogue without a data file.
func (a *audit) file() (*bolt.Store, error) {
	c, err := a.o.catalogue()
	if err != nil || a.o.shared() {
		return c, err
	}
	return c.Audited(&a.e).(*bolt.Store), nil
}

// done records the entry with the outcome of *err, unless the change
// wrote it. Its failure is logged (see Record).
func (a *audit) done(err *error) {
	if a.e.Seq != 0 {
		return
	}
	a.e.Outcome, a.e.Reason = outcome(*err)
	a.o.Record(a.ctx, a.e)
}

// text is how an audit entry's detail shows a text argument: as it is,
// or "" when empty.
func text(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// outcome classes an operation's error for the audit log.
func outcome(err error) (string, string) {
	switch {
	case err == nil:
		return state.AuditOK, ""
	case errors.Is(err, state.ErrInvalid), errors.Is(err, state.ErrNotFound), errors.Is(err, state.ErrExists),
		errors.Is(err, state.ErrBadSignIn), errors.Is(err, bolt.ErrNoGrid):
		return state.AuditRefused, err.Error()
	}
	return state.AuditFailed, err.Error()
}

// Record appends e to the audit log, taking the actor, organisation and
// address from ctx (WithActor) where e leaves them empty. The web
// application records sign-ins and refusals this way. A failure is logged
// to slog's default logger, not returned: what was audited has happened.
func (o *Ops) Record(ctx context.Context, e state.AuditEntry) {
	a := actorOf(ctx)
	if e.Actor == "" {
		e.Actor = a.User
	}
	if e.Org == "" {
		e.Org = a.Org
	}
	if e.Addr == "" {
		e.Addr = a.Addr
	}
	if e.Time.IsZero() {
		e.Time = o.now()
	}
	if _, err := o.state().AppendAudit(e); err != nil {
		slog.Default().Error("audit log: entry not recorded", "action", e.Action, "actor", e.Actor, "err", err)
	}
}
