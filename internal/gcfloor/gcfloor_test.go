package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{6 * mib, 64 * mib, 1066}, // the server's usual live heap: a collection every 64 MiB
		{64 * mib, 64 * mib, 100},
		{500 * mib, 64 * mib, 100}, // a large live heap keeps Go's default
		{63 * mib, 64 * mib, 101},
		{1 << 10, 64 * mib, 1600}, // the runtime's minimum goal, 4 MiB at 100 %, is 64 MiB at 1,600 %
		{0, 64 * mib, 1600},
		{1 * mib, 2 * mib, 100}, // a floor below the minimum goal: Go's default
		{6 * mib, 0, 100},       // no floor: Go's default
	} {
		if got := Percent(c.live, c.floor); got != c.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// heap is what the tuner's percent is computed from (the live heap, the
// stacks and globals) and the runtime's heap goal.
func heap() (live, goal uint64) {
	s := append(newSample(), metrics.Sample{Name: "/gc/heap/goal:bytes"})
	metrics.Read(s)
	return base(s), read(s, len(s)-1)
}

// waitPercent collects until the tuner has set want, or fails.
func waitPercent(t *testing.T, want func() int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs on its own goroutine
		w := want()
		if got := percentInForce(); abs(got-w)*20 <= w {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("percent %d after collections, want about %d", percentInForce(), w)
		}
	}
}

// The tuner follows the live heap after every collection: a small live
// heap gets a goal of about live + floor, a live heap above the floor Go's
// default of twice the live heap, and Stop puts the percent back.
func TestStart_FollowsTheLiveHeap(t *testing.T) {
	const floor = 48 << 20
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	f := Start(floor)
	defer f.Stop()
	waitPercent(t, func() int { l, _ := heap(); return Percent(l, floor) })
	if percentInForce() < 200 {
		t.Fatalf("percent %d with a live heap of a few MiB and a 48 MiB floor", percentInForce())
	}
	runtime.GC()
	live, goal := heap()
	if goal < live+floor*9/10 || goal > live+floor*11/10 {
		t.Errorf("heap goal %d MiB with %d MiB live and a 48 MiB floor, want about %d MiB",
			goal>>20, live>>20, (live+floor)>>20)
	}

	// A live heap three times the floor: Go's default.
	big := make([][]byte, 0, 150)
	for range 150 {
		b := make([]byte, 1<<20)
		b[0] = 1
		big = append(big, b)
	}
	waitPercent(t, func() int { return 100 })
	runtime.KeepAlive(big)
	big = nil

	// Back to a small live heap: the floor again.
	waitPercent(t, func() int { l, _ := heap(); return Percent(l, floor) })

	f.Stop()
	if got := percentInForce(); got != 100 {
		t.Errorf("percent %d after Stop, want the 100 from before Start", got)
	}
	// A collection after Stop does not tune again.
	debug.SetGCPercent(150)
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := percentInForce(); got != 150 {
		t.Errorf("percent %d after Stop and a collection, want 150 left as set", got)
	}
}

func TestStart_ZeroFloorIsOff(t *testing.T) {
	if f := Start(0); f != nil {
		t.Fatal("Start(0) started a tuner")
	}
	var f *Floor
	f.Stop() // a nil tuner stops without panicking
}
