package pgstate

import (
	"context"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// pendingAudit is the audit entry a handle of Audited writes with the
// change it makes.
type pendingAudit struct {
	e      *state.AuditEntry // the caller's: set as stored once committed
	target string            // when set, replaces e.Target (see setTarget)
	done   bool              // written and committed: later writes leave it out
}

// Audited is bolt.Store.Audited: a handle on s that inserts *e into the
// audit log in the transaction of the change its next call makes (every
// method is one transaction), so that both are committed or neither is.
// Once committed, *e is the entry as stored (Seq set); it keeps Seq 0 when
// the call failed or wrote nothing. Use a handle for one call.
func (s *Store) Audited(e *state.AuditEntry) state.Store {
	c := *s
	c.audit = &pendingAudit{e: e}
	return &c
}

// write inserts the pending entry in tx, the change's transaction.
func (p *pendingAudit) write(ctx context.Context, tx pgx.Tx, now time.Time) (state.AuditEntry, error) {
	e := *p.e
	if p.target != "" {
		e.Target = p.target
	}
	e, err := state.CleanAudit(e, now)
	if err != nil {
		return state.AuditEntry{}, err
	}
	return e, insertAudit(ctx, tx, &e)
}

// setTarget makes the pending entry's Target id: what the change created,
// which only its transaction knows. A nil p does nothing.
func (p *pendingAudit) setTarget(id string) {
	if p != nil {
		p.target = id
	}
}
