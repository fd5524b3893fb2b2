// Package state names what a node keeps about organisations, keys,
// licences, prices and money: the records every node of a deployment must
// agree on. *bolt.Store implements Store for one node with one data file;
// a shared engine (PostgreSQL, package state/pgstate) implements it for
// several nodes. The grid and datasets are not state: each node keeps them
// in its own bbolt file.
//
// Every method has the contract of the *bolt.Store method of the same name
// (its errors included: bolt.ErrNotFound and friends): an implementation
// differs in where it keeps records, never in what a caller sees. All
// methods are safe for concurrent use.
package state

import (
	"time"

	"frameindex/bolt"
)

// Accounts are organisations, their plans, credit ledgers and usage.
type Accounts interface {
	AddOrg(o bolt.Org) (bolt.Org, error)
	Orgs() ([]bolt.Org, error)
	Org(id string) (bolt.Org, error)
	SetPlan(orgID, plan string) (bolt.Org, error)
	AddCredits(orgID string, n int64, note string, now time.Time) (bolt.Org, bolt.LedgerEntry, error)
	OrgLedger(orgID string, limit int) (bolt.Org, []bolt.LedgerEntry, error)
	Ledger(orgID string, limit int) ([]bolt.LedgerEntry, error)
	Usage(orgID string, now time.Time) (bolt.Usage, error)
}

// Keys are API keys, kept as digests of their secrets.
type Keys interface {
	MintKey(req bolt.MintRequest) (bolt.Key, string, error)
	Keys(orgID string) ([]bolt.Key, error)
	Key(id string) (bolt.Key, error)
	// Keyring is a snapshot of every key for authenticating requests.
	Keyring() (*bolt.Keyring, error)
	RevokeKey(id string, now time.Time) (bolt.Key, error)
	KeysLastUsed(ids []string) (map[string]time.Time, error)
	FlushKeyUses(u *bolt.KeyUses) (int, error)
}

// Licensing is who may read which dataset on what terms: licences, prices
// and marketplace offers.
type Licensing interface {
	Licences(orgID string) ([]bolt.Licence, error)
	GrantLicence(orgID, dataset, mode string, now time.Time) (bolt.Licence, error)
	RevokeLicence(orgID, dataset string) error
	SetPrice(id string, credits int64) (bolt.Dataset, error)
	Offers() ([]bolt.Listing, error)
	SetOffer(o bolt.Offer, now time.Time) (bolt.Offer, error)
	WithdrawOffer(dataset string) error
	LicenseOffer(orgID, dataset string, now time.Time) (bolt.Licence, *bolt.LedgerEntry, error)
	// Readable is what key k may read (access.Store).
	Readable(k bolt.Key) ([]bolt.Access, error)
}

// Metering spends credits and answer allowances: per-query charges and
// worded-answer reservations, each with its ledger entry in one
// transaction.
type Metering interface {
	Charge(orgID, keyID, requestID string, ds []bolt.DatasetPrice, now time.Time) (charged, leftOut []string, err error)
	ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (bolt.Reservation, error)
	CommitAnswer(r bolt.Reservation) error
	RefundAnswer(r bolt.Reservation, now time.Time) error
	// RecoverPending refunds reservations left unsettled by a process that
	// stopped; it returns how many it refunded.
	RecoverPending(now time.Time) (int, error)
}

// Audit is the log of administrative changes.
type Audit interface {
	AppendAudit(e bolt.AuditEntry) (bolt.AuditEntry, error)
	AuditLog(org string, limit int) ([]bolt.AuditEntry, error)
}

// Store is all of the shared state.
type Store interface {
	Accounts
	Keys
	Licensing
	Metering
	Audit
}

// The one-node implementation.
var _ Store = (*bolt.Store)(nil)

// Audited returns s writing *e to its audit log in the transaction of the
// change its next call makes (see bolt.Store.Audited): the change and its
// entry are committed together or not at all, and *e is then the entry as
// stored (Seq set). A store that cannot do so is returned unchanged and
// leaves e.Seq 0, for the caller to append the entry itself.
func Audited(s Store, e *bolt.AuditEntry) Store {
	switch s := s.(type) {
	case *bolt.Store:
		return s.Audited(e)
	case interface{ Audited(*bolt.AuditEntry) Store }:
		return s.Audited(e)
	}
	return s
}
