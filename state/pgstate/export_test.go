package pgstate

import (
	"time"

	"frameindex/state"
)

// ChargeArgs are one Charge's arguments, for ChargeGroup.
type ChargeArgs struct {
	OrgID, RequestID string
	DS               []state.DatasetPrice
}

// ChargeOutcome is what one charge of a group was answered.
type ChargeOutcome struct {
	Charged, LeftOut []string
	Err              error
}

// ChargeGroup applies charges as the committer does when they wait
// together: in one transaction, in the order given.
func (s *Store) ChargeGroup(charges []ChargeArgs, at time.Time) []ChargeOutcome {
	var group []*meterReq
	for _, c := range charges {
		sorted, err := state.CheckCharge("key_abc", c.RequestID, c.DS)
		if err != nil {
			panic(err)
		}
		group = append(group, &meterReq{orgID: c.OrgID, keyID: "key_abc", requestID: c.RequestID, sorted: sorted, at: ts(at), done: make(chan struct{})})
	}
	s.applyMeters(group)
	var out []ChargeOutcome
	for _, r := range group {
		<-r.done
		out = append(out, ChargeOutcome{r.charged, r.leftOut, r.err})
	}
	return out
}

// ChargeOneStatement tries charges as the committer's one statement does
// and says whether it applied them; nil outcomes when it did not.
func (s *Store) ChargeOneStatement(charges []ChargeArgs, at time.Time) (bool, []ChargeOutcome, error) {
	var group []*meterReq
	for _, c := range charges {
		sorted, err := state.CheckCharge("key_abc", c.RequestID, c.DS)
		if err != nil {
			panic(err)
		}
		group = append(group, &meterReq{orgID: c.OrgID, keyID: "key_abc", requestID: c.RequestID, sorted: sorted, at: ts(at)})
	}
	ctx, cancel := s.ctx()
	defer cancel()
	applied, err := s.chargeOneStatement(ctx, group)
	if !applied {
		return applied, nil, err
	}
	var out []ChargeOutcome
	for _, r := range group {
		out = append(out, ChargeOutcome{r.charged, r.leftOut, r.err})
	}
	return applied, out, err
}

// MeterArgs is one request of MeterGroup: Kind "charge" (DS), "reserve"
// (Cost) or "refund" (Rsv).
type MeterArgs struct {
	Kind, OrgID, RequestID string
	DS                     []state.DatasetPrice
	Cost                   int64
	Rsv                    state.Reservation
}

// MeterOutcome is what one request of a group was answered.
type MeterOutcome struct {
	Charged, LeftOut []string
	Rsv              state.Reservation
	Err              error
}

// MeterGroup applies reqs as the committer does when they wait together:
// in one transaction, in the order given.
func (s *Store) MeterGroup(reqs []MeterArgs, at time.Time) []MeterOutcome {
	var group []*meterReq
	for _, a := range reqs {
		r := &meterReq{orgID: a.OrgID, keyID: "key_abc", requestID: a.RequestID, at: ts(at), done: make(chan struct{})}
		switch a.Kind {
		case "charge":
			sorted, err := state.CheckCharge("key_abc", a.RequestID, a.DS)
			if err != nil {
				panic(err)
			}
			r.sorted = sorted
		case "reserve":
			r.kind, r.cost = opReserve, a.Cost
		case "refund":
			r.kind, r.rsv = opRefund, a.Rsv
		}
		group = append(group, r)
	}
	s.applyMeters(group)
	var out []MeterOutcome
	for _, r := range group {
		<-r.done
		o := MeterOutcome{r.charged, r.leftOut, r.rsv, r.err}
		if r.kind == opRefund {
			o.Rsv = state.Reservation{} // the one passed
		}
		out = append(out, o)
	}
	return out
}
