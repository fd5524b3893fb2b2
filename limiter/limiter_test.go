package limiter

import (
	"errors"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for Limiter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// failingStore is a Store that cannot be reached.
type failingStore struct {
	err   error
	calls int
}

func (s *failingStore) Take(time.Time, []Bucket, []Limit) (Decision, error) {
	s.calls++
	return Decision{Allowed: true, State: State{Limit: 1}}, s.err
}

// otherStore is a Store that is not a *Memory (so Limiter calls it through
// the interface), backed by one.
type otherStore struct{ m *Memory }

func (s otherStore) Take(now time.Time, bs []Bucket, ls []Limit) (Decision, error) {
	return s.m.Take(now, bs, ls)
}

func TestDefaultConfig(t *testing.T) {
	want := Config{
		Key:        Limit{PerMinute: 60, Burst: 120},
		Org:        Limit{PerMinute: 600, Burst: 900},
		Insight:    Limit{PerMinute: 20, Burst: 30},
		Invalid:    Limit{PerMinute: 5, Burst: 5},
		MaxBuckets: 100_000,
		IdleAfter:  10 * time.Minute,
	}
	if got := DefaultConfig(); got != want {
		t.Fatalf("DefaultConfig() = %+v\nwant %+v", got, want)
	}
	if err := want.Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
}

func TestConfig_Validate(t *testing.T) {
	with := func(f func(*Config)) Config {
		c := DefaultConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"defaults", DefaultConfig(), ""},
		{"zero memory bounds mean defaults", with(func(c *Config) { c.MaxBuckets, c.IdleAfter = 0, 0 }), ""},
		{"switched off, rate ignored", with(func(c *Config) { c.Key = Limit{PerMinute: -1, Burst: 0} }), ""},
		{"negative burst switches off", with(func(c *Config) { c.Insight = Limit{Burst: -3} }), ""},
		{"fastest rate", with(func(c *Config) { c.Org.PerMinute = 6e10 }), ""},
		{"slowest rate", with(func(c *Config) { c.Org.PerMinute = 7e-6 }), ""},
		{"zero rate", with(func(c *Config) { c.Key.PerMinute = 0 }),
			"limiter: key bucket: rate must be a positive number of requests a minute, got 0"},
		{"negative rate", with(func(c *Config) { c.Org.PerMinute = -60 }),
			"limiter: org bucket: rate must be a positive number of requests a minute, got -60"},
		{"NaN rate", with(func(c *Config) { c.Org.PerMinute = math.NaN() }),
			"limiter: org bucket: rate must be a positive number of requests a minute, got NaN"},
		{"rate too fast", with(func(c *Config) { c.Insight.PerMinute = 1e11 }),
			"limiter: insight bucket: rate must be at most 6e+10 a minute (one request a nanosecond), got 1e+11"},
		{"infinite rate", with(func(c *Config) { c.Insight.PerMinute = math.Inf(1) }),
			"limiter: insight bucket: rate must be at most 6e+10 a minute (one request a nanosecond), got +Inf"},
		{"rate too slow", with(func(c *Config) { c.Invalid.PerMinute = 1e-6 }),
			"limiter: invalid bucket: rate must be at least 6.66e-06 a minute (one request every 104 days), got 1e-06"},
		{"burst too big", with(func(c *Config) { c.Invalid.Burst = MaxBurst + 1 }),
			"limiter: invalid bucket: burst must be at most 1000000000, got 1000000001"},
		{"negative max buckets", with(func(c *Config) { c.MaxBuckets = -1 }),
			"limiter: max buckets must be 0 (default 100000) or more, got -1"},
		{"negative idle", with(func(c *Config) { c.IdleAfter = -time.Second }),
			"limiter: idle-after must be 0 (default 10m0s) or more, got -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Validate() = %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}

func TestKind_String(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{{KindKey, "key"}, {KindOrg, "org"}, {KindInsight, "insight"}, {KindInvalid, "invalid"}, {9, "Kind(9)"}}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.k.String(); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLimiter_Config(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxBuckets, cfg.IdleAfter = 0, 0
	if got := New(cfg, nil, nil).Config(); got != DefaultConfig() {
		t.Fatalf("Config() = %+v, want the defaults filled in", got)
	}
	cfg.MaxBuckets, cfg.IdleAfter = 7, time.Second
	if got := New(cfg, nil, nil).Config(); got != cfg {
		t.Fatalf("Config() = %+v, want %+v", got, cfg)
	}
}

// stores returns the ways a Limiter can hold its buckets: a *Memory
// (called directly) and another Store (called through the interface).
func stores(cfg Config) []struct {
	name  string
	store Store
} {
	return []struct {
		name  string
		store Store
	}{
		{"memory", NewMemory(cfg)},
		{"other store", otherStore{NewMemory(cfg)}},
	}
}

// TestLimiter_Request_burst: 121 requests at one instant on a fresh key
// give exactly 120, and the Retry-After of the refusal works, to the
// nanosecond.
func TestLimiter_Request_burst(t *testing.T) {
	for _, s := range stores(DefaultConfig()) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			l := New(DefaultConfig(), s.store, clk.now)
			for i := range 120 {
				d, err := l.Request("key1", "org1", false)
				want := Decision{Allowed: true, State: State{Limit: 120, Remaining: 119 - i, Reset: time.Duration(i+1) * time.Second}}
				if err != nil || d != want {
					t.Fatalf("request %d: got %+v, %v\nwant %+v", i+1, d, err, want)
				}
			}
			d, err := l.Request("key1", "org1", false)
			want := Decision{State: State{Limit: 120, Remaining: 0, Reset: 120 * time.Second, RetryAfter: time.Second}}
			if err != nil || d != want {
				t.Fatalf("request 121: got %+v, %v\nwant %+v", d, err, want)
			}
			clk.advance(d.State.RetryAfter - time.Nanosecond)
			if d, _ := l.Request("key1", "org1", false); d.Allowed {
				t.Fatalf("allowed a nanosecond before Retry-After: %+v", d)
			}
			clk.advance(time.Nanosecond)
			d, err = l.Request("key1", "org1", false)
			want = Decision{Allowed: true, State: State{Limit: 120, Remaining: 0, Reset: 120 * time.Second}}
			if err != nil || d != want {
				t.Fatalf("after Retry-After: got %+v, %v\nwant %+v", d, err, want)
			}
		})
	}
}

// TestLimiter_Request_orgShared: two keys of one organisation share its
// bucket; a third organisation's key does not.
func TestLimiter_Request_orgShared(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Org = Limit{PerMinute: 60, Burst: 3}
	l := New(cfg, nil, newClock().now)
	steps := []struct {
		key, org string
		want     Decision
	}{
		// The organisation's bucket is the tighter: it is reported.
		{"k1", "o1", Decision{Allowed: true, State: State{Limit: 3, Remaining: 2, Reset: time.Second}}},
		{"k1", "o1", Decision{Allowed: true, State: State{Limit: 3, Remaining: 1, Reset: 2 * time.Second}}},
		{"k2", "o1", Decision{Allowed: true, State: State{Limit: 3, Remaining: 0, Reset: 3 * time.Second}}},
		{"k2", "o1", Decision{State: State{Limit: 3, Remaining: 0, Reset: 3 * time.Second, RetryAfter: time.Second}}},
		{"k1", "o1", Decision{State: State{Limit: 3, Remaining: 0, Reset: 3 * time.Second, RetryAfter: time.Second}}},
		{"k3", "o2", Decision{Allowed: true, State: State{Limit: 3, Remaining: 2, Reset: time.Second}}},
	}
	for i, s := range steps {
		d, err := l.Request(s.key, s.org, false)
		if err != nil || d != s.want {
			t.Fatalf("step %d (%s of %s): got %+v, %v\nwant %+v", i, s.key, s.org, d, err, s.want)
		}
	}
}

// TestLimiter_Request_neitherSpent: when either bucket is empty, the other
// keeps its tokens.
func TestLimiter_Request_neitherSpent(t *testing.T) {
	tests := []struct {
		name     string
		key, org Limit
		probe    Bucket // probed alone afterwards
		want     int    // tokens it holds
	}{
		{"key empty", Limit{PerMinute: 60, Burst: 2}, Limit{PerMinute: 60, Burst: 10}, Bucket{Kind: KindOrg, ID: "o"}, 8},
		{"organisation empty", Limit{PerMinute: 60, Burst: 10}, Limit{PerMinute: 60, Burst: 2}, Bucket{Kind: KindKey, ID: "k"}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Key, cfg.Org = tt.key, tt.org
			m := NewMemory(cfg)
			l := New(cfg, m, newClock().now)
			for range 2 {
				l.Request("k", "o", false)
			}
			for range 5 {
				if d, _ := l.Request("k", "o", false); d.Allowed {
					t.Fatalf("allowed with an empty bucket: %+v", d)
				}
			}
			lim := tt.key
			if tt.probe.Kind == KindOrg {
				lim = tt.org
			}
			if got := remainingOf(t, m, t0, tt.probe, lim); got != tt.want {
				t.Fatalf("%v holds %d tokens, want %d", tt.probe, got, tt.want)
			}
		})
	}
}

