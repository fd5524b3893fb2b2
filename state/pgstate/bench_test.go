package pgstate_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"frameindex/state"
	"frameindex/state/pgstate/pgtest"
)

// BenchmarkCharge is one per-query charge (a row lock, a ledger entry, a
// usage counter, the balance) against a throwaway cluster on loopback;
// it reports the median and the 99th percentile of a charge.
func BenchmarkCharge(b *testing.B) {
	c := pgtest.Shared(b)
	s, _, _ := openPG(b, c)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 1<<40, "bench", time.Time{}); err != nil {
		b.Fatal(err)
	}
	ds := []state.DatasetPrice{{ID: "roads", Price: 1}}
	took := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if _, _, err := s.Charge("acme", "key_bench", fmt.Sprint("req-", i), ds, time.Time{}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkReadable is what every data call asks the shared state: the
// licences and prices of the key's organisation.
func BenchmarkReadable(b *testing.B) {
	c := pgtest.Shared(b)
	s, cat, _ := openPG(b, c)
	for _, id := range []string{"acme", "owner"} {
		if _, err := s.AddOrg(state.Org{ID: id}); err != nil {
			b.Fatal(err)
		}
	}
	cat.add(state.Dataset{ID: "roads", Name: "Roads", Owner: "owner", Price: 1})
	if _, err := s.GrantLicence("acme", "roads", state.LicencePerQuery, time.Time{}); err != nil {
		b.Fatal(err)
	}
	k := state.Key{OrgID: "acme"}
	b.ReportAllocs()
	for b.Loop() {
		if acc, err := s.Readable(k); err != nil || len(acc) != 1 {
			b.Fatal(acc, err)
		}
	}
}

// BenchmarkChargeParallel is charges from 16 goroutines at once: the
// committer applies those waiting together in one transaction.
func BenchmarkChargeParallel(b *testing.B) {
	c := pgtest.Shared(b)
	s, _, _ := openPG(b, c)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 1<<40, "bench", time.Time{}); err != nil {
		b.Fatal(err)
	}
	ds := []state.DatasetPrice{{ID: "roads", Price: 1}}
	var n atomic.Int64
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := s.Charge("acme", "key_bench", fmt.Sprint("req-", n.Add(1)), ds, time.Time{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkReserveAnswer is a worded-answer reservation, then its refund,
// each alone (one transaction of two round trips through the committer);
// it reports the median of each.
func BenchmarkReserveAnswer(b *testing.B) {
	c := pgtest.Shared(b)
	s, _, _ := openPG(b, c)
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: state.PlanScale}); err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	reserve := make([]time.Duration, 0, b.N)
	refund := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		// 500 answers a UTC day, under the ceiling.
		now := at.Add(time.Duration(i) * 24 * time.Hour / 500)
		start := time.Now()
		r, err := s.ReserveAnswer("acme", "key_bench", fmt.Sprint("req-", i), 1, now)
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := s.RefundAnswer(r, now); err != nil {
			b.Fatal(err)
		}
		reserve, refund = append(reserve, mid.Sub(start)), append(refund, time.Since(mid))
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		took []time.Duration
	}{{"reserve-median-ms", reserve}, {"refund-median-ms", refund}} {
		slices.Sort(m.took)
		b.ReportMetric(float64(m.took[len(m.took)/2].Microseconds())/1000, m.name)
	}
}
