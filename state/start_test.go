package state

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// meterOnly charges and reserves at once (as PostgreSQL's store does);
// early is a store that decides first (as the data file does).
type meterOnly struct{ err error }

func (m meterOnly) Charge(string, string, string, []DatasetPrice, time.Time) ([]string, []string, error) {
	return []string{"a"}, []string{"b"}, m.err
}

func (m meterOnly) ReserveAnswer(_, _, requestID string, _ int64, _ time.Time) (Reservation, error) {
	return Reservation{ID: 7, RequestID: requestID}, m.err
}

type early struct {
	meterOnly
	durable func() error
}

func (e early) StartCharge(string, string, string, []DatasetPrice, time.Time) ([]string, []string, func() error, error) {
	return []string{"c"}, nil, e.durable, nil
}

func (e early) StartReserveAnswer(_, _, requestID string, _ int64, _ time.Time) (Reservation, func() error, error) {
	return Reservation{ID: 9, RequestID: requestID}, e.durable, nil
}

// StartCharge and StartReserveAnswer use a store's own early answer when
// it has one, and otherwise its blocking call, whose durable has nothing
// left to wait for; an error of the blocking call comes with no durable.
func TestStartFallsBack(t *testing.T) {
	charged, leftOut, durable, err := StartCharge(meterOnly{}, "acme", "k", "r", nil, time.Time{})
	if err != nil || !slices.Equal(charged, []string{"a"}) || !slices.Equal(leftOut, []string{"b"}) || durable() != nil {
		t.Errorf("blocking charge: %v %v %v", charged, leftOut, err)
	}
	r, durable, err := StartReserveAnswer(meterOnly{}, "acme", "k", "r", 1, time.Time{})
	if err != nil || r.ID != 7 || durable() != nil {
		t.Errorf("blocking reservation: %+v %v", r, err)
	}
	boom := errors.New("database down")
	if _, _, durable, err := StartCharge(meterOnly{err: boom}, "acme", "k", "r", nil, time.Time{}); !errors.Is(err, boom) || durable != nil {
		t.Errorf("failed blocking charge: %v, durable %v", err, durable != nil)
	}
	if _, durable, err := StartReserveAnswer(meterOnly{err: boom}, "acme", "k", "r", 1, time.Time{}); !errors.Is(err, boom) || durable != nil {
		t.Errorf("failed blocking reservation: %v, durable %v", err, durable != nil)
	}
	synced := errors.New("sync failed")
	e := early{durable: func() error { return synced }}
	if charged, _, durable, err := StartCharge(e, "acme", "k", "r", nil, time.Time{}); err != nil || !slices.Equal(charged, []string{"c"}) || !errors.Is(durable(), synced) {
		t.Errorf("early charge: %v %v", charged, err)
	}
	if r, durable, err := StartReserveAnswer(e, "acme", "k", "r", 1, time.Time{}); err != nil || r.ID != 9 || !errors.Is(durable(), synced) {
		t.Errorf("early reservation: %+v %v", r, err)
	}
}
