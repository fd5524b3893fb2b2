package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"frameindex/limiter"
)

// t0 is the fixed instant tests with the caller's clock start from.
var t0 = time.Date(2025, 3, 1, 9, 0, 0, 123456789, time.UTC)

// testStore returns a Store on r with the caller's clock and a prefix of its
// own, and keys that outlive any test (so that expiry in real time does not
// drop buckets the test's simulated time still holds).
func testStore(t testing.TB, r *redisServer, prefix string) *Store {
	t.Helper()
	s, err := New(r.url(), Options{Prefix: prefix, CallerClock: true, Margin: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawClient is a plain client to inspect the server.
func rawClient(t testing.TB, r *redisServer) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestTake_steps(t *testing.T) {
	r := startRedis(t)
	const sec = time.Second
	const t7 = 8571428571 * time.Nanosecond // 60 s / 7, to the nanosecond
	type step struct {
		at           time.Duration
		allowed      bool
		remaining    int
		reset, retry time.Duration
	}
	tests := []struct {
		name  string
		limit limiter.Limit
		steps []step
	}{
		{"60 a minute, burst 3", limiter.Limit{PerMinute: 60, Burst: 3}, []step{
			{0, true, 2, 1 * sec, 0},
			{0, true, 1, 2 * sec, 0},
			{0, true, 0, 3 * sec, 0},
			{0, false, 0, 3 * sec, 1 * sec},
			{999 * time.Millisecond, false, 0, 2001 * time.Millisecond, time.Millisecond},
			{sec - time.Nanosecond, false, 0, 2*sec + time.Nanosecond, time.Nanosecond},
			{1 * sec, true, 0, 3 * sec, 0},
			{3500 * time.Millisecond, true, 1, 1500 * time.Millisecond, 0},
			{time.Hour, true, 2, 1 * sec, 0},
		}},
		{"7 a minute, burst 2: retry after is exact to the nanosecond", limiter.Limit{PerMinute: 7, Burst: 2}, []step{
			{0, true, 1, t7, 0},
			{0, true, 0, 2 * t7, 0},
			{0, false, 0, 2 * t7, t7},
			{t7 - time.Nanosecond, false, 0, t7 + time.Nanosecond, time.Nanosecond},
			{t7, true, 0, 2 * t7, 0},
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testStore(t, r, fmt.Sprintf("steps%d:", i))
			b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
			for j, st := range tc.steps {
				d, err := s.Take(t0.Add(st.at), b, []limiter.Limit{tc.limit})
				if err != nil {
					t.Fatalf("step %d: %v", j, err)
				}
				want := limiter.Decision{Allowed: st.allowed, State: limiter.State{Limit: tc.limit.Burst, Remaining: st.remaining, Reset: st.reset, RetryAfter: st.retry}}
				if d != want {
					t.Fatalf("step %d (at %v):\n got %+v\nwant %+v", j, st.at, d, want)
				}
			}
		})
	}
}

// takeGen makes random takes over several buckets and limits at explicit
// times (forwards mostly, sometimes back), for the property tests.
type takeGen struct {
	rng *rand.Rand
	now time.Time
	lim map[limiter.Bucket]limiter.Limit
}

var (
	genLimits = []limiter.Limit{
		{PerMinute: 60, Burst: 120},
		{PerMinute: 600, Burst: 900},
		{PerMinute: 20, Burst: 30},
		{PerMinute: 5, Burst: 5},
		{PerMinute: 7, Burst: 2},
		{PerMinute: 0.5, Burst: 10},
		{PerMinute: 1, Burst: 1},
		{PerMinute: 6e10, Burst: 1_000_000_000}, // one a nanosecond
		{PerMinute: 1e-9, Burst: 3},             // beyond MaxInterval: clamped
		{PerMinute: 3.3333, Burst: 4},
		{PerMinute: 100, Burst: 0}, // switched off
		{PerMinute: -1, Burst: 2},  // not positive: the slowest refill
	}
	genKinds = []limiter.Kind{limiter.KindKey, limiter.KindOrg, limiter.KindInsight, limiter.KindInvalid}
	genIDs   = []string{"", "a", "b", "\x00\xff raw digest"}
	genSteps = []time.Duration{0, 0, time.Nanosecond, time.Millisecond, 99 * time.Millisecond, time.Second, 7 * time.Second, time.Minute, -time.Millisecond, -time.Second}
)

func newTakeGen(seed uint64) *takeGen {
	return &takeGen{rng: rand.New(rand.NewPCG(seed, 15)), now: t0, lim: map[limiter.Bucket]limiter.Limit{}}
}

// next returns the next take: its time, buckets and limits. Each bucket
// keeps one limit, as in service; a few takes give a listed-twice bucket
// another (the first one counts).
func (g *takeGen) next() (time.Time, []limiter.Bucket, []limiter.Limit) {
	rng := g.rng
	g.now = g.now.Add(genSteps[rng.IntN(len(genSteps))])
	n := 1 + rng.IntN(3)
	bs := make([]limiter.Bucket, n)
	ls := make([]limiter.Limit, n)
	for j := range bs {
		b := limiter.Bucket{Kind: genKinds[rng.IntN(len(genKinds))], ID: genIDs[rng.IntN(len(genIDs))]}
		l, ok := g.lim[b]
		if !ok {
			l = genLimits[rng.IntN(len(genLimits))]
			g.lim[b] = l
		}
		if rng.IntN(20) == 0 {
			l = genLimits[rng.IntN(len(genLimits))]
		}
		bs[j], ls[j] = b, l
	}
	return g.now, bs, ls
}

// TestTake_sameAsMemory is the property: random takes over several buckets
// and limits, at explicit times (forwards mostly, sometimes back), give the
// same Decisions from Memory and from Redis.
func TestTake_sameAsMemory(t *testing.T) {
	r := startRedis(t)
	for seed := range uint64(12) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			g := newTakeGen(seed)
			s := testStore(t, r, fmt.Sprintf("prop%d:", seed))
			m := limiter.NewMemory(limiter.Config{IdleAfter: 1000 * time.Hour})
			var allowed, refused int
			for i := range 1000 {
				now, bs, ls := g.next()
				want, err := m.Take(now, bs, ls)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Take(now, bs, ls)
				if err != nil {
					t.Fatalf("take %d: %v", i, err)
				}
				if got != want {
					t.Fatalf("take %d at %v of %v %v:\nredis  %+v\nmemory %+v", i, now.Sub(t0), bs, ls, got, want)
				}
				if got.Allowed {
					allowed++
				} else {
					refused++
				}
			}
			if allowed < 100 || refused < 100 {
				t.Fatalf("%d allowed and %d refused: the sequence does not exercise both", allowed, refused)
			}
		})
	}
}

