// Package access decides what an API key may read and what it costs: the
// datasets a key may read (its organisation's, its licensed ones, minus any
// it was narrowed away from at minting), reading what they record on
// frames, and the per-query charge with its outcome (charged, or left out
// for want of credits). The data call and the question call use it, and so
// will every other way of reading datasets (OGC endpoints, the console): one
// path, one set of rules.
//
// Handlers keep HTTP: parsing, status codes and encoding. Nothing here
// knows about requests or responses; a request's id and clock are passed in.
//
// Errors: a store answer that breaks the Store contract wraps ErrStore; the
// store's own errors are returned wrapped with what was being done. Both are
// server failures (500 internal) for a caller.
package access
