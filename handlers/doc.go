// Package handlers is the HTTP API of frameindex: the response envelope,
// API-key authentication, routing, the frame calls and the OpenAPI document.
//
// # Calls
//
//	GET /v1/frames/at   lat, lon         -> the frame holding the point
//	GET /v1/frames      bbox [, limit]   -> the frames touching a box
//	GET /v1/frames      ids              -> frames by id
//	GET /openapi.json                    -> the OpenAPI 3.1 description (no key)
//
// Every response is JSON in the envelope {"data": ...} or
// {"error": {"code", "message"}} and carries an X-Request-Id header. An
// unknown path is 404 not_found and a known path with another method is 405
// method_not_allowed (with Allow), both before any key is read. For the
// frame calls the checks run in the order of the contract (§6): credential
// (401), capability (403), parameters (400), then the work.
//
// # Design
//
// Handlers reach the grid and the keys through the small interfaces
// FrameIndex and KeyLookup, fetched from Config on every request, so main can
// swap snapshots after an admin change without restarting. Responses are
// written by hand with append-style encoders into pooled buffers: a
// 5,000-feature collection (about 1.5 MB) is streamed in 48 KiB chunks as the
// index walks the box, never materialised as structs and never encoded twice.
// errors.go holds the only mapping from errors to (status, code); handlers
// return errors to it, and an error it does not know becomes a vague 500
// internal whose cause is logged, never sent.
//
// Middleware, outermost first: request id and access log (log/slog: id,
// method, path without the query, status, bytes, duration, key id, error
// code), and panic recovery (500 internal when nothing was written yet).
// Calls whose work grows with the request (the box and ids call) also run
// under the per-request deadline (Config.RequestTimeout, default 30 s); a
// point lookup is a fixed few hundred nanoseconds of work, so it is spared
// the per-request timer and bounded by the server's write timeout alone.
//
// # Caveats
//
//   - A response that fails after its first chunk was sent (deadline spent,
//     client gone) cannot turn into an error envelope: the connection is
//     aborted instead, so the client sees a transport error rather than a
//     truncated body that looks complete.
//   - The per-request deadline is cooperative: the box walk checks it every
//     256 frames; a FrameIndex call that blocks is not interrupted.
//   - The path in the access log is truncated and has anything after an
//     "svc_sk_" cut away; the query string is never logged, because people
//     do put keys there.
package handlers
