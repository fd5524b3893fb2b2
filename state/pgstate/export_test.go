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
	var group []*chargeReq
	for _, c := range charges {
		sorted, err := state.CheckCharge("key_abc", c.RequestID, c.DS)
		if err != nil {
			panic(err)
		}
		group = append(group, &chargeReq{orgID: c.OrgID, keyID: "key_abc", requestID: c.RequestID, sorted: sorted, at: ts(at), done: make(chan struct{})})
	}
	s.applyCharges(group)
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
	var group []*chargeReq
	for _, c := range charges {
		sorted, err := state.CheckCharge("key_abc", c.RequestID, c.DS)
		if err != nil {
			panic(err)
		}
		group = append(group, &chargeReq{orgID: c.OrgID, keyID: "key_abc", requestID: c.RequestID, sorted: sorted, at: ts(at)})
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
