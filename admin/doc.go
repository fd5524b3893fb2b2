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
// usage, keys, licences, prices, offers and the audit log — is read and
// written through Ops.State (package state): the data file itself for one
// node, a shared database (state/pgstate) for several. The grid, datasets,
// people and sessions, and the file operations stay on Ops.Store. Caveats
// with a shared state: a dataset's removal leaves its licences, price and
// offer in the shared state (other nodes may hold it); adding a person and
// importing a dataset still check the organisation in the data file.
//
// Every operation is a named Request with JSON arguments and a JSON result,
// so the local and the remote path run the very same code (Ops.Do).
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
