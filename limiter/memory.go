package limiter

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// Memory is the in-process Store: local token buckets, one int64 each.
//
// All buckets share one mutex, so a Take over several buckets is atomic.
// The critical section is a few map lookups and integer arithmetic (well
// under a microsecond), far shorter than the HTTP work around each request.
//
// Memory is bounded per kind by Config.MaxBuckets, plus one overflow
// bucket per kind (see the package documentation). It runs no goroutine
// and needs no Close: idle buckets are swept a few at a time by Take.
//
// The zero Memory is ready to use, with the default bounds. A Memory must
// not be copied after first use.
type Memory struct {
	mu      sync.Mutex
	maxPer  int   // hard cap on buckets per kind
	idle    int64 // nanoseconds a bucket stays full before it is dropped
	base    time.Time
	started bool // base is set
	tables  [numKinds]table
}

// NewMemory returns an empty Memory bounded by cfg.MaxBuckets and
// cfg.IdleAfter (zero or less: the defaults). The limits of cfg are not
// used: each Take brings the limits of its buckets.
func NewMemory(cfg Config) *Memory {
	cfg = cfg.withDefaults()
	return &Memory{maxPer: cfg.MaxBuckets, idle: int64(cfg.IdleAfter)}
}

const (
	maxTake      = 8    // buckets in one Take
	sweepPerTake = 2    // entries of each kind examined for idleness by every Take
	evictScan    = 64   // entries examined for a full one when a kind is at its cap
	shrinkMin    = 1024 // a table that peaked below this is never rebuilt smaller
)

// entry is one bucket in the GCRA form: tat is the instant, in nanoseconds
// since Memory.base, at which the bucket is full again. A bucket absent
// from its table is full.
type entry struct {
	id  string
	tat int64
}

// table holds the buckets of one kind. entries is dense so that the sweep
// can walk it with a cursor; index maps an id to its position.
type table struct {
	index        map[string]int
	entries      []entry
	cursor       int // next entry the sweep examines
	peak         int // most entries held since the last rebuild
	overflow     int64
	overflowUsed bool // overflow holds state (it is not known to be full)
}

// place says where a bucket of a Take lives.
type place uint8

const (
	placeHeld     place = iota // an entry of the table, at idx
	placeFresh                 // not in the table: full; inserted if the take is allowed
	placeOverflow              // the kind's overflow bucket: the table is at its cap
)

// slot is one bucket of a Take while it is decided: where it lives; its
// Cell, at the same index of a parallel array, is what Decide sees.
type slot struct {
	kind  Kind
	place place
	idx   int
	id    string
	tat   int64 // state before the take; math.MinInt64 = full
}

// Take spends one token from every bucket in bs whose limit is metered
// (Burst > 0), atomically: if any of them holds less than one token, none
// is spent and the Decision is a refusal. now may go backwards between
// calls (concurrent callers read the clock in any order): a bucket is never
// refilled by it, only spent as of its latest state.
//
// A bucket listed twice in bs is spent twice, against the limit of its
// first listing. A new bucket of a kind at its MaxBuckets cap, when no full
// bucket can be dropped to make room, is the kind's overflow bucket instead.
//
// Take returns an error, and spends nothing, when len(bs) != len(limits),
// when bs holds more than 8 buckets or a Kind other than the four. It never
// returns ErrUnavailable. Take keeps no reference to bs or limits; it copies
// an ID it keeps. Safe for concurrent use.
func (m *Memory) Take(now time.Time, bs []Bucket, limits []Limit) (Decision, error) {
	if len(bs) != len(limits) {
		return Decision{}, fmt.Errorf("limiter: %d buckets but %d limits", len(bs), len(limits))
	}
	if len(bs) > maxTake {
		return Decision{}, fmt.Errorf("limiter: %d buckets in one take, at most %d", len(bs), maxTake)
	}
	for _, b := range bs {
		if b.Kind >= numKinds {
			return Decision{}, fmt.Errorf("limiter: unknown bucket kind %d", uint8(b.Kind))
		}
	}

	var slots [maxTake]slot
	var cells [maxTake]Cell
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.maxPer <= 0 { // the zero Memory
		m.maxPer, m.idle = DefaultMaxBuckets, int64(DefaultIdleAfter)
	}
	t := m.clock(now)

	n, fresh := 0, false
	for i := range bs {
		l := limits[i]
		if l.Burst <= 0 {
			continue // switched off
		}
		// Assigned by index, not through a pointer, so that escape
		// analysis sees the IDs stay in this array.
		slots[n] = slot{
			kind: bs[i].Kind,
			id:   bs[i].ID,
		}
		cells[n] = Cell{Interval: Interval(l.PerMinute), Burst: int64(min(l.Burst, MaxBurst)), Count: 1}
		if !m.tables[bs[i].Kind].find(&slots[n]) {
			fresh = true
		}
		n++
	}
	if n == 0 {
		return Decision{Allowed: true}, nil
	}
	if fresh {
		m.placeFresh(slots[:n], t)
	}
	merge(slots[:n], cells[:n])
	d := decide(slots[:n], cells[:n], t)
	if d.Allowed {
		m.apply(slots[:n], cells[:n], t)
	}
	for k := range m.tables {
		m.tables[k].sweep(t, m.idle, sweepPerTake)
	}
	return d, nil
}

