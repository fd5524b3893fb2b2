// Package metrics exposes a node's Prometheus metrics: it implements
// handlers.Metrics with github.com/prometheus/client_golang and serves the
// registry on its own listener (serve --metrics-addr), apart from the API
// so that scrapers and the public never share a port.
//
// # Metrics
//
//	frameindex_http_requests_total{route,status}        requests answered
//	frameindex_http_request_duration_seconds{route}     latency histogram
//	frameindex_ratelimit_decisions_total{kind,outcome}  kind request|insight|invalid,
//	                                                    outcome allowed|refused|unmetered
//	frameindex_charges_total                            per-query datasets charged
//	frameindex_charged_credits_total                    credits those charges took
//	frameindex_charges_left_out_total                   per-query datasets left out (no credits)
//	frameindex_wording_total{outcome,reason}            worded answers kept, discarded (by
//	                                                    reason) or not worded
//	frameindex_dataset_info{dataset,version}            1 per dataset served (read at scrape)
//	frameindex_grid_frames                              frames of the grid served
//	frameindex_ledger_journal_records_total             groups of ledger writes made durable
//	frameindex_ledger_journal_writes_total              ledger writes in them (÷ records: mean group)
//	frameindex_ledger_journal_write_seconds_total       time writing them (÷ records: disk latency)
//	frameindex_ledger_folds_total                       journal folds into the data file
//	frameindex_build_info{version,commit,node}          1
//
// and the Go runtime and process collectors (go_*, process_*).
//
// route is the pattern that matched ("GET /v1/frames/at"), or "unmatched":
// its values are bounded by the routes, never by what clients send.
//
// # Caveats
//
//   - Counters live in the process: they restart at zero with it, as
//     Prometheus expects. Sum them across nodes in the queries.
//   - dataset_info, grid_frames and the ledger's counts are read when
//     scraped, through the functions Options gives; a failure there
//     leaves the series out of that scrape (and is counted in
//     frameindex_scrape_errors_total).
//   - The listener has no authentication: bind it to a private address.
package metrics
