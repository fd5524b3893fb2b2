package handlers

import (
	"context"
	"testing"
	"time"

	"frameindex/narrate/ollamatest"
	"frameindex/state"
)

// TestServer_WordReport: a report's wording goes through the answer's
// path: kept when every number checks (the reservation committed),
// discarded and refunded when one does not, skipped when the allowance
// is spent.
func TestServer_WordReport(t *testing.T) {
	key := state.Key{ID: "k1", OrgID: "acme"}
	for _, tc := range []struct {
		name                string
		reply               string
		reserveErr          error
		kept                bool
		committed, refunded int
	}{
		{"kept", "## In brief\n\n- 12,345 people live in the 2 selected frames (2020).", nil, true, 1, 0},
		{"a wrong number", "## In brief\n\n- 13,500 people live in the 2 selected frames.", nil, false, 0, 1},
		{"allowance spent", "## In brief\n\n- 12,345 people.", state.ErrNoAllowance, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := ollamatest.NewServer()
			defer model.Close()
			model.SetReply(tc.reply)
			allow := &fakeAllowance{reserveErr: tc.reserveErr}
			s := wordingServer(t, model, allow, 5*time.Second)
			ins := fixedAnswer(engineCall{})
			ins.Format = "report"
			got := s.WordReport(context.Background(), key, ins)
			if (got != "") != tc.kept || len(allow.committed) != tc.committed || len(allow.refunded) != tc.refunded {
				t.Errorf("wording %q, committed %v, refunded %v", got, allow.committed, allow.refunded)
			}
			if tc.kept && got != tc.reply {
				t.Errorf("wording %q, want the model's %q", got, tc.reply)
			}
			if len(allow.reserved) > 0 && (allow.reserved[0].OrgID != "acme" || allow.reserved[0].RequestID == "") {
				t.Errorf("reserved %+v: want acme's, with a request id", allow.reserved[0])
			}
		})
	}
}