// TestLimiter_Request_insight: the insight bucket is spent in addition to
// the key's and the organisation's.
func TestLimiter_Request_insight(t *testing.T) {
	clk := newClock()
	l := New(DefaultConfig(), nil, clk.now)
	for i := range 30 {
		d, err := l.Request("k", "o", true)
		// The insight bucket (30) is closer to exhaustion than the key's (120).
		want := Decision{Allowed: true, State: State{Limit: 30, Remaining: 29 - i, Reset: time.Duration(i+1) * 3 * time.Second}}
		if err != nil || d != want {
			t.Fatalf("insight %d: got %+v, %v\nwant %+v", i+1, d, err, want)
		}
	}
	d, _ := l.Request("k", "o", true)
	if want := (Decision{State: State{Limit: 30, Remaining: 0, Reset: 90 * time.Second, RetryAfter: 3 * time.Second}}); d != want {
		t.Fatalf("insight 31: got %+v\nwant %+v", d, want)
	}
	// Other calls go on; the refused insight request spent nothing, the 30
	// allowed ones spent from the key's bucket too.
	d, _ = l.Request("k", "o", false)
	if want := (Decision{Allowed: true, State: State{Limit: 120, Remaining: 120 - 31, Reset: 31 * time.Second}}); d != want {
		t.Fatalf("data call: got %+v\nwant %+v", d, want)
	}
	// Another key of the organisation has its own insight bucket.
	if d, _ := l.Request("k2", "o", true); !d.Allowed || d.State.Remaining != 29 {
		t.Fatalf("another key's insight: %+v, want allowed with 29 left", d)
	}
	clk.advance(3 * time.Second)
	if d, _ := l.Request("k", "o", true); !d.Allowed {
		t.Fatalf("insight after its Retry-After: %+v", d)
	}
}

