package bolt

import (
	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// pendingAudit is the audit entry a handle of Audited writes with the
// change it makes.
type pendingAudit struct {
	e      *state.AuditEntry // the caller's: set as stored once committed
	target string            // when set, replaces e.Target (see setTarget)
	done   bool              // written and committed: later writes leave it out
}

// Audited returns a handle on s (a *Store) that appends *e to the audit
// log in the transaction of the change its next call makes, so that the
// change and its entry are committed together or not at all. Once that
// transaction has committed, *e is the entry as stored (Seq set, text
// cleaned as AppendAudit cleans it); *e keeps Seq 0 when the call failed,
// or changed nothing and so wrote nothing. An entry that AppendAudit would
// refuse, or that cannot be written, fails the change.
//
// The entry goes with the handle's first write transaction that commits:
// every method is one transaction, except an import's and a sync's, whose
// staging transactions leave it out and whose switch writes it. MintKey
// records the new key's id as the entry's Target. Use a handle for one
// call.
func (s *Store) Audited(e *state.AuditEntry) state.Store {
	return &Store{dataFile: s.dataFile, audit: &pendingAudit{e: e}}
}

// unaudited returns s without its pending audit entry: for the
// transactions of a call that are not its change (staging an import).
func (s *Store) unaudited() *Store {
	if s.audit == nil {
		return s
	}
	return &Store{dataFile: s.dataFile}
}

// write appends the pending entry in tx, the change's transaction. A nil
// p (no entry) writes nothing.
func (p *pendingAudit) write(tx *bbolt.Tx, s *Store) (state.AuditEntry, error) {
	if p == nil || p.done {
		return state.AuditEntry{}, nil
	}
	e := *p.e
	if p.target != "" {
		e.Target = p.target
	}
	e, err := state.CleanAudit(e, s.clock())
	if err != nil {
		return state.AuditEntry{}, err
	}
	return e, appendAudit(tx, &e)
}

// committed records that the transaction that wrote e has committed.
func (p *pendingAudit) committed(e state.AuditEntry) {
	if p == nil || p.done || e.Seq == 0 {
		return
	}
	*p.e, p.done = e, true
}

// setTarget makes the pending entry's Target id: what the change created,
// which only its transaction knows. A nil p does nothing.
func (p *pendingAudit) setTarget(id string) {
	if p != nil {
		p.target = id
	}
}