// Len returns the number of buckets held, all kinds, overflow buckets
// included. Safe for concurrent use.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.tables {
		n += len(m.tables[k].entries)
		if m.tables[k].overflowUsed {
			n++
		}
	}
	return n
}

// clock returns now in nanoseconds since the first time this Memory saw.
// time.Time.Sub uses the monotonic clock when both readings carry one, so
// buckets are immune to steps of the wall clock; it saturates instead of
// overflowing.
func (m *Memory) clock(now time.Time) int64 {
	if !m.started {
		m.base, m.started = now, true
	}
	return int64(now.Sub(m.base))
}

// find looks s up by its id, and reports whether it is held.
func (tb *table) find(s *slot) bool {
	if i, ok := tb.index[s.id]; ok {
		s.place, s.idx, s.tat = placeHeld, i, tb.entries[i].tat
		return true
	}
	s.place, s.idx, s.tat = placeFresh, 0, math.MinInt64
	return false
}

// placeFresh decides, for the buckets of a take that are not held yet,
// whether they get an entry of their own or the overflow bucket of their
// kind. When a kind is at its cap it first drops full buckets (dropping a
// full bucket loses nothing: an absent bucket is full), which may move or
// remove the entries of held slots, so all are looked up again.
func (m *Memory) placeFresh(slots []slot, t int64) {
	var need [numKinds]int
	for i := range slots {
		if slots[i].place == placeFresh && !seenFresh(slots[:i], &slots[i]) {
			need[slots[i].kind]++
		}
	}
	evicted := false
	for k := range m.tables {
		if over := len(m.tables[k].entries) + need[k] - m.maxPer; need[k] > 0 && over > 0 {
			m.tables[k].evict(t, over, evictScan, Kind(k), slots)
			evicted = true
		}
	}
	if evicted {
		for i := range slots {
			m.tables[slots[i].kind].find(&slots[i])
		}
	}
	var room [numKinds]int
	for k := range m.tables {
		room[k] = m.maxPer - len(m.tables[k].entries)
	}
	for i := range slots {
		s := &slots[i]
		if s.place != placeFresh || seenFresh(slots[:i], s) {
			continue
		}
		if room[s.kind] > 0 {
			room[s.kind]--
			continue
		}
		tb := &m.tables[s.kind]
		s.place, s.tat = placeOverflow, math.MinInt64
		if tb.overflowUsed {
			s.tat = tb.overflow
		}
	}
}

// seenFresh reports whether an earlier slot is the same fresh bucket as s.
func seenFresh(earlier []slot, s *slot) bool {
	for i := range earlier {
		if earlier[i].place == placeFresh && earlier[i].kind == s.kind && earlier[i].id == s.id {
			return true
		}
	}
	return false
}

// merge folds slots naming the same bucket into the first of them, which
// then spends one token per listing; the others get count 0 and are
// skipped from then on. (Marking rather than compacting keeps the IDs from
// being copied through the slice, which would make them escape.)
func merge(slots []slot, cells []Cell) {
	for i := range slots {
		s := &slots[i]
		for j := range slots[:i] {
			o := &slots[j]
			if cells[j].Count == 0 || o.kind != s.kind || o.place != s.place {
				continue
			}
			if s.place == placeOverflow ||
				(s.place == placeHeld && o.idx == s.idx) ||
				(s.place == placeFresh && o.id == s.id) {
				cells[j].Count++
				cells[i].Count = 0
				break
			}
		}
	}
}

