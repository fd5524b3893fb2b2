// Package logging holds the server's log plumbing: a JSON slog handler that
// writes the exact lines of slog.JSONHandler, faster for the flat records of
// access logs, and a buffer that batches lines into few write system calls.
//
// Caveat: lines in the buffer are lost if the process dies within 200 ms of
// writing them (see Buffer). Nothing here imports another package of this
// module.
package logging
