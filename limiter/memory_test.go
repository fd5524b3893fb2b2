package limiter

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"
)

// t0 is the fixed instant tests start from.
var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// step is one request against one bucket at t0+at, and what it must give.
type step struct {
	at        time.Duration
	allowed   bool
	remaining int
	reset     time.Duration
	retry     time.Duration
}

// runSteps takes from bucket b with limit l at each step, in order.
func runSteps(t *testing.T, m *Memory, b Bucket, l Limit, steps []step) {
	t.Helper()
	for i, s := range steps {
		d, err := m.Take(t0.Add(s.at), []Bucket{b}, []Limit{l})
		if err != nil {
			t.Fatalf("step %d (at %v): %v", i, s.at, err)
		}
		want := Decision{Allowed: s.allowed, State: State{Limit: l.Burst, Remaining: s.remaining, Reset: s.reset, RetryAfter: s.retry}}
		if d != want {
			t.Fatalf("step %d (at %v):\n got %+v\nwant %+v", i, s.at, d, want)
		}
	}
}

func TestMemory_Take_steps(t *testing.T) {
	const sec = time.Second
	// 7 a minute: one token every 60s/7 = 8.571428571428...s, rounded to
	// the nanosecond.
	const t7 = 8571428571 * time.Nanosecond
	tests := []struct {
		name  string
		limit Limit
		steps []step
	}{
		{
			name:  "60 a minute, burst 3",
			limit: Limit{PerMinute: 60, Burst: 3},
			steps: []step{
				{at: 0, allowed: true, remaining: 2, reset: 1 * sec},
				{at: 0, allowed: true, remaining: 1, reset: 2 * sec},
				{at: 0, allowed: true, remaining: 0, reset: 3 * sec},
				{at: 0, allowed: false, remaining: 0, reset: 3 * sec, retry: 1 * sec},
				{at: 999 * time.Millisecond, allowed: false, remaining: 0, reset: 2001 * time.Millisecond, retry: time.Millisecond},
				{at: sec - time.Nanosecond, allowed: false, remaining: 0, reset: 2*sec + time.Nanosecond, retry: time.Nanosecond},
				{at: 1 * sec, allowed: true, remaining: 0, reset: 3 * sec},
				{at: 1 * sec, allowed: false, remaining: 0, reset: 3 * sec, retry: 1 * sec},
				// 2.5 tokens at 3.5s: spend one, 1.5 left, floor 1.
				{at: 3500 * time.Millisecond, allowed: true, remaining: 1, reset: 1500 * time.Millisecond},
				// Long after: full again, never more than the burst.
				{at: time.Hour, allowed: true, remaining: 2, reset: 1 * sec},
			},
		},
		{
			name:  "7 a minute, burst 2: retry after is exact to the nanosecond",
			limit: Limit{PerMinute: 7, Burst: 2},
			steps: []step{
				{at: 0, allowed: true, remaining: 1, reset: t7},
				{at: 0, allowed: true, remaining: 0, reset: 2 * t7},
				{at: 0, allowed: false, remaining: 0, reset: 2 * t7, retry: t7},
				{at: t7 - time.Nanosecond, allowed: false, remaining: 0, reset: t7 + time.Nanosecond, retry: time.Nanosecond},
				{at: t7, allowed: true, remaining: 0, reset: 2 * t7},
			},
		},
		{
			name:  "the spec's invalid-key bucket: 5 a minute, burst 5",
			limit: Limit{PerMinute: 5, Burst: 5},
			steps: []step{
				{at: 0, allowed: true, remaining: 4, reset: 12 * sec},
				{at: 1 * sec, allowed: true, remaining: 3, reset: 23 * sec},
				{at: 2 * sec, allowed: true, remaining: 2, reset: 34 * sec},
				{at: 3 * sec, allowed: true, remaining: 1, reset: 45 * sec},
				{at: 4 * sec, allowed: true, remaining: 0, reset: 56 * sec},
				// The sixth within a minute is refused; the first token
				// came back at 12s.
				{at: 5 * sec, allowed: false, remaining: 0, reset: 55 * sec, retry: 7 * sec},
				{at: 12 * sec, allowed: true, remaining: 0, reset: 60 * sec},
			},
		},
		{
			name:  "burst 1",
			limit: Limit{PerMinute: 600, Burst: 1},
			steps: []step{
				{at: 0, allowed: true, remaining: 0, reset: 100 * time.Millisecond},
				{at: 50 * time.Millisecond, allowed: false, remaining: 0, reset: 50 * time.Millisecond, retry: 50 * time.Millisecond},
				{at: 100 * time.Millisecond, allowed: true, remaining: 0, reset: 100 * time.Millisecond},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, NewMemory(Config{}), Bucket{Kind: KindKey, ID: "k1"}, tt.limit, tt.steps)
		})
	}
}

