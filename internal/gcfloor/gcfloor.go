// Package gcfloor gives the garbage collector a heap floor: the heap may
// grow to the live heap plus a fixed floor before a collection, or to twice
// the live heap (Go's default, GOGC=100), whichever is larger.
//
// The server's live heap is small (a few MB on a national grid), so with
// GOGC=100 a collection runs every few milliseconds under load and takes a
// share of every request. A floor of tens of MB makes collections rare
// while bounding the memory it costs: never more than the floor above what
// Go's default would use. A larger live heap (big caches) gets Go's default
// unchanged.
//
// After every collection the percent is set again from what the collection
// measured: floor·100/(live + stacks + globals), at least 100. The runtime
// has no minimum-heap setting; GOMEMLIMIT bounds from above, not below.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// heapMinimum is the runtime's smallest heap goal at GOGC=100; it scales
// with the percent (4 MiB at 100, 40 MiB at 1,000), so a percent computed
// from a tiny live heap alone would set a goal far above live + floor.
const heapMinimum = 4 << 20

// Percent is the GOGC percent that lets a heap of live bytes (with the
// stacks and globals the collector scans) grow by floor bytes, or by
// 100 %, whichever is more.
func Percent(live, floor uint64) int {
	if floor == 0 {
		return 100
	}
	p := uint64(1 << 62)
	if live > 0 {
		p = floor * 100 / live
	}
	// The goal is also at least heapMinimum·p/100: keep that below
	// live + floor.
	p = min(p, (live+floor)*100/heapMinimum)
	return int(max(p, 100))
}

// Overridden reports whether the operator set GOGC or GOMEMLIMIT in the
// environment; then the runtime's own settings are kept as given.
func Overridden() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// Floor keeps the percent tuned until Stop.
type Floor struct {
	floor   uint64
	stopped atomic.Bool
	sample  []metrics.Sample
	before  int // the percent when Start was called, restored by Stop
}

// Start tunes the collector for a heap floor of floor bytes, now and after
// every collection, and returns the tuner; floor 0 leaves the collector as
// it is and returns nil.
func Start(floor uint64) *Floor {
	if floor == 0 {
		return nil
	}
	f := &Floor{floor: floor, sample: newSample()}
	f.before = percentInForce()
	f.tune()
	f.arm()
	return f
}

// arm registers a cleanup on a fresh object that nothing references: it
// runs after the next collection, which tunes and arms again.
func (f *Floor) arm() {
	sentinel := new([16]byte)
	runtime.AddCleanup(sentinel, func(f *Floor) {
		if f.stopped.Load() {
			return
		}
		f.tune()
		f.arm()
	}, f)
}

func newSample() []metrics.Sample {
	return []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"},
		{Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
}

// base is what the runtime grows the goal from by the percent: the live
// heap and the goroutine stacks and globals it scans besides, as read into
// a newSample.
func base(s []metrics.Sample) uint64 { return read(s, 0) + read(s, 2) + read(s, 3) }

func read(s []metrics.Sample, i int) uint64 {
	if s[i].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[i].Value.Uint64()
}

func (f *Floor) tune() {
	// Cleanups run one at a time on one goroutine, and Start's call comes
	// before the first is armed, so the sample slice is not shared.
	metrics.Read(f.sample)
	want, now := Percent(base(f.sample), f.floor), int(read(f.sample, 1))
	// Small moves are left alone, so that collections do not churn the
	// setting: only a change of more than a twentieth is made.
	if abs(now-want)*20 > want {
		debug.SetGCPercent(want)
	}
}

// percentInForce is the GOGC percent the runtime uses now.
func percentInForce() int {
	s := newSample()
	metrics.Read(s)
	return int(read(s, 1))
}

// Stop ends the tuning and restores the percent from before Start.
func (f *Floor) Stop() {
	if f == nil || f.stopped.Swap(true) {
		return
	}
	debug.SetGCPercent(f.before)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
