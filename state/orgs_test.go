package state

import "testing"

// FuzzValidID: the hand-written check accepts exactly what IDRule does.
func FuzzValidID(f *testing.F) {
	for _, id := range []string{"acme", "a", "0-_", "-a", "_a", "A", "a b", "a\n", "", "population-2020", string(make([]byte, 64)), "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "é"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), idPattern.MatchString(id); got != want {
			t.Fatalf("ValidID(%q) = %v, IDRule says %v", id, got, want)
		}
	})
}