// TestMemory_Take_retryAfterWorks checks, over many rates and bursts drawn
// with a fixed seed, that a refused request succeeds after exactly
// RetryAfter and not a nanosecond sooner.
func TestMemory_Take_retryAfterWorks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		l := Limit{PerMinute: 0.01 + r.Float64()*1000, Burst: 1 + r.IntN(50)}
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			m := NewMemory(Config{})
			b := []Bucket{{Kind: KindKey, ID: "k"}}
			ls := []Limit{l}
			now := t0
			refusals := 0
			for refusals < 3 {
				d, err := m.Take(now, b, ls)
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed {
					// Less than half an interval: spends outrun refill.
					now = now.Add(time.Duration(r.Int64N(Interval(l.PerMinute)/2 + 1)))
					continue
				}
				refusals++
				if d.State.RetryAfter <= 0 {
					t.Fatalf("limit %+v: refused with RetryAfter %v", l, d.State.RetryAfter)
				}
				if d, _ := m.Take(now.Add(d.State.RetryAfter-time.Nanosecond), b, ls); d.Allowed {
					t.Fatalf("limit %+v: allowed a nanosecond before RetryAfter", l)
				}
				now = now.Add(d.State.RetryAfter)
				if d, _ := m.Take(now, b, ls); !d.Allowed {
					t.Fatalf("limit %+v: refused after RetryAfter: %+v", l, d)
				}
			}
		})
	}
}

// remainingOf spends one token from b alone and returns what was left
// before it, or -1 when refused.
func remainingOf(t *testing.T, m *Memory, now time.Time, b Bucket, l Limit) int {
	t.Helper()
	d, err := m.Take(now, []Bucket{b}, []Limit{l})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Allowed {
		return -1
	}
	return d.State.Remaining + 1
}

func TestMemory_Take_allOrNothing(t *testing.T) {
	key1 := Bucket{Kind: KindKey, ID: "key1"}
	key2 := Bucket{Kind: KindKey, ID: "key2"}
	org := Bucket{Kind: KindOrg, ID: "org"}
	tests := []struct {
		name           string
		keyL, orgL     Limit
		spend          int // requests of key1 before the refused one
		probe          Bucket
		probeL         Limit
		wantProbe      int // tokens the probed bucket still holds
		wantRefusedLim int // the Limit reported by the refusal
	}{
		{
			name: "key bucket empty: the organisation's is not spent",
			keyL: Limit{PerMinute: 60, Burst: 2}, orgL: Limit{PerMinute: 60, Burst: 10},
			spend: 2, probe: org, wantProbe: 8, wantRefusedLim: 2,
		},
		{
			name: "organisation bucket empty: the key's is not spent",
			keyL: Limit{PerMinute: 60, Burst: 10}, orgL: Limit{PerMinute: 60, Burst: 2},
			spend: 2, probe: key1, wantProbe: 8, wantRefusedLim: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(Config{})
			ls := []Limit{tt.keyL, tt.orgL}
			for i := range tt.spend {
				if d, _ := m.Take(t0, []Bucket{key1, org}, ls); !d.Allowed {
					t.Fatalf("request %d refused", i+1)
				}
			}
			for range 3 { // refused again and again: still nothing spent
				d, err := m.Take(t0, []Bucket{key1, org}, ls)
				if err != nil || d.Allowed || d.State.Limit != tt.wantRefusedLim {
					t.Fatalf("got %+v, %v; want a refusal by the bucket of burst %d", d, err, tt.wantRefusedLim)
				}
			}
			probeL := tt.keyL
			if tt.probe.Kind == KindOrg {
				probeL = tt.orgL
			}
			if got := remainingOf(t, m, t0, tt.probe, probeL); got != tt.wantProbe {
				t.Errorf("%v holds %d tokens, want %d", tt.probe, got, tt.wantProbe)
			}
			// key2 is untouched either way.
			if got := remainingOf(t, m, t0, key2, tt.keyL); got != tt.keyL.Burst {
				t.Errorf("key2 holds %d tokens, want %d", got, tt.keyL.Burst)
			}
		})
	}
}

