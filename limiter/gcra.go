package limiter

import (
	"math"
	"time"
)

// Cell is one distinct bucket of a take as a store has read it: the
// generic cell rate algorithm's view of it. Every Store decides through
// Decide, so that a Decision does not depend on where buckets live.
type Cell struct {
	Interval int64 // nanoseconds to refill one token (>= 1; see Interval)
	Burst    int64 // capacity (>= 1)
	Count    int64 // tokens to spend: 1, more when the bucket is listed twice; 0 skips the cell
	Debt     int64 // nanoseconds until the bucket is full, before the take (>= 0)
	After    int64 // set by Decide: nanoseconds until full after spending (meaningful when allowed)
	Retry    int64 // set by Decide: when this cell refuses, nanoseconds until it holds Count tokens
}

// Cost is the nanoseconds of refill the cell's Count tokens take,
// saturated at math.MaxInt64.
func (c Cell) Cost() int64 { return satMul(c.Count, c.Interval) }

// Span is the nanoseconds a full bucket of the cell took to fill from
// empty (Burst tokens), saturated at math.MaxInt64.
func (c Cell) Span() int64 { return satMul(c.Burst, c.Interval) }

// Decide decides a take over cells: a bucket of capacity B refilling one
// token every T nanoseconds, full again in Debt nanoseconds, holds
// B - Debt/T tokens, and can spend c of them when Debt + c*T <= B*T. It is
// allowed when every cell can spend its Count; it sets each cell's After
// (and Retry on a refusing cell). The Decision's State is the allowed
// take's tightest bucket (fewest requests left, then the longest reset),
// or the refused take's bucket with the longest wait. All integer: exact
// to the nanosecond.
func Decide(cells []Cell) Decision {
	allowed := true
	for i := range cells {
		c := &cells[i]
		if c.Count == 0 {
			continue // merged into an earlier cell
		}
		span := c.Span()
		c.After = satAdd(c.Debt, c.Cost())
		if c.After > span {
			allowed = false
			c.Retry = c.After - span
		}
	}
	var d Decision
	if allowed {
		d.Allowed = true
		for i := range cells {
			c := &cells[i]
			if c.Count == 0 {
				continue
			}
			st := State{
				Limit:     int(c.Burst),
				Remaining: remaining(c.Burst, c.After, c.Interval),
				Reset:     time.Duration(c.After),
			}
			if d.State.Limit == 0 || st.Remaining < d.State.Remaining ||
				(st.Remaining == d.State.Remaining && st.Reset > d.State.Reset) {
				d.State = st
			}
		}
		return d
	}
	for i := range cells {
		c := &cells[i]
		if c.Retry > 0 && time.Duration(c.Retry) > d.State.RetryAfter {
			d.State = State{
				Limit:      int(c.Burst),
				Remaining:  remaining(c.Burst, c.Debt, c.Interval),
				Reset:      time.Duration(c.Debt),
				RetryAfter: time.Duration(c.Retry),
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

// Interval returns the nanoseconds to refill one token at perMinute tokens
// a minute, rounded to the nearest nanosecond and kept within
// [1, MaxInterval]; a rate that is not a positive number gets MaxInterval.
func Interval(perMinute float64) int64 {
	if !(perMinute > 0) {
		return int64(MaxInterval)
	}
	f := float64(time.Minute) / perMinute
	if f >= float64(MaxInterval) {
		return int64(MaxInterval)
	}
	if f <= 1 {
		return 1
	}
	return int64(math.Round(f))
}
