package redisstore

import (
	"math"

	"frameindex/limiter"
)

// slot is one distinct bucket of a take: its key's parts, and what
// limiter.Decide needs (the script reads each cell's Debt).
type slot struct {
	kind limiter.Kind
	id   string
	cell limiter.Cell
}

// Saturating arithmetic of the script's arguments, as limiter's.

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
