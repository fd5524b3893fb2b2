package bolt

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/state"
	bbolt "go.etcd.io/bbolt"
)

func BenchmarkKeyring_Lookup(b *testing.B) {
	for _, n := range []int{10, 1000} {
		s := MustOpenStore(b)
		if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
			b.Fatal(err)
		}
		var secret string
		for i := 0; i < n; i++ {
			_, sec, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
			if err != nil {
				b.Fatal(err)
			}
			secret = sec
		}
		kr, err := s.Keyring()
		if err != nil {
			b.Fatal(err)
		}
		now := testNow.Add(time.Hour)
		b.Run(fmt.Sprintf("keys=%d/valid", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kr.Lookup(secret, now); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("keys=%d/unknown", n), func(b *testing.B) {
			b.ReportAllocs()
			bad := secret[:len(secret)-1] + "x"
			for b.Loop() {
				if _, err := kr.Lookup(bad, now); err == nil {
					b.Fatal("unknown secret found")
				}
			}
		})
	}
}

// nationalRuns is a lattice of Nigeria's size: 1,155 rows of three runs,
// about 1.1 million cells.
func nationalRuns() []grid.Run {
	runs := make([]grid.Run, 0, 3*1155)
	for r := int32(0); r < 1155; r++ {
		row := 9400 + r
		runs = append(runs,
			grid.Run{Row: row, Col0: 21900, Col1: 22200},
			grid.Run{Row: row, Col0: 22210, Col1: 22500},
			grid.Run{Row: row, Col0: 22510, Col1: 22860},
		)
	}
	return runs
}

func BenchmarkStore_GridNationalLattice(b *testing.B) {
	s := MustOpenStore(b)
	runs := nationalRuns()
	info, err := s.PutLattice(runs, "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, got, _, err := s.Grid()
		if err != nil || len(got) != len(runs) {
			b.Fatalf("Grid: %d runs, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(info.Frames), "cells")
}

func BenchmarkStore_PutLatticeNational(b *testing.B) {
	s := MustOpenStore(b)
	runs := nationalRuns()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.PutLattice(runs, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStore_PutPolygons stores square frames, as an imported grid of
// the lattice would be; each iteration replaces the previous grid.
func BenchmarkStore_PutPolygons(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) {
			frames := squareFrames(n)
			s := mustOpenStoreOpts(b, filepath.Join(b.TempDir(), "frames.db"), Options{Create: true})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.PutPolygons(frames, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkStore_GridPolygons(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) {
			s := MustOpenStore(b)
			if _, err := s.PutPolygons(squareFrames(n), "bench"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, got, err := s.Grid(); err != nil || len(got) != n {
					b.Fatalf("Grid: %d frames, %v", len(got), err)
				}
			}
		})
	}
}

// BenchmarkStore_AddCredits times one grant: a write transaction that
// reads the balance, appends a ledger entry and rewrites the organisation,
// with its commit and fsync.
func BenchmarkStore_AddCredits(b *testing.B) {
	s := MustOpenStore(b)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.AddCredits("acme", 1, "bench", testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStore_Usage reads the usage of an organisation with a year of
// daily answer counters and charges on 6 datasets a month.
func BenchmarkStore_Usage(b *testing.B) {
	s := MustOpenStore(b)
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: state.PlanPro}); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := s.update(func(tx *bbolt.Tx) error {
		for d := range 365 {
			day := start.AddDate(0, 0, d)
			for _, name := range []string{state.AnswersCounter(state.MonthOf(day)), state.AnswersCounter(state.DayOf(day))} {
				if _, err := s.addCounter(tx, "acme", name, 3, 1); err != nil {
					return err
				}
			}
			for i := range 6 {
				if _, err := s.addCounter(tx, "acme", state.ChargesCounter(state.MonthOf(day), fmt.Sprintf("dataset-%d", i)), 2, 4); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		u, err := s.Usage("acme", now)
		if err != nil || len(u.Charges) != 6 || u.AnswersToday != 3 {
			b.Fatalf("Usage = %+v, %v", u, err)
		}
	}
}

// BenchmarkStore_Ledger reads the newest 20 entries of a ledger of 10,000.
func BenchmarkStore_Ledger(b *testing.B) {
	s := MustOpenStore(b)
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		b.Fatal(err)
	}
	err := s.update(func(tx *bbolt.Tx) error {
		for i := range 10_000 {
			e := state.LedgerEntry{Time: testNow, Kind: state.LedgerGrant, Credits: 1, Balance: int64(i + 1), Note: "bench"}
			if _, err := s.appendLedger(tx, "acme", e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if l, err := s.Ledger("acme", 20); err != nil || len(l) != 20 || l[19].Seq != 10_000 {
			b.Fatalf("Ledger: %d entries, %v", len(l), err)
		}
	}
}