func TestLimiter_InvalidKey(t *testing.T) {
	for _, s := range stores(DefaultConfig()) {
		t.Run(s.name, func(t *testing.T) {
			clk := newClock()
			l := New(DefaultConfig(), s.store, clk.now)
			bad := digest(1)
			for i := range 5 {
				d, err := l.InvalidKey(bad)
				if err != nil || !d.Allowed || d.State.Remaining != 4-i || d.State.Limit != 5 {
					t.Fatalf("attempt %d: %+v, %v", i+1, d, err)
				}
				clk.advance(time.Second)
			}
			// The sixth within a minute: refused until the first token is
			// back, 12s after the first attempt.
			d, _ := l.InvalidKey(bad)
			if want := (Decision{State: State{Limit: 5, Remaining: 0, Reset: 55 * time.Second, RetryAfter: 7 * time.Second}}); d != want {
				t.Fatalf("attempt 6: got %+v\nwant %+v", d, want)
			}
			// Another secret has its own bucket.
			if d, _ := l.InvalidKey(digest(2)); !d.Allowed || d.State.Remaining != 4 {
				t.Fatalf("another secret: %+v", d)
			}
			clk.advance(d.State.RetryAfter)
			if d, _ := l.InvalidKey(bad); !d.Allowed {
				t.Fatalf("after Retry-After: %+v", d)
			}
		})
	}
}

