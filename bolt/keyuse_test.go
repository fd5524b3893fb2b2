package bolt

import (
	"errors"
	"testing"
	"time"

	"frameindex/state"
)

func TestStore_KeyUses(t *testing.T) {
	s := MustOpenStore(t)
	u := state.NewKeyUses()
	if _, ok := u.Last("key_a"); ok {
		t.Fatal("unseen key has a last use")
	}
	if n, err := s.FlushKeyUses(u); n != 0 || err != nil {
		t.Fatalf("flush of nothing = %d, %v", n, err)
	}
	t1 := testNow.Truncate(time.Second)
	u.Seen("key_a", t1)
	u.Seen("key_a", t1.Add(-time.Hour)) // older: ignored
	u.Seen("key_b", t1.Add(2*time.Second))
	if got, _ := u.Last("key_a"); !got.Equal(t1) {
		t.Errorf("Last(key_a) = %v", got)
	}
	if n, err := s.FlushKeyUses(u); n != 2 || err != nil {
		t.Fatalf("first flush = %d, %v", n, err)
	}
	if n, err := s.FlushKeyUses(u); n != 0 || err != nil {
		t.Fatalf("second flush = %d, %v; want nothing to write", n, err)
	}
	u.Seen("key_a", t1.Add(time.Minute))
	if n, err := s.FlushKeyUses(u); n != 1 || err != nil {
		t.Fatalf("third flush = %d, %v", n, err)
	}
	// A second process's memory with an older time never rewinds the file.
	other := state.NewKeyUses()
	other.Seen("key_a", t1)
	if _, err := s.FlushKeyUses(other); err != nil {
		t.Fatal(err)
	}
	got, err := s.KeysLastUsed([]string{"key_a", "key_b", "key_c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["key_a"].Equal(t1.Add(time.Minute)) || !got["key_b"].Equal(t1.Add(2*time.Second)) {
		t.Errorf("KeysLastUsed = %v", got)
	}
}

func TestTrackedKeys(t *testing.T) {
	s := MustOpenStore(t)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	k, secret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	if err != nil {
		t.Fatal(err)
	}
	kr, err := s.Keyring()
	if err != nil {
		t.Fatal(err)
	}
	tk := &state.TrackedKeys{Keys: func() *state.Keyring { return kr }, Uses: state.NewKeyUses()}
	if _, err := tk.Lookup("svc_sk_nope", testNow); !errors.Is(err, state.ErrUnknownKey) {
		t.Errorf("unknown secret: %v", err)
	}
	if _, err := tk.Lookup(secret, testNow.Add(state.DefaultTTL)); !errors.Is(err, state.ErrExpiredKey) {
		t.Errorf("expired: %v", err)
	}
	if _, ok := tk.Uses.Last(k.ID); ok {
		t.Error("a failed lookup counted as a use")
	}
	if got, err := tk.Lookup(secret, testNow); err != nil || got.ID != k.ID {
		t.Fatalf("Lookup = %v, %v", got, err)
	}
	if last, ok := tk.Uses.Last(k.ID); !ok || !last.Equal(testNow.Truncate(time.Second)) {
		t.Errorf("last use %v, %v", last, ok)
	}
	tk.Keys = func() *state.Keyring { return nil }
	if _, err := tk.Lookup(secret, testNow); !errors.Is(err, state.ErrUnknownKey) {
		t.Errorf("nil keyring: %v", err)
	}
}

// BenchmarkKeyUsesSeen is the cost a request pays for the last-use record.
func BenchmarkKeyUsesSeen(b *testing.B) {
	u := state.NewKeyUses()
	ids := []string{"key_aaaaaaaaaaaa", "key_bbbbbbbbbbbb", "key_cccccccccccc"}
	now := testNow
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			u.Seen(ids[i%len(ids)], now)
			i++
		}
	})
}
