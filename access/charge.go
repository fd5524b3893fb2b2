package access

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"frameindex/state"
)

// FramesPerUnit is the number of frames one per-query price pays for: a
// per-query dataset costs its price for every started FramesPerUnit frames
// whose values a request reads (Price).
const FramesPerUnit = 100

// Price is the one price rule of a per-query dataset, whatever the door
// (data call, question call, OGC items and tiles, the console's Explore):
// perQueryPrice for every started FramesPerUnit frames whose values are
// read, so 1 to 100 frames cost perQueryPrice, 101 to 200 twice that. A
// merged tile counts the frames its cells summarise. Reading no frame
// costs nothing. The product saturates at math.MaxInt64 (a charge that
// large is then left out, never wrapped round to a small one).
func Price(perQueryPrice int64, frames int) int64 {
	if frames <= 0 || perQueryPrice <= 0 {
		return 0
	}
	units := int64((frames-1)/FramesPerUnit + 1)
	if perQueryPrice > math.MaxInt64/units {
		return math.MaxInt64
	}
	return perQueryPrice * units
}

// Ask is what Charge is asked to debit for per-query dataset d (its
// Price, the licence's per-query price) when a request reads frames of
// its frames: Price's amount, with the frame count for the ledger.
func Ask(d state.Dataset, frames int) state.DatasetPrice {
	return state.DatasetPrice{ID: d.ID, Price: Price(d.Price, frames), Frames: frames}
}

// PerQuery returns the per-query datasets that contributed and are neither
// charged nor left out yet, in ascending id order, with what each costs by
// Price for the frames it records something on: what the data call asks
// Charge to debit.
func (a *Answer) PerQuery() []state.DatasetPrice {
	return a.perQuery(func(string) bool { return true })
}

// UsedPerQuery is PerQuery restricted to the datasets among used (the
// question engine's Insight.Used); ids that are not readable are ignored.
func (a *Answer) UsedPerQuery(used []string) []state.DatasetPrice {
	return a.perQuery(func(id string) bool { return slices.Contains(used, id) })
}

func (a *Answer) perQuery(pick func(id string) bool) []state.DatasetPrice {
	var asks []state.DatasetPrice
	for i, st := range a.State {
		d := &a.Access[i].Dataset
		if a.Access[i].PerQuery && st.Contributed && !st.Charged && !st.LeftOut && pick(d.ID) {
			// A dataset that contributed without a requested frame's record
			// (a question's nearest feature, found beyond the selection)
			// counts one frame read.
			asks = append(asks, Ask(*d, max(st.Frames, 1)))
		}
	}
	return asks
}

// Charge debits asks (from PerQuery or UsedPerQuery) to key's organisation
// in one store transaction, recorded against requestID at now, and records
// the outcome: each dataset is then either charged or left out, and a
// left-out dataset is removed from every frame. It returns the left-out ids.
// On error nothing is recorded here (the store's transaction either
// happened whole or not at all); a store answer that names datasets it was
// not asked about, or leaves one unsettled, is ErrStore. A charge is never
// made once ctx is done: then the error is context.Cause(ctx).
func (a *Answer) Charge(ctx context.Context, store Store, key state.Key, requestID string, asks []state.DatasetPrice, now time.Time) (leftOut []string, err error) {
	leftOut, durable, err := a.StartCharge(ctx, store, key, requestID, asks, now)
	if err != nil {
		return nil, err
	}
	if err := durable(); err != nil {
		return nil, err
	}
	return leftOut, nil
}

// StartCharge is Charge that returns once the store has decided the
// charge, with durable, which returns once it is on disk
// (state.ChargeStarter; with another store Charge's own wait). a is
// settled already: the caller may write its answer meanwhile, and sends
// nothing of it before durable returns nil. An error from durable voids
// the charge: nothing was charged, and the answer must not be sent.
func (a *Answer) StartCharge(ctx context.Context, store Store, key state.Key, requestID string, asks []state.DatasetPrice, now time.Time) (leftOut []string, durable func() error, err error) {
	if ctx.Err() != nil {
		return nil, nil, context.Cause(ctx)
	}
	charged, leftOut, stored, err := state.StartCharge(store, key.OrgID, key.ID, requestID, asks, now)
	if err == nil {
		err = a.settle(asks, charged, leftOut)
		if err != nil {
			// The store broke its contract; its write still ends.
			stored()
		}
	}
	if err != nil {
		return nil, nil, chargeErr(asks, key, err)
	}
	return leftOut, func() error { return chargeErr(asks, key, stored()) }, nil
}

// chargeErr names what failed to be charged; nil stays nil and ErrStore
// (a store breaking its contract) says so alone.
func chargeErr(asks []state.DatasetPrice, key state.Key, err error) error {
	if err == nil || errors.Is(err, ErrStore) {
		return err
	}
	return fmt.Errorf("charging %d per-query datasets to organisation %s: %w", len(asks), key.OrgID, err)
}

// settle records Charge's answer: each dataset asked is either charged or
// left out, and nothing else is named. A left-out dataset is then removed
// from every frame.
func (a *Answer) settle(asks []state.DatasetPrice, charged, leftOut []string) error {
	asked := func(id string) bool {
		return slices.ContainsFunc(asks, func(p state.DatasetPrice) bool { return p.ID == id })
	}
	for _, id := range charged {
		i, ok := a.find(id)
		if !ok || !asked(id) || a.State[i].Charged {
			return storeError("Charge reported %q as charged, which was not asked for or was reported twice", id)
		}
		a.State[i].Charged = true
	}
	for _, id := range leftOut {
		i, ok := a.find(id)
		if !ok || !asked(id) || a.State[i].Charged || a.State[i].LeftOut {
			return storeError("Charge reported %q as left out, which was not asked for or was reported twice", id)
		}
		a.State[i].LeftOut = true
	}
	for _, p := range asks {
		i, _ := a.find(p.ID)
		if !a.State[i].Charged && !a.State[i].LeftOut {
			return storeError("Charge reported dataset %q neither charged nor left out", p.ID)
		}
	}
	if len(leftOut) == 0 {
		return nil
	}
	for fi := range a.Frames {
		f := &a.Frames[fi]
		f.Entries = slices.DeleteFunc(f.Entries, func(e Entry) bool { return a.State[e.Dataset].LeftOut })
	}
	return nil
}
