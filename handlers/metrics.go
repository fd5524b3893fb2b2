package handlers

import (
	"net/http"
	"time"

	"frameindex/access"
	"frameindex/limiter"
)

// Metrics receives what the server counts for monitoring; package metrics
// implements it with Prometheus, keeping that dependency out of this
// package. Config.Metrics nil counts nothing and costs one nil check per
// hook. Every method must be safe for concurrent use and must not block:
// they run on the request's goroutine.
type Metrics interface {
	// Request is called once per finished request with the route pattern
	// that matched ("" when none did), the status sent and the time taken.
	Request(route string, status int, took time.Duration)
	// RateLimit is called once per rate-limit decision: kind is one of the
	// RateKind constants, outcome RateAllowed, RateRefused or RateUnmetered.
	RateLimit(kind, outcome string)
	// Charges is called once per request whose per-query datasets were
	// settled: how many were charged, the credits they cost together, and
	// how many were left out for lack of credits.
	Charges(charged int, credits int64, leftOut int)
	// Wording is called once per question a model was asked to word (or
	// would have been, but for the allowance): outcome is one of the
	// Wording constants; reason says why the wording was discarded or not
	// attempted: a verifier kind with "_" for spaces ("wrong_number",
	// "place", "report"...) or a WordingReason constant; "" when kept.
	Wording(outcome, reason string)
}

// Labels the hooks pass to Metrics. They are stable: dashboards and alerts
// are written against them.
const (
	// RateKindRequest: the key's and its organisation's buckets.
	RateKindRequest = "request"
	// RateKindInsight: the same plus the key's insight bucket.
	RateKindInsight = "insight"
	// RateKindInvalid: the bucket of a presented secret that is not a key.
	RateKindInvalid = "invalid"

	RateAllowed = "allowed"
	RateRefused = "refused"
	// RateUnmetered: the request passed without metering, because every
	// bucket involved is switched off or the limiter's store is down.
	RateUnmetered = "unmetered"

	WordingKept      = "kept"
	WordingDiscarded = "discarded"
	// WordingNotWorded: nothing covered a worded answer (allowance and
	// credits spent, or the daily ceiling reached), or reserving failed.
	WordingNotWorded = "not_worded"

	WordingReasonModelFailed  = "model_failed"
	WordingReasonNoTime       = "no_time"
	WordingReasonNoAllowance  = "no_allowance"
	WordingReasonStoreFailure = "store_failure"
)

// countRequest reports a finished request to the metrics.
func (s *Server) countRequest(info *reqInfo, start time.Time) {
	status := info.w.status
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.Request(info.route, status, time.Since(start))
}

// countDecision reports a rate-limit decision (see applyDecision).
func (s *Server) countDecision(kind string, d limiter.Decision, err error) {
	if s.metrics == nil {
		return
	}
	switch {
	case err != nil || d.State.Limit == 0:
		s.metrics.RateLimit(kind, RateUnmetered)
	case d.Allowed:
		s.metrics.RateLimit(kind, RateAllowed)
	default:
		s.metrics.RateLimit(kind, RateRefused)
	}
}

// countCharges reports what a request's per-query datasets came to, once
// they are settled; nothing when none was asked for.
func (s *Server) countCharges(a *access.Answer) {
	if s.metrics == nil {
		return
	}
	charged, leftOut := 0, 0
	var credits int64
	for i, st := range a.State {
		switch {
		case st.Charged:
			charged++
			credits += a.Access[i].Dataset.Price
		case st.LeftOut:
			leftOut++
		}
	}
	if charged+leftOut > 0 {
		s.metrics.Charges(charged, credits, leftOut)
	}
}

// countWording reports the outcome of the wording step.
func (s *Server) countWording(outcome, reason string) {
	if s.metrics != nil {
		s.metrics.Wording(outcome, reason)
	}
}
