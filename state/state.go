package state

import "time"

// Accounts are organisations, their plans, credit ledgers and usage.
type Accounts interface {
	AddOrg(o Org) (Org, error)
	Orgs() ([]Org, error)
	Org(id string) (Org, error)
	SetPlan(orgID, plan string) (Org, error)
	AddCredits(orgID string, n int64, note string, now time.Time) (Org, LedgerEntry, error)
	OrgLedger(orgID string, limit int) (Org, []LedgerEntry, error)
	Ledger(orgID string, limit int) ([]LedgerEntry, error)
	Usage(orgID string, now time.Time) (Usage, error)
}

// Keys are API keys, kept as digests of their secrets.
type Keys interface {
	MintKey(req MintRequest) (Key, string, error)
	Keys(orgID string) ([]Key, error)
	Key(id string) (Key, error)
	// Keyring is a snapshot of every key for authenticating requests.
	Keyring() (*Keyring, error)
	RevokeKey(id string, now time.Time) (Key, error)
	KeysLastUsed(ids []string) (map[string]time.Time, error)
	FlushKeyUses(u *KeyUses) (int, error)
}

// Licensing is who may read which dataset on what terms: licences, prices
// and marketplace offers.
type Licensing interface {
	Licences(orgID string) ([]Licence, error)
	GrantLicence(orgID, dataset, mode string, now time.Time) (Licence, error)
	RevokeLicence(orgID, dataset string) error
	SetPrice(id string, credits int64) (Dataset, error)
	Offers() ([]Listing, error)
	SetOffer(o Offer, now time.Time) (Offer, error)
	WithdrawOffer(dataset string) error
	LicenseOffer(orgID, dataset string, seen *Terms, now time.Time) (Licence, *LedgerEntry, error)
	// Readable is what key k may read (access.Store).
	Readable(k Key) ([]Access, error)
}

// Metering spends credits and answer allowances: per-query charges and
// worded-answer reservations, each with its ledger entry in one
// transaction.
type Metering interface {
	Charge(orgID, keyID, requestID string, ds []DatasetPrice, now time.Time) (charged, leftOut []string, err error)
	ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (Reservation, error)
	CommitAnswer(r Reservation) error
	RefundAnswer(r Reservation, now time.Time) error
	// RecoverPending refunds reservations left unsettled by a process that
	// stopped; it returns how many it refunded.
	RecoverPending(now time.Time) (int, error)
}

// Audit is the log of administrative changes.
type Audit interface {
	AppendAudit(e AuditEntry) (AuditEntry, error)
	AuditLog(org string, limit int) ([]AuditEntry, error)
	// Audited returns the store writing *e to the log in the transaction
	// of the change its next call makes: both are committed or neither
	// is. Once committed, *e is the entry as stored (Seq set); it keeps
	// Seq 0 when the call failed or wrote nothing. A handle is for one
	// call.
	Audited(e *AuditEntry) Store
}

// People are the web application's people and their sessions.
type People interface {
	AddUser(req NewUser) (User, string, error)
	User(name string) (User, error)
	Users(org string) ([]User, error)
	UserByLogin(login string) (User, error)
	SetRole(name, org, role string) (User, error)
	RemoveMember(name, org string) (User, bool, error)
	RemoveUser(name string) (User, error)
	ResetPassword(name string, now time.Time) (User, string, error)
	// SignIn checks a password; throttling is the caller's.
	SignIn(login, password string, now time.Time) (User, error)
	ChangePassword(name, current, next string, now time.Time) (User, error)
	CreateSession(user, org, addr string, now time.Time) (string, Session, error)
	Session(token string, now time.Time, lim SessionLimits) (Session, User, error)
	TouchSession(token string, now time.Time) error
	SetSessionOrg(token, org string) (Session, error)
	EndSession(token string) error
	PruneSessions(now time.Time, lim SessionLimits) (int, error)
}

// Store is all of the shared state. The contract of each method (results
// and errors) is written on *bolt.Store's method of the same name; an
// implementation differs in where it keeps records, never in what a
// caller sees, and the conformance suite (statetest) checks both. All
// methods are safe for concurrent use.
type Store interface {
	Accounts
	Keys
	Licensing
	Metering
	Audit
	People
}
