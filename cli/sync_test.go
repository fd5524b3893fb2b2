package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/handlers"
	"frameindex/state"
)

// newNodeFile makes a data file with organisation acme and the datasets
// given as id -> import time (one record each).
func newNodeFile(t *testing.T, name string, datasets map[string]time.Time) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), name)
	s, err := bolt.Open(data, bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
		t.Fatal(err)
	}
	for id, at := range datasets {
		rec := bolt.FrameRecord{Frame: 7, Features: [][]byte{[]byte(`{"type":"Feature","geometry":null,"properties":{}}`)}}
		if _, err := s.ImportDataset(state.Dataset{ID: id, Owner: "acme"}, []bolt.FrameRecord{rec}, at); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func versionsOf(t *testing.T, data string) []handlers.DatasetVersion {
	t.Helper()
	s, err := bolt.Open(data, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := datasetVersions(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSyncCommand(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := newNodeFile(t, "a.db", map[string]time.Time{"population": t0.Add(time.Hour), "health": t0})
	b := newNodeFile(t, "b.db", map[string]time.Time{"population": t0, "roads": t0})
	snap := filepath.Join(t.TempDir(), "a-snapshot.db")
	if _, err := admin.Backup(context.Background(), a, snap, admin.BackupOptions{}); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		t.Helper()
		root := NewRootCommand(Assets{})
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append(args, "--data", b))
		err := root.Execute()
		return out.String(), err
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{"no snapshot", []string{"sync"}, nil, "--from is required"},
		{"missing snapshot", []string{"sync", "--from", snap + ".gone"}, nil, "snapshot"},
		{"dry run", []string{"sync", "--from", snap, "--dry-run"}, []string{
			"health: would be copied, new -> version 1 (1 frames, 1 features)",
			"population: would be copied, version 1 -> version 1",
			"roads: would be removed (version 1; not in the snapshot)",
			"dry run: nothing was changed"}, ""},
		{"sync", []string{"sync", "--from", snap}, []string{"health: copied", "population: copied", "roads: removed"}, ""},
		{"again", []string{"sync", "--from", snap}, []string{"nothing to sync"}, ""},
		{"json", []string{"sync", "--from", snap, "--json"}, []string{`"unchanged": [`, `"health"`}, ""},
		{"audited", []string{"audit"}, []string{"dataset.sync"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	got, _ := json.Marshal(versionsOf(t, b))
	want, _ := json.Marshal(versionsOf(t, a))
	if string(got) != string(want) {
		t.Errorf("after sync b holds %s, a %s", got, want)
	}
}
