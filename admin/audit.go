package admin

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
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

// WithActor returns ctx carrying the actor that Ops.Do records in the
// audit log for what it does under ctx.
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

// audited are the operations that change something: Do records each in the
// audit log, done, refused or failed. Reads are not recorded.
var audited = map[string]bool{
	OpOrgAdd: true, OpOrgPlan: true, OpOrgCredits: true,
	OpKeyMint: true, OpKeyRevoke: true,
	OpGridBuild: true, OpGridImport: true,
	OpDatasetImport: true, OpDatasetPrice: true, OpDatasetRemove: true,
	OpLicenceGrant: true, OpLicenceRevoke: true,
	OpUserAdd: true, OpUserRemove: true, OpUserReset: true, OpUserRole: true, OpUserPassword: true,
}

// detailFields are the arguments an audit entry's detail shows, in this
// order. Anything else (passwords above all) is never recorded.
var detailFields = []string{"role", "email", "preset", "datasets", "ttl", "plan", "add", "note", "mode", "credits", "dataset"}

// auditOp records the outcome of operation op (arguments args, result res,
// error err) under the actor of ctx, when op is one that changes something.
// A failure to record is logged; the operation's own outcome stands.
func (o *Ops) auditOp(ctx context.Context, op string, args json.RawMessage, res any, err error) {
	if !audited[op] {
		return
	}
	a := actorOf(ctx)
	e := state.AuditEntry{Actor: a.User, Org: a.Org, Action: op, Addr: a.Addr, Time: o.now()}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(args, &m)
	str := func(name string) string {
		var s string
		if json.Unmarshal(m[name], &s) == nil {
			return s
		}
		return ""
	}
	switch {
	case strings.HasPrefix(op, "org."):
		e.Org, e.Target = str("id"), str("id")
	case op == OpKeyMint:
		e.Org, e.Target = str("org"), str("name")
		if mi, ok := res.(Minted); ok {
			e.Target = mi.Key.ID
		}
	case op == OpKeyRevoke:
		e.Target = str("id")
		if k, ok := res.(KeyView); ok {
			e.Org = k.OrgID
		}
	case strings.HasPrefix(op, "user."):
		e.Target = str("name")
		if org := str("org"); org != "" {
			e.Org = org
		}
	case op == OpDatasetImport:
		var mf struct{ ID, Owner string }
		_ = json.Unmarshal(m["manifest"], &mf)
		e.Org, e.Target = mf.Owner, mf.ID
	case strings.HasPrefix(op, "dataset."):
		e.Target = str("id")
	case strings.HasPrefix(op, "licence."):
		e.Org, e.Target = str("org"), str("dataset")
	case strings.HasPrefix(op, "grid."):
		e.Target = filepath.Base(str("boundary") + str("path"))
	}
	var parts []string
	for _, f := range detailFields {
		v, ok := m[f]
		if !ok || (f == "dataset" && strings.HasPrefix(op, "licence.")) {
			continue
		}
		text := string(v)
		if s := str(f); s != "" {
			text = s
		}
		parts = append(parts, f+"="+text)
	}
	e.Detail = strings.Join(parts, " ")
	e.Outcome, e.Reason = outcome(err)
	o.Record(ctx, e)
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
