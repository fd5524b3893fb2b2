package redisstore

import (
	"math"
	"time"

	"frameindex/limiter"
)

// The arithmetic of limiter.Memory (memory.go there), repeated here so that
// a Decision from Redis is the one Memory would give: the property test
// compares the two on random takes. Change both together.

// slot is one distinct bucket of a take.
type slot struct {
	kind     limiter.Kind
	id       string
	interval int64 // nanoseconds to refill one token (>= 1)
	burst    int64 // capacity (>= 1)
	count    int64 // tokens to spend: 1, more when the bucket is listed twice
	debt     int64 // from the script: nanoseconds until full, before the take
	after    int64 // debt + count*interval, saturated
	retry    int64 // when refused by this bucket: nanoseconds until it holds count tokens
}

// decide is limiter's decide over the debts the script read. It also
// returns whether the take was allowed, which must match the script's own
// comparison (the same integers, compared the same way).
func decide(slots []slot) limiter.Decision {
	allowed := true
	for i := range slots {
		s := &slots[i]
		span := satMul(s.burst, s.interval)
		s.after = satAdd(s.debt, satMul(s.count, s.interval))
		if s.after > span {
			allowed = false
			s.retry = s.after - span
		}
	}
	var d limiter.Decision
	if allowed {
		d.Allowed = true
		for i := range slots {
			s := &slots[i]
			st := limiter.State{
				Limit:     int(s.burst),
				Remaining: remaining(s.burst, s.after, s.interval),
				Reset:     time.Duration(s.after),
			}
			if d.State.Limit == 0 || st.Remaining < d.State.Remaining ||
				(st.Remaining == d.State.Remaining && st.Reset > d.State.Reset) {
				d.State = st
			}
		}
		return d
	}
	for i := range slots {
		s := &slots[i]
		if s.retry > 0 && time.Duration(s.retry) > d.State.RetryAfter {
			d.State = limiter.State{
				Limit:      int(s.burst),
				Remaining:  remaining(s.burst, s.debt, s.interval),
				Reset:      time.Duration(s.debt),
				RetryAfter: time.Duration(s.retry),
			}
		}
	}
	return d
}

// remaining is the whole tokens of a bucket of capacity burst that is full
// again in debt nanoseconds: burst - ceil(debt/interval), never negative.
func remaining(burst, debt, interval int64) int {
	used := debt / interval
	if debt%interval != 0 {
		used++
	}
	return int(max(burst-used, 0))
}

// interval returns the nanoseconds to refill one token at perMinute tokens
// a minute, rounded to the nearest nanosecond and kept within
// [1, limiter.MaxInterval]; a rate that is not a positive number gets
// MaxInterval.
func interval(perMinute float64) int64 {
	if !(perMinute > 0) {
		return int64(limiter.MaxInterval)
	}
	f := float64(time.Minute) / perMinute
	if f >= float64(limiter.MaxInterval) {
		return int64(limiter.MaxInterval)
	}
	if f <= 1 {
		return 1
	}
	return int64(math.Round(f))
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	if b < 0 && a < math.MinInt64-b {
		return math.MinInt64
	}
	return a + b
}

// satMul multiplies non-negative a and b.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// split returns v >= 0 nanoseconds as whole seconds and the nanoseconds
// left, the script's form.
func split(v int64) (int64, int64) { return v / 1e9, v % 1e9 }