func TestMemory_Take_reportedState(t *testing.T) {
	a := Bucket{Kind: KindKey, ID: "a"}
	b := Bucket{Kind: KindOrg, ID: "b"}
	tests := []struct {
		name   string
		la, lb Limit
		before int // requests on both first
		want   Decision
	}{
		{
			name: "allowed: the bucket with fewer whole tokens left",
			la:   Limit{PerMinute: 60, Burst: 10}, lb: Limit{PerMinute: 600, Burst: 5},
			want: Decision{Allowed: true, State: State{Limit: 5, Remaining: 4, Reset: 100 * time.Millisecond}},
		},
		{
			name: "allowed, tie on tokens: the one longer to refill",
			la:   Limit{PerMinute: 60, Burst: 5}, lb: Limit{PerMinute: 600, Burst: 5},
			want: Decision{Allowed: true, State: State{Limit: 5, Remaining: 4, Reset: time.Second}},
		},
		{
			name: "refused by both: the longer retry",
			la:   Limit{PerMinute: 60, Burst: 2}, lb: Limit{PerMinute: 600, Burst: 2},
			before: 2,
			want:   Decision{State: State{Limit: 2, Remaining: 0, Reset: 2 * time.Second, RetryAfter: time.Second}},
		},
		{
			name: "refused by one: that one, however full the other",
			la:   Limit{PerMinute: 60, Burst: 100}, lb: Limit{PerMinute: 600, Burst: 1},
			before: 1,
			want:   Decision{State: State{Limit: 1, Remaining: 0, Reset: 100 * time.Millisecond, RetryAfter: 100 * time.Millisecond}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(Config{})
			bs, ls := []Bucket{a, b}, []Limit{tt.la, tt.lb}
			for range tt.before {
				m.Take(t0, bs, ls)
			}
			d, err := m.Take(t0, bs, ls)
			if err != nil || d != tt.want {
				t.Fatalf("got %+v, %v\nwant %+v", d, err, tt.want)
			}
		})
	}
}

func TestMemory_Take_listedTwice(t *testing.T) {
	m := NewMemory(Config{})
	k := Bucket{Kind: KindKey, ID: "k"}
	l := Limit{PerMinute: 60, Burst: 3}
	d, _ := m.Take(t0, []Bucket{k, k}, []Limit{l, l})
	if want := (Decision{Allowed: true, State: State{Limit: 3, Remaining: 1, Reset: 2 * time.Second}}); d != want {
		t.Fatalf("first: got %+v, want %+v", d, want)
	}
	// One token left: a take of two is refused until a second is back.
	d, _ = m.Take(t0, []Bucket{k, k}, []Limit{l, l})
	if want := (Decision{State: State{Limit: 3, Remaining: 1, Reset: 2 * time.Second, RetryAfter: time.Second}}); d != want {
		t.Fatalf("second: got %+v, want %+v", d, want)
	}
	if got := remainingOf(t, m, t0, k, l); got != 1 {
		t.Fatalf("after the refusal %d tokens, want 1", got)
	}
}

