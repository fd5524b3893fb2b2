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
// Every operation is a named Request with JSON arguments and a JSON result,
// so the local and the remote path run the very same code (Ops.Do).
package admin
