package handlers

import (
	"crypto/sha256"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"frameindex/limiter"
)

// RateLimiter meters requests by the spec's token buckets; *limiter.Limiter
// implements it. An error (limiter.ErrUnavailable: the store cannot be
// reached) lets the request pass unmetered, without rate-limit headers.
type RateLimiter interface {
	Request(keyID, orgID string, insight bool) (limiter.Decision, error)
	InvalidKey(digest [32]byte) (limiter.Decision, error)
}

// meterKey spends from the buckets of an authenticated key (the key's and
// its organisation's, and the insight bucket when insight is set). It sets
// the rate-limit headers and returns a rate_limited error when a bucket is
// empty.
func (s *Server) meterKey(w http.ResponseWriter, r *http.Request, keyID, orgID string, insight bool) error {
	if s.limiter == nil {
		return nil
	}
	d, err := s.limiter.Request(keyID, orgID, insight)
	if insight {
		s.countDecision(RateKindInsight, d, err)
	} else {
		s.countDecision(RateKindRequest, d, err)
	}
	return s.applyDecision(w, r, d, err,
		"this key or its organisation has spent its request budget (see X-RateLimit-Limit); retry after ")
}

// meterInvalid spends from the bucket of a credential that did not
// authenticate, keyed by its SHA-256 digest: the secret itself is never
// kept. The sixth bad attempt within the window is refused with 429 before
// the key is looked up again.
func (s *Server) meterInvalid(w http.ResponseWriter, r *http.Request) error {
	if s.limiter == nil {
		return nil
	}
	cred := strings.TrimSpace(r.Header.Get("Authorization"))
	d, err := s.limiter.InvalidKey(sha256.Sum256([]byte(cred)))
	s.countDecision(RateKindInvalid, d, err)
	return s.applyDecision(w, r, d, err,
		"too many requests with a key that is not valid; check the key, and retry after ")
}

func (s *Server) applyDecision(w http.ResponseWriter, r *http.Request, d limiter.Decision, err error, refusal string) error {
	if err != nil {
		// Spec Limits 3: pass unmetered, no headers. Logged on the change
		// only, so a store that stays down does not flood the log.
		if !s.limiterDown.Swap(true) {
			s.logger.LogAttrs(r.Context(), slog.LevelWarn, "rate limiting suspended: the limiter store is unreachable",
				slog.String("error", err.Error()))
		}
		return nil
	}
	if s.limiterDown.Swap(false) {
		s.logger.LogAttrs(r.Context(), slog.LevelInfo, "rate limiting resumed")
	}
	if d.State.Limit == 0 {
		return nil // every bucket of this request is switched off: not metered
	}
	var vals *[4]string
	if info := infoOf(w); info != nil {
		vals = &info.rateHeader
	} else {
		vals = new([4]string)
	}
	vals[0] = smallItoa(d.State.Limit)
	vals[1] = smallItoa(max(d.State.Remaining, 0))
	vals[2] = smallItoa(ceilSeconds(d.State.Reset, 0))
	h := w.Header()
	h["X-Ratelimit-Limit"] = vals[0:1:1]
	h["X-Ratelimit-Remaining"] = vals[1:2:2]
	h["X-Ratelimit-Reset"] = vals[2:3:3]
	if d.Allowed {
		return nil
	}
	retry := ceilSeconds(d.State.RetryAfter, 1)
	vals[3] = smallItoa(retry)
	h["Retry-After"] = vals[3:4:4]
	return newError(codeRateLimited, refusal+vals[3]+" s (Retry-After)")
}

// ceilSeconds rounds d up to whole seconds, at least floor.
func ceilSeconds(d time.Duration, floor int) int {
	return max(int(math.Ceil(d.Seconds())), floor)
}

// isInvalidKey reports whether err is answered as 401 invalid_key: a
// credential was presented and did not authenticate.
func isInvalidKey(err error) bool {
	code, _, _ := classify(err)
	return code == codeInvalidKey
}

// smallInts holds the decimal text of 0..1023, the values rate-limit headers
// take with the spec's limits, so that writing them allocates nothing.
var smallInts = func() (t [1024]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func smallItoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return strconv.Itoa(n)
}
