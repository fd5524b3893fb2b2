// Package pgstate keeps the shared state (package state) in PostgreSQL so
// that several nodes agree on organisations, credits, keys, licences,
// prices, offers, usage, the audit log, and the web application's
// people, sessions and sign-in throttle. Every method has the contract
// of the *bolt.Store method of the same name, its sentinel errors
// included (state.ErrNotFound and friends); package statetest's
// conformance suite runs against both.
//
// # What lives where
//
// The database holds the tables of migrations/0001_initial.sql: orgs (with
// the balance and the number of the last ledger entry), ledger, usage
// (counters named as in package bolt), keys (SHA-256 digests of the
// secrets, never a secret), key_uses, key_version, licences, prices,
// offers, reservations and audit. The grid and the datasets stay in each
// node's bbolt file (Options.Catalogue): Readable, Offers, SetPrice,
// SetOffer, WithdrawOffer, GrantLicence and LicenseOffer look datasets up
// there, and the price in the prices table, when there is one, overrides
// the file's (AdoptPrices gives the table the file's price of a dataset it
// lacks, so that a price has one home).
//
// # People and sessions
//
// migrations/0004_people.sql adds users (argon2id hashes, made and checked
// by package state as the file's are), memberships, sessions (the SHA-256
// digest of the token, never the token) and signin_failures. A session's
// foreign key to its person's membership cascades, so removing a member
// ends their sessions in that organisation in the same statement. Session
// reads the session, its person and their memberships in one statement,
// outside a transaction: it runs on every request of the web application.
// The sign-in throttle (state.SignInThrottle) is one call of a function
// per attempt that locks the account's and the address's rows in key
// order, checks their waits and counts the attempt: exact across nodes.
//
// # Money
//
// Every change to a balance, a ledger or a usage counter runs in one
// transaction holding the organisation's row lock (SELECT … FOR UPDATE):
// charges, reservations, refunds, grants and subscriptions on any number
// of nodes run one after another, each against the balance the last one
// left, so a balance never goes below zero and credits are never spent
// twice. Ledger entries are numbered 1, 2, 3... per organisation from
// orgs.ledger_seq under the same lock. Transactions that PostgreSQL
// aborts for a deadlock or a serialization failure are retried from the
// start; so are those whose pooled connection is found dead at BEGIN.
//
// Worded-answer reservations are rows of reservations in state pending,
// committed or refunded. RecoverPending refunds pending rows older than
// Options.RecoverAfter (60 s by default: longer than the 30 s request
// budget), whichever node made them, taking rows with FOR UPDATE SKIP
// LOCKED and locking their organisations in id order, so that nodes
// running it at once refund each reservation once and never deadlock.
//
// # Keys
//
// A trigger on keys increments key_version and notifies channel
// frameindex_keys in the transaction that changes a key. WatchKeys
// LISTENs on it and polls the version every second as a fallback, so a
// node reloads its Keyring within a second of a revocation anywhere while
// the database is reachable (usually within milliseconds).
//
// # Schema
//
// Migrate applies the embedded migrations/NNNN_name.sql in order, each in
// one transaction recorded in schema_migrations, under an advisory lock.
// Open refuses (ErrSchema) a database whose schema is behind (run
// `frameindex state migrate`) or ahead (a newer build wrote it).
//
// # Errors
//
// A database that cannot be reached, times out (Options.Timeout, 10 s by
// default, per method) or refuses a statement yields an error naming host,
// port and database (never the password: Redact) and saying what to
// check; nothing is written then, as every write is one transaction.
//
// # Concurrency
//
// A Store is safe for concurrent use; it holds a pool of at most 10
// connections (pool_max_conns in the URL changes it), and WatchKeys one
// more.
//
// # Caveats
//
//   - Times are kept to the microsecond (PostgreSQL's precision), where
//     the bbolt file keeps nanoseconds; the methods return times as
//     stored.
//   - RecoverPending refunds only reservations older than RecoverAfter
//     (the file's refunds every pending one): it trusts the nodes' clocks
//     to agree within a few seconds.
//   - Audit entries and reservations are numbered by PostgreSQL sequences:
//     increasing, with a gap where an insert failed.
//   - Committed and refunded reservations stay as rows (one small row per
//     worded answer); nothing prunes them yet.
//   - Removing a dataset from a node's file leaves its licences, offer and
//     price in the database (invisible while no node has the dataset); a
//     dataset created later under the same id inherits them.
//   - Readable reads the node's datasets and the organisation's licences
//     and every price on each call (one round trip): fine for hundreds of
//     datasets.
//   - Import copies pending reservations but not the settled ones of the
//     file; new reservation ids continue after the file's.
package pgstate
