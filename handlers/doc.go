// Package handlers is the HTTP API of frameindex: the response envelope,
// API-key authentication, routing, the frame calls and the OpenAPI document.
//
// # Calls
//
//	GET /v1/frames/at   lat, lon         -> the frame holding the point
//	GET /v1/frames      bbox [, limit]   -> the frames touching a box
//	GET /v1/frames      ids              -> frames by id
//	GET /v1/frames/data ids              -> what the key's datasets record on frames
//	POST /v1/frames/insight {frameIds, question, format, register}
//	                                     -> a computed answer to a question
//	GET /openapi.json                    -> the OpenAPI 3.1 description (no key)
//
// Every response is JSON in the envelope {"data": ...} or
// {"error": {"code", "message"}} and carries an X-Request-Id header. An
// unknown path is 404 not_found and a known path with another method is 405
// method_not_allowed (with Allow), both before any key is read. For the
// frame calls the checks run in the order of docs/contract.md §6: credential
// (401), the invalid-key meter and the rate-limit buckets (429; the
// question call spends from the insight bucket too), capability (403),
// parameters or body (400), then the work.
//
// ServeAs (behalf.go) answers a request on behalf of a key the caller
// read from the store, skipping only the reading of a secret: the web
// application's map uses it, so that its calls are metered, limited,
// charged and logged as API calls of the person's organisation.
//
// # The OGC API
//
// Under /ogc, Config.OGC (package ogc) answers OGC API – Features and
// Tiles behind the same middleware, key check and buckets (ogc.go mounts
// it). There only, a key may also come as HTTP Basic (the password, or the
// user name when the password is empty), and errors are written as OGC
// exceptions {"code","description"} instead of the envelope.
//
// # The data call and the question call
//
// GET /v1/frames/data (docs/contract.md §3) parses ids as GET /v1/frames
// does and hands the rest to package access, which reads what the key may
// read on the known frames in one ReadFrames call, checks the store's
// answer and charges the per-query datasets that contributed in one Charge
// call (leftOut for those the credits do not cover); the answer is
// streamed like a box query, attributes and features copied byte for
// byte. Any store failure is 500 internal, and nothing is charged unless
// Charge itself succeeded.
//
// POST /v1/frames/insight (docs/contract.md §4) needs ask.query. Its body
// (at most 1 MiB) is decoded token by token, so that every breach names
// its member; the frames are read as the data call reads them, package
// insight computes the answer from their values, the per-query datasets
// its figures used are charged (those left out are taken out and the
// answer computed again), and a model may word it (wording.go;
// docs/questions.md describes what the user sees).
//
// # Design, and why not the libraries
//
// Handlers reach the grid and the keys through the small interfaces
// FrameIndex and KeyLookup, fetched from Config on every request, so main can
// swap snapshots after an admin change without restarting. Responses are
// written by hand with append-style encoders into pooled buffers: a
// 5,000-feature collection (about 1.5 MB) is streamed in 48 KiB chunks as the
// index walks the box, never materialised as structs and never encoded twice.
// That is why not encoding/json here: it would build the structs and
// encode them, two passes and their allocations over a 1.5 MB answer; the
// small answers (a question's, health) do use it. Nor a router library:
// Go 1.22's ServeMux patterns (routes.go) give methods and wildcards, and
// dispatch rewrites the mux's own 404 and 405 into the envelope. errors.go
// holds the only mapping from errors to (status, code); handlers return
// errors to it, and an error it does not know becomes a vague 500 internal
// whose cause is logged, never sent.
//
// Middleware, outermost first: request id and access log (log/slog: id,
// method, path without the query, status, bytes, duration, key id, error
// code), and panic recovery (500 internal when nothing was written yet).
// Calls whose work grows with the request (the box and ids call, the data
// call) also run under the per-request deadline (Config.RequestTimeout,
// default 30 s); a point lookup is a fixed few hundred nanoseconds of work,
// so it is spared the per-request timer and bounded by the server's write
// timeout alone.
//
// # Health and metrics
//
// GET /livez (the process answers), /readyz (grid loaded, data file
// readable, every Health.Checks function holds, and not draining; 503
// not_ready or draining otherwise) and /healthz (the node's name, build,
// grid frames and every dataset with its version, always 200) need no key
// and are not metered (health.go). Server.Drain makes /readyz answer 503
// while the API goes on, so that a load balancer takes the node out before
// its listener closes. Config.Metrics receives requests by route and
// status, rate-limit decisions, per-query charges and wording outcomes
// (metrics.go); package metrics implements it with Prometheus, so this
// package does not import it, and a nil Metrics costs one nil check.
//
// # Caveats
//
//   - /healthz names the node's dataset ids and versions to anyone who can
//     reach the API; block it at the proxy if that is too much.
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
