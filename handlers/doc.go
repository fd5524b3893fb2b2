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
// frame calls the checks run in the order of the contract (§6): credential
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
// # The data call
//
// GET /v1/frames/data (contract §3) parses ids as GET /v1/frames does
// (1..100, duplicates counted, then answered once in the order first
// asked), and hands the rest to package access: it looks the frames up in
// the grid, asks the DataStore which datasets the key may read (its organisation's, its licensed ones, minus those it
// was narrowed away from), and reads them on the known frames in one
// ReadFrames call with the 200-feature cap; ids the grid does not hold are
// answered with no bbox and an empty datasets list, and are not read. The
// store's answer is checked (frames in order, datasets among those
// readable, attributes and features that begin and end as JSON objects),
// applies the cap again and drops features unless the key has feature.read. Per-query datasets that
// contributed anything (attributes, features or a bare featureCount) go to
// one Charge call, in ascending id with their prices and the request's
// X-Request-Id, unless the request's budget is already spent; those the
// credits do not cover are removed from every frame and listed in leftOut.
// Attributes and features are copied into the answer byte for byte, and
// the answer is streamed in chunks like a box query. Any store failure is
// 500 internal, and nothing is charged unless Charge itself succeeded.
//
// # The question call
//
// POST /v1/frames/insight (contract §4) needs ask.query. Its body is read
// through http.MaxBytesReader (1 MiB) and decoded token by token, so that
// every breach names its member: one JSON object, members named exactly
// (frameIds, question, format, register), each once, frameIds an array of
// strings and the others strings, no null, nothing after the object; a
// Content-Type, when sent, must be application/json (UTF-8). Those are
// invalid_body; then frameIds (required, 1..50 ids counted before
// duplicates are removed) and format/register outside their values are
// invalid, and a question over 1,000 code points is too_long. Duplicated
// ids are answered once, in the order first asked. The frames are read as
// the data call reads them (readDataAnswer: one ReadFrames without
// features, the same checks of the store's answer), every attributes object
// is converted to insight values (numbers and strings; other values carry
// no figure), each frame gets its area (for densities), a nearest question
// gets the features around the selection read in rings up to 50 km
// (access.Answer.Nearest, the key's licences and narrowing applying), with
// an embedding model the measures' embeddings (computed once per dataset
// version and cached) and the question's content words' embedding, and
// package insight computes the answer. The per-query
// datasets its figures used (Insight.Used) that record something on the
// frames are charged in one Charge call; those the credits do not cover
// are removed from the datasets and the frames and the answer is computed
// again, so no figure of theirs remains, and they are listed in leftOut. The
// answer is encoded with encoding/json (it is small) with engine
// "deterministic"; optional members are omitted when empty, and format
// appears only as "report".
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