// TestSend_batches is the property for batches: random takes sent in
// batches of 1 to 40 (one script call each, in order) give the same
// Decisions as Memory taking them one by one, and leave every bucket's key
// with the value and expiry that lone takes leave.
func TestSend_batches(t *testing.T) {
	r := startRedis(t)
	c := rawClient(t, r)
	ctx := context.Background()
	for seed := range uint64(6) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			g := newTakeGen(100 + seed)
			batched := testStore(t, r, fmt.Sprintf("batch%d:", seed))
			lone := testStore(t, r, fmt.Sprintf("lone%d:", seed))
			m := limiter.NewMemory(limiter.Config{IdleAfter: 1000 * time.Hour})
			var allowed, refused, takes int
			sd := newSender()
			for takes < 1000 {
				size := 1 + g.rng.IntN(40)
				batch := make([]*call, 0, size)
				slots := make([][]slot, 0, size)
				want := make([]limiter.Decision, 0, size)
				for range size {
					now, bs, ls := g.next()
					d, err := m.Take(now, bs, ls)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := lone.Take(now, bs, ls); err != nil {
						t.Fatal(err)
					}
					sl, err := slotsOf(new([maxTake]slot), bs, ls)
					if err != nil {
						t.Fatal(err)
					}
					if len(sl) == 0 {
						continue // nothing metered: never sent
					}
					batch = append(batch, batched.newCall(now, sl))
					slots = append(slots, sl)
					want = append(want, d)
				}
				batched.send(batch, sd)
				for i, cl := range batch {
					if cl.err != nil {
						t.Fatalf("take %d: %v", takes+i, cl.err)
					}
					got, err := batched.decision(slots[i], cl.reply)
					if err != nil {
						t.Fatalf("take %d: %v", takes+i, err)
					}
					if got != want[i] {
						t.Fatalf("take %d (%d of a batch of %d) over %+v:\nredis  %+v\nmemory %+v", takes+i, i, len(batch), slots[i], got, want[i])
					}
					if got.Allowed {
						allowed++
					} else {
						refused++
					}
				}
				takes += len(batch)
			}
			if allowed < 100 || refused < 100 {
				t.Fatalf("%d allowed and %d refused: the sequence does not exercise both", allowed, refused)
			}
			for b := range g.lim {
				kb, kl := Key(fmt.Sprintf("batch%d:", seed), b.Kind, b.ID), Key(fmt.Sprintf("lone%d:", seed), b.Kind, b.ID)
				vb, eb := c.Get(ctx, kb).Result()
				vl, el := c.Get(ctx, kl).Result()
				if vb != vl || (eb == nil) != (el == nil) {
					t.Fatalf("bucket %+v: batched %q %v, lone %q %v", b, vb, eb, vl, el)
				}
				if eb != nil {
					continue
				}
				// The same PX, set a little apart in real time.
				tb, tl := c.PTTL(ctx, kb).Val(), c.PTTL(ctx, kl).Val()
				if d := tb - tl; d < -5*time.Second || d > 5*time.Second {
					t.Fatalf("bucket %+v: expiry batched %v, lone %v", b, tb, tl)
				}
			}
		})
	}
}