// decide reads each cell's debt at instant t from its slot and decides
// the take (Decide).
func decide(slots []slot, cells []Cell, t int64) Decision {
	for i := range cells {
		if cells[i].Count != 0 {
			cells[i].Debt = max(satSub(slots[i].tat, t), 0)
		}
	}
	return Decide(cells)
}

// apply writes the state after an allowed take.
func (m *Memory) apply(slots []slot, cells []Cell, t int64) {
	for i := range slots {
		s := &slots[i]
		if cells[i].Count == 0 {
			continue
		}
		tb := &m.tables[s.kind]
		tat := satAdd(t, cells[i].After)
		switch s.place {
		case placeHeld:
			tb.entries[s.idx].tat = tat
		case placeFresh:
			tb.insert(strings.Clone(s.id), tat)
		case placeOverflow:
			tb.overflow, tb.overflowUsed = tat, true
		}
	}
}

func (tb *table) insert(id string, tat int64) {
	if tb.index == nil {
		tb.index = make(map[string]int)
	}
	tb.index[id] = len(tb.entries)
	tb.entries = append(tb.entries, entry{id: id, tat: tat})
	tb.peak = max(tb.peak, len(tb.entries))
}

// remove drops entry i, moving the last entry into its place.
func (tb *table) remove(i int) {
	last := len(tb.entries) - 1
	delete(tb.index, tb.entries[i].id)
	if i != last {
		tb.entries[i] = tb.entries[last]
		tb.index[tb.entries[i].id] = i
	}
	tb.entries[last] = entry{} // let the id be collected
	tb.entries = tb.entries[:last]
}

// sweep examines up to steps entries from the cursor and drops those full
// for at least idle nanoseconds, then the overflow bucket likewise. A table
// that has shrunk to an eighth of its peak is rebuilt, since a Go map keeps
// its largest size.
func (tb *table) sweep(t, idle int64, steps int) {
	for range steps {
		if len(tb.entries) == 0 {
			break
		}
		if tb.cursor >= len(tb.entries) {
			tb.cursor = 0
		}
		if satAdd(tb.entries[tb.cursor].tat, idle) <= t {
			tb.remove(tb.cursor)
		} else {
			tb.cursor++
		}
	}
	if tb.overflowUsed && satAdd(tb.overflow, idle) <= t {
		tb.overflowUsed = false
	}
	if tb.peak >= shrinkMin && len(tb.entries) <= tb.peak/8 {
		tb.rebuild()
	}
}

// evict examines up to scan entries from the cursor and drops full ones
// until want are gone, sparing the buckets of the take in progress (kind k,
// slots). Used at the cap, where a full bucket is dropped however recently
// it was used.
func (tb *table) evict(t int64, want, scan int, k Kind, slots []slot) {
	for range scan {
		if want <= 0 || len(tb.entries) == 0 {
			return
		}
		if tb.cursor >= len(tb.entries) {
			tb.cursor = 0
		}
		if e := &tb.entries[tb.cursor]; e.tat <= t && !inTake(k, e.id, slots) {
			tb.remove(tb.cursor)
			want--
		} else {
			tb.cursor++
		}
	}
}

// inTake reports whether a slot of the take names bucket (k, id).
func inTake(k Kind, id string, slots []slot) bool {
	for i := range slots {
		if slots[i].kind == k && slots[i].id == id {
			return true
		}
	}
	return false
}

// rebuild copies the table into a map and slice sized for what it holds.
func (tb *table) rebuild() {
	entries := make([]entry, len(tb.entries), 2*len(tb.entries))
	copy(entries, tb.entries)
	index := make(map[string]int, 2*len(entries))
	for i, e := range entries {
		index[e.id] = i
	}
	tb.entries, tb.index, tb.peak, tb.cursor = entries, index, len(entries), 0
}

// Saturating int64 arithmetic: instants come from time.Time.Sub, which
// saturates, so sums near the ends of the range must not wrap.

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	if b < 0 && a < math.MinInt64-b {
		return math.MinInt64
	}
	return a + b
}

func satSub(a, b int64) int64 {
	if b < 0 && a > math.MaxInt64+b {
		return math.MaxInt64
	}
	if b > 0 && a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

// satMul multiplies non-negative a and b.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
