package console

import (
	"frameindex/state"

	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestServer_ThrottleHoldsUnderConcurrency: 150 wrong passwords for one
// account at once check at most acctFree of them; 150 at once for as
// many accounts from one address check at most addrFree; the rest are
// refused (429) before any password is hashed.
func TestServer_ThrottleHoldsUnderConcurrency(t *testing.T) {
	f := newFixture(t, false, Config{})
	burst := func(login func(i int) string) (checked, refused int) {
		c := f.client()
		tok := c.csrf("/console/signin")
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := 0; i < 150; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res, _ := c.post("/console/signin", url.Values{"csrf": {tok}, "login": {login(i)}, "password": {"wrong guess " + fmt.Sprint(i)}})
				mu.Lock()
				defer mu.Unlock()
				switch res.StatusCode {
				case http.StatusUnauthorized:
					checked++
				case http.StatusTooManyRequests:
					refused++
				default:
					t.Errorf("attempt %d: %d", i, res.StatusCode)
				}
			}(i)
		}
		wg.Wait()
		return checked, refused
	}
	checked, refused := burst(func(int) string { return "olu" })
	if checked > acctFree || checked+refused != 150 {
		t.Errorf("one account: %d passwords checked, %d refused; want at most %d checked", checked, refused, acctFree)
	}
	// The right password is refused while the account waits.
	if res, _ := f.client().signIn("olu@example.ng", passwords["olu"]); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("right password during the wait: %d", res.StatusCode)
	}
	f.clock.Add(2 * time.Hour)
	checked, refused = burst(func(i int) string { return fmt.Sprintf("nobody%d", i) })
	if checked > addrFree || checked+refused != 150 {
		t.Errorf("one address: %d passwords checked, %d refused; want at most %d checked", checked, refused, addrFree)
	}
	entries, _ := f.store.AuditLog("", 0)
	failed := 0
	for _, e := range entries {
		if e.Action == "signin" && e.Outcome == state.AuditRefused {
			failed++
		}
	}
	if failed > acctFree+addrFree {
		t.Errorf("%d failed sign-ins audited, want at most %d", failed, acctFree+addrFree)
	}
}

// TestThrottle_FullTable: a full table forgets what is forgotten, then
// evicts the least recent entry that is not waiting, and when every
// entry waits it refuses a newcomer instead of letting it through.
func TestThrottle_FullTable(t *testing.T) {
	th := newThrottle()
	th.max = 4
	now := fixtureStart
	// Two accounts from two addresses: four entries, none waiting.
	if th.begin("a", "10.0.0.1", now) != 0 || th.begin("b", "10.0.0.2", now.Add(time.Second)) != 0 {
		t.Fatal("first attempts refused")
	}
	// A fifth key evicts the least recent entry ("a" or 10.0.0.1).
	if w := th.begin("c", "10.0.0.2", now.Add(2*time.Second)); w != 0 {
		t.Fatalf("with room to evict: wait %v", w)
	}
	if len(th.entries) > th.max {
		t.Errorf("%d entries, max %d", len(th.entries), th.max)
	}
	// Fill the table with waiting entries only.
	th = newThrottle()
	th.max = 4
	for _, k := range []string{"a:x", "a:y", "i:10.0.0.8", "i:10.0.0.9"} {
		th.entries[k] = &failures{n: acctFree, last: now, until: now.Add(time.Hour)}
	}
	if w := th.begin("newcomer", "10.0.0.7", now); w != throttleBase {
		t.Errorf("full of waiting entries: wait %v, want %v", w, throttleBase)
	}
	// Once the waits and failures are forgotten the newcomer is let in.
	if w := th.begin("newcomer", "10.0.0.7", now.Add(2*throttleForget)); w != 0 {
		t.Errorf("after the table emptied: wait %v", w)
	}
}

// TestThrottle_IPv6By64: addresses of one IPv6 /64 share an allowance;
// an IPv4 address mapped into IPv6 is the IPv4 address.
func TestThrottle_IPv6By64(t *testing.T) {
	th := newThrottle()
	for i := 0; i < addrFree; i++ {
		if w := th.begin(fmt.Sprintf("u%d", i), fmt.Sprintf("2001:db8:1:2::%x", i+1), fixtureStart); w != 0 {
			t.Fatalf("attempt %d refused: %v", i, w)
		}
	}
	if w := th.begin("another", "2001:db8:1:2:ffff::1", fixtureStart); w == 0 {
		t.Error("a new host in the same /64 was not throttled")
	}
	if w := th.begin("another", "2001:db8:1:3::1", fixtureStart); w != 0 {
		t.Errorf("the next /64: wait %v", w)
	}
	if addrKey("::ffff:10.1.2.3") != addrKey("10.1.2.3") {
		t.Errorf("mapped IPv4 keyed %q", addrKey("::ffff:10.1.2.3"))
	}
}

// TestHashGate: slots bound the hashes at once; past the queue, refusal.
func TestHashGate(t *testing.T) {
	g := newHashGate(1, 1)
	ctx := t.Context()
	if !g.enter(ctx) {
		t.Fatal("first enter refused")
	}
	done := make(chan bool)
	go func() { done <- g.enter(ctx) }() // waits in the queue
	time.Sleep(50 * time.Millisecond)
	if g.enter(ctx) {
		t.Error("entered past a full queue")
	}
	g.leave()
	if !<-done {
		t.Error("the queued attempt never got the slot")
	}
	g.leave()
}
