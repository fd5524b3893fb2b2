package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// bucketAudit holds the audit log; see bucketUsers for the layout.
var bucketAudit = []byte("audit")

// AppendAudit appends e to the audit log, numbering it, and returns it as
// stored. Time zero means now; text fields are cleaned of control
// characters and cut to 500 bytes. Errors: ErrInvalid when Actor, Action
// or Outcome is empty; errors of the file.
func (s *Store) AppendAudit(e state.AuditEntry) (state.AuditEntry, error) {
	e, err := state.CleanAudit(e, s.clock())
	if err != nil {
		return state.AuditEntry{}, err
	}
	if err := s.unaudited().update(func(tx *bbolt.Tx) error { return appendAudit(tx, &e) }); err != nil {
		return state.AuditEntry{}, err
	}
	return e, nil
}

// appendAudit numbers the cleaned entry e and appends it in tx.
func appendAudit(tx *bbolt.Tx, e *state.AuditEntry) error {
	b, err := tx.CreateBucketIfNotExists(bucketAudit)
	if err != nil {
		return err
	}
	if e.Seq, err = b.NextSequence(); err != nil {
		return err
	}
	v, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return b.Put(binary.BigEndian.AppendUint64(nil, e.Seq), v)
}

// AuditLog returns the newest limit entries (all when limit <= 0) of the
// audit log, newest first: of one organisation, or all when org is "".
// Errors: ErrCorrupt.
func (s *Store) AuditLog(org string, limit int) ([]state.AuditEntry, error) {
	var out []state.AuditEntry
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAudit)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var e state.AuditEntry
			err := decodeStrict(v, &e)
			switch {
			case err != nil:
			case len(k) != 8 || binary.BigEndian.Uint64(k) != e.Seq:
				err = errors.New("sequence number does not match its key")
			}
			if err != nil {
				return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: audit entry %x: %v", s.path, k, err)
			}
			if org == "" || e.Org == org {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