func TestTake_allOrNothing(t *testing.T) {
	r := startRedis(t)
	s := testStore(t, r, "atomic:")
	c := rawClient(t, r)
	key := limiter.Bucket{Kind: limiter.KindKey, ID: "k"}
	org := limiter.Bucket{Kind: limiter.KindOrg, ID: "o"}
	both := []limiter.Bucket{key, org}
	ls := []limiter.Limit{{PerMinute: 1, Burst: 1}, {PerMinute: 1, Burst: 10}}
	if d, err := s.Take(t0, both, ls); err != nil || !d.Allowed {
		t.Fatalf("first take: %+v %v", d, err)
	}
	orgKey := Key("atomic:", limiter.KindOrg, "o")
	before, err := c.Get(context.Background(), orgKey).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		d, err := s.Take(t0, both, ls)
		if err != nil || d.Allowed || d.State.Limit != 1 || d.State.RetryAfter != time.Minute {
			t.Fatalf("take %d after the key's bucket is empty: %+v %v", i, d, err)
		}
	}
	if after, _ := c.Get(context.Background(), orgKey).Result(); after != before {
		t.Fatalf("refused takes changed the organisation's bucket: %q -> %q", before, after)
	}
	d, err := s.Take(t0, []limiter.Bucket{org}, ls[1:])
	if err != nil || !d.Allowed || d.State.Remaining != 8 {
		t.Fatalf("the organisation's bucket after refused takes: %+v %v (want 8 remaining)", d, err)
	}
}

