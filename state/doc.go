// Package state is the shared state's domain: what every node of a
// deployment must agree on about organisations, plans and credits, the
// ledger, API keys, licences, prices and marketplace offers, worded-answer
// allowances and reservations, usage, the audit log, and the people and
// sessions of the web console. It holds their types, errors and rules,
// and the interfaces a store implements (Store); it imports no store.
//
// Two stores implement Store: *bolt.Store keeps the state in one node's
// data file, and state/pgstate keeps it in PostgreSQL for several nodes.
// Each imports this package and never the other; package statetest is the
// conformance suite both pass. The grid, the datasets' frame records and
// their imports stay in each node's data file: only a dataset's
// description (Dataset, Attribute) lives here, because licences, offers,
// prices and Access are about it.
//
// # Rules
//
// The checks of input (CheckNewOrg, CheckMint, CheckCharge, CheckOffer,
// CheckPassword, ...) and the metering and charging rules (metering.go:
// ChangeCredits, DecideCharge, DecideAnswer, DecideRefund, DecideLicence,
// ReadableBy, UsageOf) are pure functions. A store reads what a rule needs
// inside its transaction (the organisation, under a lock where the engine
// has row locks; the day's and month's answer counters), calls the rule,
// and writes what it decided (the balance, ledger entries, usage counter
// changes) in the same transaction. So the allowance order (the plan's
// monthly allowance, then credits), the daily ceiling of 1,000 worded
// answers, which datasets a charge covers and which it leaves out, and
// what a refund takes back are written once.
//
// # Errors
//
// Errors carry one of this package's kinds (ErrNotFound, ErrInvalid,
// ErrExists, ErrCorrupt, ErrNoAllowance, the key and sign-in errors) with
// a one-line message a person can act on (Errorf); test for the kind with
// errors.Is. A store may add kinds of its own (bolt.ErrLocked).
//
// # Caveats
//
//   - The maps PlanAllowance and Presets and the slice Roles are shared:
//     treat them as read-only.
//   - A Keyring hands out Keys whose Caps and Datasets slices it shares:
//     do not modify their elements.
//   - The rules take times as given: a store rounds them (UTC, and to the
//     microsecond for PostgreSQL) before calling a rule.
//   - Ledger entries a rule returns have no Seq: the store numbers them in
//     the transaction that appends them.
package state
