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

// ChargeStarter is a store whose Charge can answer before its write is
// durable (*bolt.Store, whose fsync is shared by the requests of a
// group): StartCharge returns what Charge would, and durable, which
// returns once the charge is on disk, or the error that voids it. A
// caller builds its response meanwhile and sends nothing that reports the
// charge before durable returns nil; it must call durable.
type ChargeStarter interface {
	StartCharge(orgID, keyID, requestID string, ds []DatasetPrice, now time.Time) (charged, leftOut []string, durable func() error, err error)
}

// ReserveStarter is ChargeStarter for worded-answer reservations: the
// model may be called while the reservation commits; its wording is shown,
// and the reservation committed or refunded, only once durable returns
// nil.
type ReserveStarter interface {
	StartReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (r Reservation, durable func() error, err error)
}

// ChargeExpecter is a store that commits the ledger writes of concurrent
// requests together (*bolt.Store): a request that will probably charge
// says so before the work that decides its charge (a data call reads its
// frames first), so that a group about to commit waits a moment for its
// write instead of committing without it. arrived ends the expectation:
// the caller calls it once its charge is decided or will not come; it may
// be called more than once.
type ChargeExpecter interface {
	ExpectCharge() (arrived func())
}

// ExpectCharge is m's ExpectCharge when m is a ChargeExpecter; otherwise
// there is nothing to wait for.
func ExpectCharge(m any) (arrived func()) {
	if e, ok := m.(ChargeExpecter); ok {
		return e.ExpectCharge()
	}
	return func() {}
}

// StartCharge is m's StartCharge when m is a ChargeStarter, and otherwise
// its Charge with a durable that has nothing left to wait for.
func StartCharge(m interface {
	Charge(orgID, keyID, requestID string, ds []DatasetPrice, now time.Time) (charged, leftOut []string, err error)
}, orgID, keyID, requestID string, ds []DatasetPrice, now time.Time) (charged, leftOut []string, durable func() error, err error) {
	if s, ok := m.(ChargeStarter); ok {
		return s.StartCharge(orgID, keyID, requestID, ds, now)
	}
	charged, leftOut, err = m.Charge(orgID, keyID, requestID, ds, now)
	if err != nil {
		return nil, nil, nil, err
	}
	return charged, leftOut, durableNow, nil
}

// StartReserveAnswer is StartCharge for ReserveAnswer.
func StartReserveAnswer(m interface {
	ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (Reservation, error)
}, orgID, keyID, requestID string, creditCost int64, now time.Time) (Reservation, func() error, error) {
	if s, ok := m.(ReserveStarter); ok {
		return s.StartReserveAnswer(orgID, keyID, requestID, creditCost, now)
	}
	r, err := m.ReserveAnswer(orgID, keyID, requestID, creditCost, now)
	if err != nil {
		return Reservation{}, nil, err
	}
	return r, durableNow, nil
}

// durableNow is the durable of a write that was durable when it returned.
func durableNow() error { return nil }

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