func TestTake_keys(t *testing.T) {
	r := startRedis(t)
	c := rawClient(t, r)
	ctx := context.Background()
	t.Run("expiry is the time until full plus the margin", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			caller bool
		}{{"server clock", false}, {"caller clock", true}} {
			t.Run(tc.name, func(t *testing.T) {
				s, err := New(r.url(), Options{Prefix: "exp:" + tc.name + ":", CallerClock: tc.caller, Margin: 2 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				b := []limiter.Bucket{{Kind: limiter.KindInvalid, ID: "d"}}
				l := []limiter.Limit{{PerMinute: 60, Burst: 5}} // 1 s a token
				for range 3 {
					if _, err := s.Take(time.Now(), b, l); err != nil {
						t.Fatal(err)
					}
				}
				// Three tokens spent: full in 3 s (less the time the takes
				// took), plus 2 s.
				ttl, err := c.PTTL(ctx, Key("exp:"+tc.name+":", limiter.KindInvalid, "d")).Result()
				if err != nil {
					t.Fatal(err)
				}
				if ttl <= 2*time.Second || ttl > 5*time.Second {
					t.Fatalf("PTTL %v, want in (2 s, 5 s]", ttl)
				}
			})
		}
	})
	t.Run("names: prefix, kind, hashed id", func(t *testing.T) {
		s := testStore(t, r, "names:")
		digest := "\x01\x02secret digest bytes"
		if _, err := s.Take(t0, []limiter.Bucket{{Kind: limiter.KindInvalid, ID: digest}}, []limiter.Limit{{PerMinute: 5, Burst: 5}}); err != nil {
			t.Fatal(err)
		}
		keys, err := c.Keys(ctx, "names:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != 1 || keys[0] != Key("names:", limiter.KindInvalid, digest) ||
			!strings.HasPrefix(keys[0], "names:invalid:") || len(keys[0]) != len("names:invalid:")+32 || strings.Contains(keys[0], "secret") {
			t.Fatalf("keys %q", keys)
		}
		if Key("", limiter.KindKey, "x") != Key(DefaultPrefix, limiter.KindKey, "x") {
			t.Fatal("empty prefix is not the default")
		}
	})
	t.Run("a value in another form is a full bucket", func(t *testing.T) {
		s := testStore(t, r, "junk:")
		b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
		l := []limiter.Limit{{PerMinute: 60, Burst: 3}}
		for _, v := range []string{"", "junk", "1e3:0", "nan:0", "inf:0", "0x10:5", "1:1234567890", "1234567890123456:0", " 1:2", "1:2 ", "-:1"} {
			if err := c.Set(ctx, Key("junk:", limiter.KindKey, "k"), v, 0).Err(); err != nil {
				t.Fatal(err)
			}
			d, err := s.Take(t0, b, l)
			want := limiter.Decision{Allowed: true, State: limiter.State{Limit: 3, Remaining: 2, Reset: time.Second}}
			if err != nil || d != want {
				t.Fatalf("value %q: %+v %v, want %+v", v, d, err, want)
			}
		}
	})
}

func TestTake_badInput(t *testing.T) {
	s, err := New("redis://127.0.0.1:1/0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	one := []limiter.Bucket{{Kind: limiter.KindKey}}
	nine := make([]limiter.Bucket, 9)
	tests := []struct {
		name string
		bs   []limiter.Bucket
		ls   []limiter.Limit
		want string
	}{
		{"lengths differ", one, nil, "1 buckets but 0 limits"},
		{"too many", nine, make([]limiter.Limit, 9), "at most 8"},
		{"unknown kind", []limiter.Bucket{{Kind: 4}}, []limiter.Limit{{PerMinute: 1, Burst: 1}}, "unknown bucket kind 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Take(t0, tc.bs, tc.ls)
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, limiter.ErrUnavailable) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("nothing metered: no round trip", func(t *testing.T) {
		d, err := s.Take(t0, one, []limiter.Limit{{PerMinute: 60, Burst: 0}})
		if err != nil || d != (limiter.Decision{Allowed: true}) {
			t.Fatalf("%+v %v", d, err)
		}
	})
}

func TestNew_URLs(t *testing.T) {
	tests := []struct {
		url, err, redacted string
	}{
		{"redis://127.0.0.1:6379/0", "", "redis://127.0.0.1:6379/0"},
		{"redis://user:hunter2@cache:6380/2", "", "redis://user:xxxxx@cache:6380/2"},
		{"rediss://:hunter2@cache:6380", "", "rediss://:xxxxx@cache:6380"},
		{"unix:///run/redis.sock?db=1", "", "unix:///run/redis.sock?db=1"},
		{"http://cache:6379", "invalid URL scheme", "http://cache:6379"},
		{"redis://user:hunter2@cache:port/0", "invalid port", "redis://user:xxxxx@cache:port/0"},
		{"redis://cache:6379/notadb", "invalid database", "redis://cache:6379/notadb"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			s, err := New(tc.url, Options{})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if s.String() != tc.redacted {
					t.Fatalf("String %q, want %q", s.String(), tc.redacted)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error %v, want one with %q and no password", err, tc.err)
			}
		})
	}
	if got := Redact("redis://u:p@h/0"); got != "redis://u:xxxxx@h/0" {
		t.Fatalf("Redact: %q", got)
	}
}

// within fails the test when f has not returned after limit: a guard
// against hanging, far above the expected time (which is logged).
func within(t *testing.T, limit time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	start := time.Now()
	go func() { f(); close(done) }()
	select {
	case <-done:
		t.Logf("%s: %v", what, time.Since(start))
	case <-time.After(limit):
		t.Fatalf("%s: still waiting after %v", what, limit)
	}
}

func TestTake_unavailable(t *testing.T) {
	b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
	l := []limiter.Limit{{PerMinute: 60, Burst: 3}}
	t.Run("nothing listens", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		s, err := New("redis://"+addr+"/0", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i := range 3 { // the first dials; the others fail at once
			within(t, 10*time.Second, fmt.Sprintf("take %d", i), func() {
				if _, err := s.Take(t0, b, l); !errors.Is(err, limiter.ErrUnavailable) || !strings.Contains(err.Error(), addr) {
					t.Errorf("take %d: %v, want ErrUnavailable naming %s", i, err, addr)
				}
			})
		}
		if err := s.Ping(context.Background()); !errors.Is(err, limiter.ErrUnavailable) {
			t.Fatalf("Ping: %v", err)
		}
	})
	t.Run("a server that never answers", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		var mu sync.Mutex
		var conns []net.Conn
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c) // read nothing, answer nothing
				mu.Unlock()
			}
		}()
		defer func() {
			mu.Lock()
			for _, c := range conns {
				c.Close()
			}
			mu.Unlock()
		}()
		s, err := New("redis://"+ln.Addr().String()+"/0", Options{Timeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		within(t, 10*time.Second, "take against a silent server", func() {
			if _, err := s.Take(t0, b, l); !errors.Is(err, limiter.ErrUnavailable) {
				t.Errorf("got %v, want ErrUnavailable", err)
			}
		})
		// Many at once on a fresh store: those queued behind the first
		// failure are not sent, so they do not wait a timeout each.
		s2, err := New("redis://"+ln.Addr().String()+"/0", Options{Timeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		within(t, 10*time.Second, "200 concurrent takes against a silent server", func() {
			var wg sync.WaitGroup
			for i := range 200 {
				wg.Go(func() {
					time.Sleep(time.Duration(i) * time.Millisecond) // trickling in, as requests do
					if _, err := s2.Take(t0, b, l); !errors.Is(err, limiter.ErrUnavailable) {
						t.Errorf("got %v, want ErrUnavailable", err)
					}
				})
			}
			wg.Wait()
		})
	})
	t.Run("after Close", func(t *testing.T) {
		r := startRedis(t)
		s := testStore(t, r, "closed:")
		s.Close()
		if _, err := s.Take(t0, b, l); !errors.Is(err, limiter.ErrUnavailable) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestTake_recovers(t *testing.T) {
	r := startRedis(t)
	s, err := New(r.url(), Options{Prefix: "recover:", RetryWait: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
	l := []limiter.Limit{{PerMinute: 60, Burst: 100}}
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(time.Now(), b, l); err != nil {
		t.Fatal(err)
	}
	r.stop()
	for i := range 3 {
		if _, err := s.Take(time.Now(), b, l); !errors.Is(err, limiter.ErrUnavailable) {
			t.Fatalf("take %d with the server stopped: %v", i, err)
		}
	}
	r.start(t) // an empty server on the same port: every bucket full again
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := s.Take(time.Now(), b, l)
		if err == nil {
			if !d.Allowed || d.State.Limit != 100 || d.State.Remaining != 99 {
				t.Fatalf("first take after the restart: %+v", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still unavailable 10 s after the restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTake_scriptsFlushed: a server that lost its scripts (SCRIPT FLUSH,
// or a restart between takes) gets the script again, for lone takes and
// for batches.
func TestTake_scriptsFlushed(t *testing.T) {
	r := startRedis(t)
	s := testStore(t, r, "flush:")
	c := rawClient(t, r)
	b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
	l := []limiter.Limit{{PerMinute: 1e-3, Burst: 1000}}
	for round := range 3 {
		if err := c.ScriptFlush(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				if _, err := s.Take(t0, b, l); err != nil {
					t.Errorf("round %d: %v", round, err)
				}
			})
		}
		wg.Wait()
	}
	d, err := s.Take(t0, b, l)
	if err != nil || d.State.Remaining != 1000-301 {
		t.Fatalf("after 300 takes: %+v %v, want 699 remaining", d, err)
	}
}

// TestTake_concurrent: many goroutines and two stores (two nodes) on one
// bucket get exactly its burst.
func TestTake_concurrent(t *testing.T) {
	r := startRedis(t)
	nodes := []*Store{}
	for range 2 {
		s, err := New(r.url(), Options{Prefix: "conc:"})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		nodes = append(nodes, s)
	}
	b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}, {Kind: limiter.KindOrg, ID: "o"}}
	l := []limiter.Limit{{PerMinute: 1e-3, Burst: 50}, {PerMinute: 1e-3, Burst: 900}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := nodes[i%2].Take(time.Now(), b, l)
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 50 {
		t.Fatalf("%d allowed, want 50", allowed)
	}
}

func BenchmarkTake(b *testing.B) {
	r := startRedis(b)
	s, err := New(r.url(), Options{Prefix: "bench:"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	bs := []limiter.Bucket{{Kind: limiter.KindKey, ID: "key-1"}, {Kind: limiter.KindOrg, ID: "org-1"}}
	ls := []limiter.Limit{{PerMinute: 6e10, Burst: limiter.MaxBurst}, {PerMinute: 6e10, Burst: limiter.MaxBurst}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Take(time.Time{}, bs, ls); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTakeParallel(b *testing.B) {
	r := startRedis(b)
	s, err := New(r.url(), Options{Prefix: "benchp:"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	bs := []limiter.Bucket{{Kind: limiter.KindKey, ID: "key-1"}, {Kind: limiter.KindOrg, ID: "org-1"}}
	ls := []limiter.Limit{{PerMinute: 6e10, Burst: limiter.MaxBurst}, {PerMinute: 6e10, Burst: limiter.MaxBurst}}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Take(time.Time{}, bs, ls); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