func TestMemory_Take_badInput(t *testing.T) {
	l := Limit{PerMinute: 60, Burst: 1}
	k := Bucket{Kind: KindKey, ID: "k"}
	nine := make([]Bucket, 9)
	nineL := make([]Limit, 9)
	for i := range nine {
		nine[i], nineL[i] = Bucket{Kind: KindKey, ID: strconv.Itoa(i)}, l
	}
	tests := []struct {
		name    string
		bs      []Bucket
		ls      []Limit
		wantErr string
	}{
		{"more limits than buckets", []Bucket{k}, []Limit{l, l}, "limiter: 1 buckets but 2 limits"},
		{"fewer limits than buckets", []Bucket{k, k}, nil, "limiter: 2 buckets but 0 limits"},
		{"too many buckets", nine, nineL, "limiter: 9 buckets in one take, at most 8"},
		{"unknown kind", []Bucket{k, {Kind: 4, ID: "x"}}, []Limit{l, l}, "limiter: unknown bucket kind 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(Config{})
			d, err := m.Take(t0, tt.bs, tt.ls)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if d != (Decision{}) {
				t.Errorf("decision %+v with an error, want the zero value", d)
			}
			if m.Len() != 0 {
				t.Errorf("Len %d after a failed take, want 0", m.Len())
			}
		})
	}
	t.Run("no buckets", func(t *testing.T) {
		d, err := NewMemory(Config{}).Take(t0, nil, nil)
		if err != nil || d != (Decision{Allowed: true}) {
			t.Fatalf("got %+v, %v; want allowed with no state", d, err)
		}
	})
}

func TestMemory_Take_switchedOff(t *testing.T) {
	m := NewMemory(Config{})
	k := Bucket{Kind: KindKey, ID: "k"}
	o := Bucket{Kind: KindOrg, ID: "o"}
	for i := range 1000 {
		d, err := m.Take(t0, []Bucket{k}, []Limit{{PerMinute: 60, Burst: 0}})
		if err != nil || d != (Decision{Allowed: true}) {
			t.Fatalf("request %d: got %+v, %v; want allowed, no state", i, d, err)
		}
		m.Take(t0, []Bucket{k}, []Limit{{PerMinute: 60, Burst: -1}})
	}
	if m.Len() != 0 {
		t.Fatalf("Len %d: a switched-off bucket holds memory", m.Len())
	}
	// Only the metered bucket of a pair counts.
	d, _ := m.Take(t0, []Bucket{k, o}, []Limit{{Burst: 0}, {PerMinute: 60, Burst: 2}})
	if want := (Decision{Allowed: true, State: State{Limit: 2, Remaining: 1, Reset: time.Second}}); d != want {
		t.Fatalf("got %+v, want %+v", d, want)
	}
}

// TestMemory_Take_oddInput feeds limits and clocks a caller should not
// send: nothing panics, and the reported state stays within its bounds.
func TestMemory_Take_oddInput(t *testing.T) {
	tests := []struct {
		name  string
		limit Limit
		times []time.Time
	}{
		{"NaN rate", Limit{PerMinute: math.NaN(), Burst: 2}, []time.Time{t0, t0, t0, t0.Add(time.Hour)}},
		{"zero rate", Limit{PerMinute: 0, Burst: 2}, []time.Time{t0, t0, t0}},
		{"negative rate", Limit{PerMinute: -5, Burst: 1}, []time.Time{t0, t0}},
		{"infinite rate", Limit{PerMinute: math.Inf(1), Burst: 1}, []time.Time{t0, t0, t0}},
		{"huge burst", Limit{PerMinute: 1e-300, Burst: math.MaxInt}, []time.Time{t0, t0}},
		{"zero time then far future", Limit{PerMinute: 60, Burst: 3}, []time.Time{{}, t0, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), {}, {}, {}, {}}},
		{"clock going backwards", Limit{PerMinute: 60, Burst: 2}, []time.Time{t0, t0.Add(-time.Hour), t0.Add(-2 * time.Hour), t0, t0.Add(time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(Config{})
			b := []Bucket{{Kind: KindInvalid, ID: "x"}}
			limit := min(tt.limit.Burst, MaxBurst)
			for i, now := range tt.times {
				d, err := m.Take(now, b, []Limit{tt.limit})
				if err != nil {
					t.Fatalf("take %d: %v", i, err)
				}
				s := d.State
				if s.Limit != limit || s.Remaining < 0 || s.Remaining > limit || s.Reset < 0 ||
					(d.Allowed && s.RetryAfter != 0) || (!d.Allowed && s.RetryAfter <= 0) {
					t.Fatalf("take %d at %v: state out of bounds: %+v", i, now, d)
				}
			}
		})
	}
	t.Run("clock going backwards never refills", func(t *testing.T) {
		m := NewMemory(Config{})
		b := []Bucket{{Kind: KindKey, ID: "k"}}
		l := []Limit{{PerMinute: 60, Burst: 1}}
		m.Take(t0, b, l)
		d, _ := m.Take(t0.Add(-time.Minute), b, l)
		if want := (Decision{State: State{Limit: 1, Reset: 61 * time.Second, RetryAfter: 61 * time.Second}}); d != want {
			t.Fatalf("got %+v, want %+v", d, want)
		}
		if d, _ := m.Take(t0.Add(time.Second), b, l); !d.Allowed {
			t.Fatalf("refused once the token is back: %+v", d)
		}
	})
}

