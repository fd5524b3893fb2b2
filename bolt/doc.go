// Package bolt stores a frameindex data file: one bbolt database holding
// the grid of frames, the organisations with their plans, credits, ledgers
// and usage, their API keys, and the datasets they own and license.
//
// # Opening
//
// Open checks the file before trusting it and says in one line what is
// wrong: ErrMissing (no file), ErrLocked (another process has it open for
// writing, typically a running `frameindex serve`; Open gives up after
// Options.Timeout, one second by default), ErrForeign (not bbolt, empty, or
// bbolt without our schema record), state.ErrCorrupt (damaged meta pages, a
// truncated file, a record that does not decode), ErrNewerSchema (written
// by a newer build). bbolt takes an exclusive lock for a read-write open
// and a shared one with Options.ReadOnly; the lock is per open file, so
// even two opens in one process exclude each other.
//
// # Layout
//
// The buckets, their keys and records (schema 1), and the rules the
// records keep — the ledger, usage counters, reservations of worded
// answers, dataset versions and their staging — are described in
// docs/datafile.md. In short: an organisation's balance changes only with
// an entry appended to its ledger in the same transaction, so it is always
// the sum of the ledger and never below zero; a worded answer is reserved
// (ReserveAnswer) before the model is called and then committed or
// refunded exactly once, and RecoverPending refunds, at start-up, what a
// crash left reserved; an import writes the next version of a dataset
// beside the live one in bounded staging transactions and switches to it
// in one, so readers never see half of it.
//
// # Keys
//
// A key's secret (state.SecretPrefix and 32 random bytes in base62) is returned
// once by MintKey and stored only as its SHA-256 digest. A state.Keyring holds a
// snapshot of all keys for request-time lookups; reload it after a key is
// minted or revoked. state.Key values print and log as their public id only.
//
// # Concurrency
//
// A Store is safe for concurrent use. Every exported method is one bbolt
// transaction: bbolt runs one writer at a time and any number of readers,
// each reader seeing the file as it was when its transaction began.
// Everything returned is copied out of the file before the transaction
// ends.
//
// The ledger's writes (charges, worded-answer reservations and their
// settling) are the exception: the committer applies them in a write
// transaction it keeps open across groups, makes each group durable in
// the journal beside the file (PATH.journal) and commits the transaction
// every 200 ms or when asked (journal.go, committer.go). The methods that
// read balances, ledgers, usage and reservations, Snapshot and Check ask
// for that commit first; other readers may see the ledger up to 200 ms
// old. Open replays the journal a crash left; Close removes it.
//
// # Backup, check and compaction
//
// Snapshot writes the file as one read transaction sees it (bbolt's
// Tx.WriteTo), while writers go on. Check runs bbolt's consistency check,
// then this layout's invariants; it must not race writers (bbolt's check
// reads the shared free list), so a live file is checked through a
// snapshot. Compact copies every bucket into PATH.compacting under a write
// transaction (writes wait, reads go on) and swaps the store to the new
// file; a write transaction that began on the old file starts again on
// the new one.
//
// # Caveats
//
//   - bbolt's own check (inside Check) cannot be interrupted: Ctrl-C during
//     it waits for it (about a second per GB).
//   - bbolt panics on some damaged pages, and touching a page beyond the
//     end of a truncated file faults. Open and every method recover both
//     into state.ErrCorrupt; a fault is caught with runtime/debug.SetPanicOnFault.
//     After a panic inside bbolt's own Open the file is closed (its lock
//     released) but the memory mapping bbolt made, if any, stays until the
//     process exits.
//   - bbolt does not check for a damaged page that points back into its
//     own tree; reading one recurses without end and the Go runtime kills
//     the process (a stack overflow cannot be recovered). Only damage of
//     that precise kind escapes state.ErrCorrupt; `bbolt check` finds it.
//   - On 64-bit systems other than Windows, bbolt maps 1 GiB of address
//     space from the start (only pages read become resident), so that big
//     writes do not remap repeatedly and readers never hold up a writer.
//     Under a tight address-space limit Open falls back to bbolt's default.
//   - Open reads the header and the meta bucket only; damage elsewhere is
//     reported by the call that reads it. `bbolt check FILE` checks the
//     whole file.
//   - An empty file at the path is refused (ErrForeign) even with Create:
//     Create never writes over an existing file.
//   - Orgs, keys and the grid are read whole; there is no paging. That
//     suits thousands of keys, not millions. Ledger reads the newest
//     entries from the end; asked for all of them it holds them all.
//   - Plans and their allowances are fixed in this build (state.PlanAllowance);
//     changing a plan does not reset the month's count of answers.
//   - Datasets and licences are read whole: Readable decodes every
//     dataset description on each call (tens of microseconds for a few
//     datasets), which suits hundreds of datasets, not many thousands.
//   - The store does not check a record's frame id against the grid, nor a
//     feature's geometry beyond "type":"Feature": the importer resolves
//     and checks them. Attribute values are checked against their declared
//     types (a finite number, or a string); the bytes are kept as given.
//   - A staging bucket left by a crashed import stays in the file (unseen
//     by readers) until the next import of that dataset or its removal.
//     An import holds its records in memory: the caller passes them all.
//   - Removing a dataset leaves its past charges in ledgers and usage, and
//     its id in the keys narrowed to it; a dataset created later under the
//     same id starts again at version 1 and is readable by those keys.
//   - The schema number guards against a newer layout; there is no
//     migration code yet, as there is only schema 1.
package bolt
