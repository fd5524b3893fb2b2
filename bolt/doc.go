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
// # Layout (schema 1)
//
// Integer keys are big-endian so that bbolt's byte order is numeric order.
//
//	meta        "schema"  uint32 schema number (1)
//	            "created" creation time, RFC 3339 text, UTC
//	            "grid"    JSON {"kind","frames","bounds":[minLon,minLat,maxLon,maxLat],"source","builtAt"}
//	lattice     row uint32 -> (col0 uint32, col1 uint32) pairs, one per run, ascending
//	frames      id uint64  -> polygons: uvarint count, then per polygon a
//	                          uvarint ring count, per ring a uvarint point
//	                          count and (lon, lat) float64 little-endian
//	orgs        org id     -> JSON {"id","name","plan","created","credits"}; "credits" (the
//	                          balance) is left out while it is zero
//	keys        key id     -> JSON {"id","org","name","preset","caps","datasets","digest","created","expires","revoked"}
//	keydigests  SHA-256 digest of the secret (32 bytes) -> key id
//	ledger      org id     -> bucket: seq uint64 -> JSON {"seq","time","kind","credits","balance",
//	                          "note","keyId","dataset","requestId"} (the last four when set)
//	usage       org id     -> bucket: counter name -> (count uint64, credits uint64)
//	pending     reservation id uint64 -> JSON {"id","org","keyId","requestId","source","credits",
//	                          "month","day","time"}: a worded answer reserved, not yet settled
//	refunded    reservation id uint64 -> time of the refund, RFC 3339 text, UTC
//	datasets    dataset id -> JSON {"id","name","description","owner","attributes","price",
//	                          "source","version","frames","features","importedAt"}
//	licences    org id "/" dataset id -> JSON {"org","dataset","mode","granted"}
//	users       user name -> JSON {"name","email","orgs":[{"org","role"}],"hash",
//	                          "mustChange","tempExpires","created","passwordSet"};
//	                          "hash" is argon2id in PHC string form
//	useremails  e-mail address (lowercase) -> user name
//	sessions    SHA-256 digest of the session token -> JSON {"user","org","csrf",
//	                          "addr","created","seen"}
//	audit       seq uint64 -> JSON {"seq","time","actor","org","action","target",
//	                          "detail","addr","outcome","reason"}
//	keyuse      key id -> unix seconds of its last use, uint64
//	offers      dataset id -> JSON {"dataset","mode","price","licenceText","updated"};
//	                          a marketplace offer; no record means private
//	dsv         dataset id "@" version (decimal) -> bucket, one per stored version:
//	              frames  frame uint64 -> uvarint feature count, then the
//	                                      attributes JSON object as imported
//	                                      (nothing after the count when none)
//	              feats   frame uint64, seq uint32 -> GeoJSON Feature JSON as imported
//
// The ledger and usage buckets, and an organisation's bucket inside them,
// are made by the first write that needs them; a file without them reads as
// one where nothing was spent. The schema stays 1: every file written before
// them reads correctly (an organisation without "credits" has 0), and a
// build from before them refuses a record with "credits" as corrupt rather
// than misreading it, since records are decoded strictly.
//
// # Credits and the ledger
//
// An organisation's balance (state.Org.Credits) changes only together with an
// entry appended to its ledger, in the same transaction, so the balance is
// always the sum of its ledger's changes and never below zero. Entries are
// numbered from the bucket's sequence (1, 2, 3...) and never changed or
// removed. AddCredits writes kinds "grant" (n > 0) and "adjust" (n < 0)
// with a note; per-query dataset charges (kind "charge", Charge) and worded
// answers paid in credits are entries of their own kinds that name the key,
// the dataset and the request instead. A free dataset (price 0) is counted
// in usage but writes no ledger entry, as the balance does not change.
//
// # Usage counters
//
// Each organisation's usage bucket holds counters, each a count and the
// credits that count took, 16 bytes big-endian, under names of the form
//
//	answers:2026-11                worded answers in a calendar month (UTC)
//	answers:2026-11-22             worded answers in a day (UTC)
//	charges:2026-11:<dataset id>   requests a per-query dataset was charged on in a month
//
// A counter that does not exist is zero. Counters move in the same
// transaction as the allowance check and the ledger entry they go with, and
// a refund takes back exactly what its reservation added; none goes below
// zero. Usage reads the current month's and day's counters; old periods stay
// in the file (a few small records per organisation a day).
//
// # Worded answers
//
// A worded answer is reserved before the model is called (ReserveAnswer),
// in one transaction that checks the daily ceiling (state.DailyCeiling, UTC day),
// then takes it from the plan's monthly allowance (UTC month) or else from
// the credits (a ledger entry of kind "answer"), counts it in the month's
// and the day's "answers:" counters, and writes a pending record numbered
// from the pending bucket's sequence. CommitAnswer deletes the record when
// the wording was delivered; RefundAnswer, when it was not, deletes it,
// takes back exactly what the reservation added (a ledger entry of kind
// "refund" for credits) and records the id in refunded, so that a
// reservation is settled once: committing again does nothing, while a
// second refund, or a refund after a commit or a commit after a refund,
// is state.ErrNotFound (an id up to the sequence that is neither pending nor
// refunded was committed). RecoverPending refunds every pending record and
// is run when the server starts: an answer reserved before a crash was
// never delivered. Both buckets are made by the first write that needs
// them; refunded keeps one small record per refund.
//
// # Datasets
//
// A dataset's description (datasets) names its owner, its declared
// attributes, its price and the version readers see. Its records are in
// the version bucket dsv/"<id>@<version>": a frame has a record when the
// dataset records attributes or features there, and the record holds its
// feature count, so that a read of attributes and counts is one lookup per
// frame and dataset. ImportDataset checks every record before writing,
// writes the next version into its bucket in staging transactions of at
// most 50,000 frames (100,000 features, 32 MiB), during which readers go on
// seeing the old version and other writes (charges, administration) run
// between them, then in one final transaction points the description at
// the new version and deletes the old version's bucket. A version bucket
// that the description does not point at is a staging bucket: of the
// import running now, or left by one that crashed. Imports of one file run
// one at a time (a lock per path in the process; bbolt's file lock keeps
// other processes out), so an import deletes every staging bucket of its
// dataset that it finds; RemoveDataset deletes them all.
//
// Licences (licences) let an organisation read another's dataset, by
// subscription or per query. A key reads its organisation's own datasets
// and its licensed ones, narrowed to state.Key.Datasets when that is set
// (Readable). Charge debits per-query datasets for one request in one
// transaction: per dataset a ledger entry of kind "charge" (naming the key,
// the dataset and the request) and the usage counter
// "charges:<month>:<dataset>", never below zero.
//
// SyncDatasets makes a file's datasets those of a snapshot of another
// node's file: each dataset to copy is staged in dsv/"<id>@<v>~sync"/
// "<id>@<v>" (a staging bucket of the dataset to Check, Compact and the
// next import) in bounded transactions, then one transaction moves every
// staged version into dsv (bbolt's MoveBucket), writes the descriptions
// and removes the datasets the snapshot lacks. Version numbers are the
// snapshot's, so that nodes report the same versions.
//
// A grid is either a lattice (the national 30-arc-second cells, stored as
// runs of cells per row: a cell needs no stored polygon and the national
// grid of 1.1 million cells is a few thousand runs) or imported polygon
// frames; exactly one of the two buckets exists once a grid is stored.
// PutLattice and PutPolygons replace the grid in one transaction.
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
// # Backup, check and compaction
//
// Snapshot writes the file as one read transaction sees it, with bbolt's
// own copy (Tx.WriteTo): a valid data file, as large as the file, taken
// while writers go on. Check runs bbolt's consistency check and then the
// invariants of this layout (ledgers numbered without gaps and summing to
// the balances, key digests well formed and indexed both ways, every
// dataset's live version whole, records decodable) and lists staging
// buckets; it must not race writers (bbolt's check reads the shared free
// list), so a live file is checked through a snapshot. Compact copies
// every bucket (sequences kept, pages filled, staging buckets left out)
// into PATH.compacting under a write transaction, so that writes wait and
// reads go on, then swaps the store to the new file: the store's database
// handle is guarded by a lock held only to read or swap it, and a write
// transaction that began on the old file finds the swap counter changed
// and starts again on the new one.
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