// TestMemory_Take_concurrent: 1,000 goroutines on one fresh key at one
// instant get exactly the burst (run it with -race).
func TestMemory_Take_concurrent(t *testing.T) {
	m := NewMemory(Config{})
	bs := []Bucket{{Kind: KindKey, ID: "k"}, {Kind: KindOrg, ID: "o"}}
	ls := []Limit{{PerMinute: 60, Burst: 120}, {PerMinute: 600, Burst: 900}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed, refused := 0, 0
	for range 1000 {
		wg.Go(func() {
			d, err := m.Take(t0, bs, ls)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if d.Allowed {
				allowed++
			} else {
				refused++
			}
		})
	}
	wg.Wait()
	if allowed != 120 || refused != 880 {
		t.Fatalf("%d allowed, %d refused; want 120 and 880", allowed, refused)
	}
	if got := remainingOf(t, m, t0, bs[1], ls[1]); got != 900-120 {
		t.Fatalf("organisation holds %d, want %d", got, 900-120)
	}
}

func digest(i uint64) [32]byte {
	var d [32]byte
	binary.BigEndian.PutUint64(d[:8], i)
	d[31] = 0xA5
	return d
}

// TestMemory_flood sends a million distinct bad secrets at one instant:
// memory stays at the cap plus the overflow bucket, and once the cap is
// full the overflow bucket limits them all together.
func TestMemory_flood(t *testing.T) {
	const maxBuckets = 1000
	const n = 1_000_000
	m := NewMemory(Config{MaxBuckets: maxBuckets})
	l := []Limit{{PerMinute: 5, Burst: 5}}
	allowed := 0
	for i := range uint64(n) {
		d := digest(i)
		dec, err := m.Take(t0, []Bucket{{Kind: KindInvalid, ID: string(d[:])}}, l)
		if err != nil {
			t.Fatal(err)
		}
		if dec.Allowed {
			allowed++
		}
		if i < maxBuckets+5 && !dec.Allowed {
			t.Fatalf("secret %d refused: each of the first %d has a bucket, then the overflow bucket holds 5", i, maxBuckets)
		}
		if i%100_000 == 0 && m.Len() > maxBuckets+1 {
			t.Fatalf("after %d secrets Len = %d, want at most %d", i+1, m.Len(), maxBuckets+1)
		}
	}
	if allowed != maxBuckets+5 {
		t.Fatalf("%d allowed, want %d (the cap, then the overflow bucket's burst)", allowed, maxBuckets+5)
	}
	if got := m.Len(); got != maxBuckets+1 {
		t.Fatalf("Len = %d, want %d", got, maxBuckets+1)
	}
	// Each early secret still has its own bucket: 4 tokens left.
	d := digest(7)
	if got := remainingOf(t, m, t0, Bucket{Kind: KindInvalid, ID: string(d[:])}, l[0]); got != 4 {
		t.Fatalf("an early secret holds %d tokens, want 4", got)
	}
	// A minute later every bucket is full again: full buckets make room
	// for new secrets, which get buckets of their own.
	later := t0.Add(time.Minute)
	for i := range uint64(100) {
		d := digest(n + i)
		dec, _ := m.Take(later, []Bucket{{Kind: KindInvalid, ID: string(d[:])}}, l)
		if !dec.Allowed || dec.State.Remaining != 4 {
			t.Fatalf("new secret %d a minute later: %+v, want its own fresh bucket", i, dec)
		}
	}
	if got := m.Len(); got > maxBuckets+1 {
		t.Fatalf("Len = %d, want at most %d", got, maxBuckets+1)
	}
}

func TestMemory_overflowShared(t *testing.T) {
	m := NewMemory(Config{MaxBuckets: 2})
	l := Limit{PerMinute: 60, Burst: 3}
	take := func(id string) Decision {
		d, err := m.Take(t0, []Bucket{{Kind: KindKey, ID: id}}, []Limit{l})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	take("a")
	take("b")
	// The cap is reached and a and b are not full: c and d share the
	// overflow bucket of 3 tokens.
	got := []int{take("c").State.Remaining, take("d").State.Remaining, take("c").State.Remaining}
	if got[0] != 2 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("overflow remaining %v, want [2 1 0]", got)
	}
	if d := take("e"); d.Allowed {
		t.Fatalf("overflow bucket empty yet allowed: %+v", d)
	}
	// a and b keep their own buckets; other kinds have their own cap.
	if d := take("a"); !d.Allowed || d.State.Remaining != 1 {
		t.Fatalf("a: %+v, want its own bucket with 1 left", d)
	}
	if d, _ := m.Take(t0, []Bucket{{Kind: KindOrg, ID: "c"}}, []Limit{l}); d.State.Remaining != 2 {
		t.Fatalf("an org bucket %+v, want a bucket of its own", d)
	}
	if got := m.Len(); got != 4 {
		t.Fatalf("Len = %d, want 4 (a, b, overflow, one org)", got)
	}
}

func TestMemory_sweep(t *testing.T) {
	const idle = 10 * time.Minute
	l := Limit{PerMinute: 60, Burst: 2} // full again 1s after one request
	tests := []struct {
		name    string
		at      time.Duration // when the later takes happen
		wantLen int
	}{
		{"full but not idle long enough: kept", time.Second + idle - time.Nanosecond, 51},
		{"full for IdleAfter: dropped", time.Second + idle, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemory(Config{IdleAfter: idle})
			for i := range 50 {
				m.Take(t0, []Bucket{{Kind: KindInvalid, ID: strconv.Itoa(i)}}, []Limit{l})
			}
			if m.Len() != 50 {
				t.Fatalf("Len = %d, want 50", m.Len())
			}
			// Any traffic sweeps: here one other key, enough times to walk
			// the table twice.
			for range 50 {
				m.Take(t0.Add(tt.at), []Bucket{{Kind: KindKey, ID: "busy"}}, []Limit{{PerMinute: 6e10, Burst: 1}})
			}
			if got := m.Len(); got != tt.wantLen {
				t.Fatalf("Len = %d, want %d", got, tt.wantLen)
			}
		})
	}
	t.Run("overflow bucket dropped when idle", func(t *testing.T) {
		m := NewMemory(Config{MaxBuckets: 1, IdleAfter: idle})
		m.Take(t0, []Bucket{{Kind: KindInvalid, ID: "a"}}, []Limit{l})
		m.Take(t0, []Bucket{{Kind: KindInvalid, ID: "b"}}, []Limit{l}) // overflow
		if m.Len() != 2 {
			t.Fatalf("Len = %d, want 2", m.Len())
		}
		m.Take(t0.Add(time.Second+idle), []Bucket{{Kind: KindKey, ID: "busy"}}, []Limit{l})
		if m.Len() != 1 {
			t.Fatalf("Len = %d, want 1 (busy)", m.Len())
		}
	})
	t.Run("table rebuilt smaller after a flood", func(t *testing.T) {
		m := NewMemory(Config{IdleAfter: idle})
		for i := range 5000 {
			m.Take(t0, []Bucket{{Kind: KindInvalid, ID: strconv.Itoa(i)}}, []Limit{l})
		}
		for range 3000 {
			m.Take(t0.Add(time.Hour), []Bucket{{Kind: KindKey, ID: "busy"}}, []Limit{l})
		}
		// Rebuilt once when down to an eighth of the peak of 5,000 (625),
		// never again below shrinkMin.
		tb := &m.tables[KindInvalid]
		if len(tb.entries) != 0 || len(tb.index) != 0 || tb.peak > 625 || cap(tb.entries) > 2*625 {
			t.Fatalf("after the sweep: %d entries, index %d, peak %d, capacity %d; want 0, 0, <= 625, <= 1250",
				len(tb.entries), len(tb.index), tb.peak, cap(tb.entries))
		}
	})
}

