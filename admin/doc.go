// Package admin carries out the administrative commands of frameindex —
// organisations with their plans, credits and usage, keys, the grid,
// datasets (read by package ingest) and licences — against a data file, whether or not a server is running on it.
//
// bbolt locks its file, so while `frameindex serve` runs no other process can
// open it. The server therefore listens on a unix socket beside the data file
// (PATH.sock, mode 0600: only the owner can connect; there is no network
// port) and runs the same operations on its own open store, then refreshes
// what it serves, so a revoked key fails on its very next request. When no
// server answers on the socket, the command opens the file itself. Either way
// an operation is one bbolt transaction: it happens whole or not at all.
//
// What every node of a deployment must agree on — organisations, credits,
// usage, keys, licences, prices, offers, the audit log, and the web
// application's people and sessions — is read and written through
// Ops.State (package state): the data file itself for one node, a shared
// database (state/pgstate) for several. The grid, datasets and the file
// operations stay on Ops.Store. Caveats with a shared state: a dataset's
// removal leaves its licences, price and offer in the shared state (other
// nodes may hold it); importing a dataset still checks the organisation
// in the data file.
//
// Every operation is a method of Ops with typed arguments and result
// (MintKey(ctx, KeyMint) (Minted, error), ...), which the web application
// and the command line call. An Operation pairs a method with its name on
// the socket, whose table decodes the JSON arguments, calls the method
// and encodes the result; the command line sends the name through the
// socket when a server runs (Call) and calls the method itself otherwise,
// so both paths run the very same code.
//
// An operation that changes something writes its audit entry in the
// change's own transaction (bolt.Store.Audited, state.Audited): both are
// committed or neither is. A refused or failed operation's entry is
// appended alone. Caveat: with a shared state apart from the data file
// (serve --state), a change to the file (the grid, datasets) and its
// entry are in two databases; the entry is appended just after the
// change.
//
// Keeping the file (backup.go): Backup streams a snapshot of one read
// transaction over the socket (POST /backup, raw bytes with
// Content-Length) or reads the file itself when no server runs, and
// renames the copy into place only when it is whole and opens; Restore
// refuses a file a server holds, checks the backup in full and keeps the
// file it replaces; the check and compact operations run on the server's
// store when one runs (the check on a snapshot beside the file, since
// bbolt's check must not race writers).
//
// On Windows (10 1803 / Server 2019 and later) the socket is AF_UNIX too;
// its access list (socket_windows.go) lets in only the server's account
// and the Administrators group, the equivalent of mode 0600.
package admin
