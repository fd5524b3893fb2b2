package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"

	bbolt "go.etcd.io/bbolt"
)

// bucketAudit holds the audit log; see bucketUsers for the layout.
var bucketAudit = []byte("audit")

// Outcomes of an audited action.
const (
	AuditOK      = "ok"      // done
	AuditRefused = "refused" // not allowed, or bad input
	AuditFailed  = "failed"  // an error of the server or the file
)

// maxAuditField bounds each text field of an audit entry, in bytes.
const maxAuditField = 500

// AuditEntry is one administrative action, recorded whatever path it took
// (the web application, the admin socket, the command line). Entries are
// append-only: never changed or removed.
type AuditEntry struct {
	Seq     uint64    `json:"seq"`              // 1, 2, 3... across the file
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
// spaces and it is cut at maxAuditField bytes.
func auditText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	return clip(s, maxAuditField)
}

// AppendAudit appends e to the audit log, numbering it, and returns it as
// stored. Time zero means now; text fields are cleaned of control
// characters and cut to 500 bytes. Errors: ErrInvalid when Actor, Action
// or Outcome is empty; errors of the file.
func (s *Store) AppendAudit(e AuditEntry) (AuditEntry, error) {
	e, err := CleanAudit(e, s.clock())
	if err != nil {
		return AuditEntry{}, err
	}
	if err := s.unaudited().update(func(tx *bbolt.Tx) error { return appendAudit(tx, &e) }); err != nil {
		return AuditEntry{}, err
	}
	return e, nil
}

// appendAudit numbers the cleaned entry e and appends it in tx.
func appendAudit(tx *bbolt.Tx, e *AuditEntry) error {
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
func (s *Store) AuditLog(org string, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAudit)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var e AuditEntry
			err := decodeStrict(v, &e)
			switch {
			case err != nil:
			case len(k) != 8 || binary.BigEndian.Uint64(k) != e.Seq:
				err = errors.New("sequence number does not match its key")
			}
			if err != nil {
				return errorf(ErrCorrupt, err, "data file %q is corrupt: audit entry %x: %v", s.path, k, err)
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