// TestMemory_evictAtCap: at the cap, full buckets make room at once,
// however recently used, so new buckets do not overflow needlessly.
func TestMemory_evictAtCap(t *testing.T) {
	m := NewMemory(Config{MaxBuckets: 3, IdleAfter: time.Hour})
	l := Limit{PerMinute: 60, Burst: 2}
	for _, id := range []string{"a", "b", "c"} {
		m.Take(t0, []Bucket{{Kind: KindKey, ID: id}}, []Limit{l})
	}
	// At t0+1s a, b and c are full again; d and e take the room of two.
	for _, id := range []string{"d", "e"} {
		d, _ := m.Take(t0.Add(time.Second), []Bucket{{Kind: KindKey, ID: id}}, []Limit{l})
		if !d.Allowed || d.State.Remaining != 1 {
			t.Fatalf("%s: %+v, want a bucket of its own", id, d)
		}
	}
	tb := &m.tables[KindKey]
	if tb.overflowUsed || len(tb.entries) != 3 {
		t.Fatalf("%d entries, overflow used %v; want 3, false", len(tb.entries), tb.overflowUsed)
	}
	// The buckets of the take in progress are never the ones dropped:
	// the held, full bucket of a take keeps its place, and the new one
	// of the same take gets the other room.
	m2 := NewMemory(Config{MaxBuckets: 2, IdleAfter: time.Hour})
	m2.Take(t0, []Bucket{{Kind: KindKey, ID: "x"}}, []Limit{l})
	m2.Take(t0, []Bucket{{Kind: KindKey, ID: "y"}}, []Limit{l})
	d, _ := m2.Take(t0.Add(time.Second), []Bucket{{Kind: KindKey, ID: "x"}, {Kind: KindKey, ID: "z"}}, []Limit{l, l})
	tb = &m2.tables[KindKey]
	_, hasX := tb.index["x"]
	_, hasZ := tb.index["z"]
	if !d.Allowed || !hasX || !hasZ || tb.overflowUsed {
		t.Fatalf("got %+v, x held %v, z held %v, overflow %v; want x and z in their own buckets", d, hasX, hasZ, tb.overflowUsed)
	}
}

