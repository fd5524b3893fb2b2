package bolt

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"frameindex/state"
)

// Writes gathered in one group read the balance and usage counters the
// writes before them left, although those are written into the
// transaction only once per group (pending.go): 40 charges of 3 credits
// against 100 charge 33 and leave 7 out; reservations past the trial
// allowance are paid from the one credit left and then refused. The
// fold, and a replay of the journal, write the same file.
func TestPending_OneGroupSeesItsOwnWrites(t *testing.T) {
	holdEpochs(t)
	setCommitTiming(t, time.Hour, 1000) // nothing commits until the callers wait
	s := keyedStore(t)
	arrived := s.ExpectCharge() // a charge "still coming" holds the group open
	var durables []func() error
	charged := 0
	ds := []state.DatasetPrice{{ID: "lights", Price: 3}}
	for i := range 40 {
		c, left, durable, err := s.StartCharge("acme", "key_abc", fmt.Sprint("c", i), ds, testNow)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) == 1 {
			charged++
		} else if len(left) != 1 {
			t.Fatalf("charge %d: charged %v, left out %v", i, c, left)
		}
		durables = append(durables, durable)
	}
	if charged != 33 {
		t.Errorf("%d charges of 3 against 100 credits, want 33", charged)
	}
	allowance := state.PlanAllowance["trial"]
	fromCredits, refused := 0, 0
	for i := range allowance + 3 {
		r, durable, err := s.StartReserveAnswer("acme", "key_abc", fmt.Sprint("a", i), 1, testNow)
		switch {
		case errors.Is(err, state.ErrNoAllowance):
			refused++
			continue
		case err != nil:
			t.Fatal(err)
		case i < allowance && r.Source != state.SourceAllowance:
			t.Fatalf("answer %d of an allowance of %d paid from %s", i+1, allowance, r.Source)
		case r.Source == state.SourceCredits:
			fromCredits++
		}
		durables = append(durables, durable)
	}
	if fromCredits != 1 || refused != 2 {
		t.Errorf("past the allowance: %d paid in credits, %d refused; want 1 and 2", fromCredits, refused)
	}
	if _, err := os.Stat(JournalPath(s.path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before anyone waited, a group was journaled (%v)", err)
	}
	arrived()
	for _, durable := range durables {
		if err := durable(); err != nil {
			t.Fatal(err)
		}
	}
	crashed := crashCopy(t, s) // the group in the journal, not yet folded
	u, err := s.Usage("acme", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if u.Credits != 0 || u.AnswersThisMonth != allowance+1 || len(u.Charges) != 1 || u.Charges[0].Requests != 33 || u.Charges[0].Credits != 99 {
		t.Errorf("usage %+v, want 0 credits, %d answers, 33 charges of 99 credits", u, allowance+1)
	}
	folded := dumpLedgerIn(t, s.view)
	r, err := Open(crashed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if replayed := dumpLedgerIn(t, r.view); replayed != folded {
		t.Errorf("the journal's replay wrote\n%s\nthe fold\n%s", replayed, folded)
	}
}
