package redisstore

import (
	"frameindex/limiter"
)

// slot is one distinct bucket of a take: its key's parts, and what
// limiter.Decide needs (the script reads each cell's Debt).
type slot struct {
	kind limiter.Kind
	id   string
	cell limiter.Cell
}

// split returns v >= 0 nanoseconds as whole seconds and the nanoseconds
// left, the script's form.
func split(v int64) (int64, int64) { return v / 1e9, v % 1e9 }