func TestLimiter_switchedOff(t *testing.T) {
	off := Limit{PerMinute: 60, Burst: 0}
	tests := []struct {
		name    string
		cfg     func(*Config)
		insight bool
		want    Decision // the 200th request
	}{
		{"all off", func(c *Config) { c.Key, c.Org, c.Insight = off, off, off }, true, Decision{Allowed: true}},
		{"key off: the organisation's bucket alone", func(c *Config) { c.Key = off; c.Org = Limit{PerMinute: 60, Burst: 500} }, false,
			Decision{Allowed: true, State: State{Limit: 500, Remaining: 300, Reset: 200 * time.Second}}},
		{"insight off", func(c *Config) { c.Insight = off; c.Key = Limit{PerMinute: 60, Burst: 500} }, true,
			Decision{Allowed: true, State: State{Limit: 500, Remaining: 300, Reset: 200 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.cfg(&cfg)
			m := NewMemory(cfg)
			l := New(cfg, m, newClock().now)
			var d Decision
			for range 200 {
				d, _ = l.Request("k", "o", tt.insight)
			}
			if d != tt.want {
				t.Fatalf("got %+v\nwant %+v", d, tt.want)
			}
		})
	}
	t.Run("invalid-key bucket off", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Invalid = off
		fs := &failingStore{err: ErrUnavailable}
		l := New(cfg, fs, nil)
		for range 10 {
			if d, err := l.InvalidKey(digest(1)); err != nil || d != (Decision{Allowed: true}) {
				t.Fatalf("got %+v, %v; want allowed, no state, no error", d, err)
			}
		}
		if fs.calls != 0 {
			t.Fatalf("the store was asked %d times about a bucket that is off", fs.calls)
		}
	})
}

func TestLimiter_storeUnavailable(t *testing.T) {
	other := errors.New("dial tcp 10.0.0.5:6379: connection refused")
	tests := []struct {
		name    string
		err     error
		wantMsg string
	}{
		{"ErrUnavailable", ErrUnavailable, "rate limit store unavailable"},
		{"wrapping ErrUnavailable", errors.Join(ErrUnavailable, other), "rate limit store unavailable\n" + other.Error()},
		{"any other error", other, "rate limit store unavailable: " + other.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(DefaultConfig(), &failingStore{err: tt.err}, nil)
			for _, call := range []struct {
				name string
				f    func() (Decision, error)
			}{
				{"Request", func() (Decision, error) { return l.Request("k", "o", false) }},
				{"Request insight", func() (Decision, error) { return l.Request("k", "o", true) }},
				{"InvalidKey", func() (Decision, error) { return l.InvalidKey(digest(1)) }},
			} {
				d, err := call.f()
				if !errors.Is(err, ErrUnavailable) || err.Error() != tt.wantMsg {
					t.Fatalf("%s: error %v, want %q wrapping ErrUnavailable", call.name, err, tt.wantMsg)
				}
				if d != (Decision{}) {
					t.Fatalf("%s: decision %+v with an error, want the zero value (no headers)", call.name, d)
				}
			}
		})
	}
}