func TestMemory_zeroValue(t *testing.T) {
	var m Memory
	d, err := m.Take(t0, []Bucket{{Kind: KindOrg, ID: "o"}}, []Limit{{PerMinute: 60, Burst: 2}})
	if err != nil || d != (Decision{Allowed: true, State: State{Limit: 2, Remaining: 1, Reset: time.Second}}) {
		t.Fatalf("got %+v, %v", d, err)
	}
	if m.maxPer != DefaultMaxBuckets || m.idle != int64(DefaultIdleAfter) || m.Len() != 1 {
		t.Fatalf("bounds %d, %v, Len %d; want the defaults and 1", m.maxPer, time.Duration(m.idle), m.Len())
	}
}

func TestInterval(t *testing.T) {
	tests := []struct {
		perMinute float64
		want      int64
	}{
		{60, 1e9},
		{600, 1e8},
		{20, 3e9},
		{5, 12e9},
		{7, 8571428571},
		{6e10, 1},
		{1e12, 1},
		{math.Inf(1), 1},
		{0, int64(MaxInterval)},
		{-1, int64(MaxInterval)},
		{math.NaN(), int64(MaxInterval)},
		{1e-12, int64(MaxInterval)},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatFloat(tt.perMinute, 'g', -1, 64), func(t *testing.T) {
			if got := Interval(tt.perMinute); got != tt.want {
				t.Fatalf("Interval(%g) = %d, want %d", tt.perMinute, got, tt.want)
			}
		})
	}
}

