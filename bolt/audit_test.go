package bolt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

func TestStore_Audit(t *testing.T) {
	s := MustOpenStore(t)
	if got, err := s.AuditLog("", 0); err != nil || len(got) != 0 {
		t.Fatalf("empty log = %v, %v", got, err)
	}
	entries := []state.AuditEntry{
		{Actor: "olu", Org: "acme", Action: "key.mint", Target: "key_a", Addr: "192.0.2.1", Outcome: state.AuditOK},
		{Actor: "operator", Org: "rival", Action: "org.add", Target: "rival", Addr: "command line", Outcome: state.AuditOK},
		{Actor: "ada", Org: "acme", Action: "key.mint", Detail: "line one\nline two\x00", Outcome: state.AuditRefused, Reason: "role member may not mint keys"},
		{Actor: "olu", Org: "acme", Action: "signin", Outcome: state.AuditOK, Detail: strings.Repeat("é", 400), Time: time.Date(2020, 1, 1, 1, 0, 0, 0, time.FixedZone("WAT", 3600))},
	}
	for i, e := range entries {
		got, err := s.AppendAudit(e)
		if err != nil {
			t.Fatal(err)
		}
		if got.Seq != uint64(i+1) {
			t.Errorf("entry %d numbered %d", i, got.Seq)
		}
	}
	tests := []struct {
		name  string
		org   string
		limit int
		want  []uint64
	}{
		{name: "all", want: []uint64{4, 3, 2, 1}},
		{name: "newest two", limit: 2, want: []uint64{4, 3}},
		{name: "one organisation", org: "acme", want: []uint64{4, 3, 1}},
		{name: "one organisation, limited", org: "acme", limit: 2, want: []uint64{4, 3}},
		{name: "other organisation", org: "rival", want: []uint64{2}},
		{name: "unknown organisation", org: "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.AuditLog(tt.org, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var seqs []uint64
			for _, e := range got {
				seqs = append(seqs, e.Seq)
			}
			if len(seqs) != len(tt.want) {
				t.Fatalf("entries %v, want %v", seqs, tt.want)
			}
			for i := range seqs {
				if seqs[i] != tt.want[i] {
					t.Fatalf("entries %v, want %v", seqs, tt.want)
				}
			}
		})
	}
	all, _ := s.AuditLog("", 0)
	if d := all[1].Detail; d != "line one line two " {
		t.Errorf("control characters kept: %q", d)
	}
	if d := all[0].Detail; len(d) > state.MaxAuditField+len("…") || !strings.HasSuffix(d, "…") {
		t.Errorf("long detail: %d bytes", len(d))
	}
	if !all[0].Time.Equal(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) || all[0].Time.Location() != time.UTC {
		t.Errorf("time %v", all[0].Time)
	}
	if !all[3].Time.Equal(testNow.Round(0)) {
		t.Errorf("default time %v", all[3].Time)
	}
	if _, err := s.AppendAudit(state.AuditEntry{Actor: "x", Action: "y"}); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("entry without an outcome: %v", err)
	}
}