func TestLimiter_defaults(t *testing.T) {
	// No store, no clock: a Memory and time.Now.
	l := New(DefaultConfig(), nil, nil)
	if l.mem == nil {
		t.Fatal("a nil store did not become a Memory")
	}
	d, err := l.Request("k", "o", false)
	if err != nil || !d.Allowed || d.State.Remaining != 119 {
		t.Fatalf("got %+v, %v", d, err)
	}
	// A typed nil *Memory is taken as a nil store, not called.
	var none *Memory
	l = New(DefaultConfig(), none, nil)
	if d, err := l.InvalidKey(digest(1)); err != nil || !d.Allowed || d.State.Remaining != 4 {
		t.Fatalf("with a nil *Memory: got %+v, %v", d, err)
	}
}

// TestLimiter_Request_concurrent: 1,000 goroutines on one fresh key at one
// fixed instant: exactly 120 allowed (run it with -race).
func TestLimiter_Request_concurrent(t *testing.T) {
	for _, s := range stores(DefaultConfig()) {
		t.Run(s.name, func(t *testing.T) {
			l := New(DefaultConfig(), s.store, func() time.Time { return t0 })
			var wg sync.WaitGroup
			var mu sync.Mutex
			allowed := 0
			for range 1000 {
				wg.Go(func() {
					d, err := l.Request("key", "org", false)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					defer mu.Unlock()
					if d.Allowed {
						allowed++
					}
				})
			}
			wg.Wait()
			if allowed != 120 {
				t.Fatalf("%d allowed, want 120", allowed)
			}
		})
	}
}

// TestLimiter_allocs: the hot path does not allocate once the buckets
// exist.
func TestLimiter_allocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Key = Limit{PerMinute: 6e10, Burst: MaxBurst}
	cfg.Org = cfg.Key
	cfg.Insight = cfg.Key
	cfg.Invalid = cfg.Key
	l := New(cfg, nil, func() time.Time { return t0 })
	l.Request("key", "org", true)
	bad := digest(1)
	l.InvalidKey(bad)
	tests := []struct {
		name string
		f    func()
	}{
		{"Request", func() { l.Request("key", "org", false) }},
		{"Request insight", func() { l.Request("key", "org", true) }},
		{"InvalidKey", func() { l.InvalidKey(bad) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(100, tt.f); n != 0 {
				t.Fatalf("%v allocations a call, want 0", n)
			}
		})
	}
}

func BenchmarkRequest(b *testing.B) {
	// Limits wide enough that every request is allowed: the full path,
	// spend included.
	cfg := DefaultConfig()
	cfg.Key = Limit{PerMinute: 6e10, Burst: MaxBurst}
	cfg.Org = cfg.Key
	l := New(cfg, nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		if d, err := l.Request("key_0123456789", "org_0123", false); err != nil || !d.Allowed {
			b.Fatalf("%+v, %v", d, err)
		}
	}
}

func BenchmarkRequestRefused(b *testing.B) {
	// The spec's limits on one key: all but the first 120 refused.
	l := New(DefaultConfig(), nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		l.Request("key_0123456789", "org_0123", false)
	}
}

func BenchmarkRequestParallel(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Key = Limit{PerMinute: 6e10, Burst: MaxBurst}
	cfg.Org = cfg.Key
	l := New(cfg, nil, nil)
	keys := make([]string, 100)
	orgs := make([]string, 100)
	for i := range keys {
		keys[i] = "key_" + strconv.Itoa(i)
		orgs[i] = "org_" + strconv.Itoa(i%10)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Request(keys[i%100], orgs[i%100], i%10 == 0)
			i++
		}
	})
}

func BenchmarkInvalidKey(b *testing.B) {
	l := New(DefaultConfig(), nil, nil)
	bad := digest(1)
	b.ReportAllocs()
	for b.Loop() {
		l.InvalidKey(bad)
	}
}

// BenchmarkInvalidKeyFlood: every request a new secret, past the cap.
func BenchmarkInvalidKeyFlood(b *testing.B) {
	cfg := DefaultConfig()
	cfg.MaxBuckets = 10_000
	l := New(cfg, nil, nil)
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		l.InvalidKey(digest(i))
		i++
	}
}