func TestSaturating(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{"add", satAdd(2, 3), 5},
		{"add over", satAdd(maxI-1, 2), maxI},
		{"add under", satAdd(minI+1, -2), minI},
		{"sub", satSub(2, 3), -1},
		{"sub over", satSub(maxI, -1), maxI},
		{"sub under", satSub(minI, 1), minI},
		{"mul", satMul(6, 7), 42},
		{"mul zero", satMul(0, maxI), 0},
		{"mul over", satMul(1<<32, 1<<32), maxI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
}

// FuzzMemoryTake drives one bucket with a fuzzed limit and clock and checks
// it against a reference model that counts tokens (in nanoseconds of
// refill) instead of keeping the instant the bucket is full.
func FuzzMemoryTake(f *testing.F) {
	// The spec's key bucket, requests a second apart then at one instant.
	f.Add(60.0, 120, []byte{16, 16, 0, 0, 0, 0})
	// 7 a minute (an interval that is not whole milliseconds), retry
	// steps (high bit: wait exactly the last RetryAfter).
	f.Add(7.0, 2, []byte{0, 0, 0, 0x80, 0, 0x80, 3})
	// Burst 1, fast refill.
	f.Add(600.0, 1, []byte{1, 2, 3, 0x80, 0x80, 0x7f})
	// A rate that is not valid: NaN refills practically never.
	f.Add(math.NaN(), 3, []byte{0, 0, 0, 0, 0x7f})
	// Switched off.
	f.Add(60.0, 0, []byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, perMinute float64, burst int, steps []byte) {
		m := NewMemory(Config{})
		b := []Bucket{{Kind: KindKey, ID: "k"}}
		ls := []Limit{{PerMinute: perMinute, Burst: burst}}
		if burst > 1000 {
			burst = 1000 // so that burst*interval fits an int64 in the model
			ls[0].Burst = burst
		}
		iv := Interval(perMinute)
		level := int64(max(burst, 0)) * iv // the model: nanoseconds of refill held
		var lastRetry time.Duration
		now := t0
		var elapsed time.Duration
		for i, s := range steps {
			var dt time.Duration
			if s&0x80 != 0 {
				dt = lastRetry
			} else {
				dt = time.Duration(satMul(int64(s), max(iv/16, 1)))
			}
			if elapsed+dt > 100*365*24*time.Hour {
				break // well inside the range of time.Time.Sub
			}
			now, elapsed = now.Add(dt), elapsed+dt
			d, err := m.Take(now, b, ls)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if burst <= 0 {
				if d != (Decision{Allowed: true}) {
					t.Fatalf("switched off: %+v", d)
				}
				continue
			}
			level = min(level+int64(dt), int64(burst)*iv)
			var want Decision
			if level >= iv {
				level -= iv
				want = Decision{Allowed: true, State: State{
					Limit: burst, Remaining: int(level / iv), Reset: time.Duration(int64(burst)*iv - level)}}
			} else {
				want = Decision{State: State{
					Limit: burst, Remaining: 0, Reset: time.Duration(int64(burst)*iv - level), RetryAfter: time.Duration(iv - level)}}
			}
			if d != want {
				t.Fatalf("step %d (after %v, interval %v):\n got %+v\nwant %+v", i, elapsed, time.Duration(iv), d, want)
			}
			if s&0x80 != 0 && lastRetry > 0 && !d.Allowed {
				t.Fatalf("step %d: refused after waiting RetryAfter %v", i, lastRetry)
			}
			lastRetry = d.State.RetryAfter
		}
	})
}
