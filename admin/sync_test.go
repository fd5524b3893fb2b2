package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/state"
)

// TestDatasetSync runs dataset.sync through the admin socket, as `frameindex
// sync` does while a server runs: the server is told its datasets changed
// only when they did, and bad arguments keep their kind.
func TestDatasetSync(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	other, _ := openStore(t)
	for _, s := range []*bolt.Store{other} {
		if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
			t.Fatal(err)
		}
	}
	rec := bolt.FrameRecord{Frame: 7, Features: [][]byte{[]byte(`{"type":"Feature","geometry":null,"properties":{}}`)}}
	if _, err := other.ImportDataset(state.Dataset{ID: "roads", Owner: "acme"}, []bolt.FrameRecord{rec}, now); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snapshot.db")
	f, err := os.Create(snap)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Snapshot(context.Background(), f, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()

	s, path := openStore(t)
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
		t.Fatal(err)
	}
	changes := make(chan Change, 8)
	ops := &Ops{Store: s, Changed: func(c Change) { changes <- c }}
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, ops, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })

	tests := []struct {
		name    string
		args    DatasetSync
		want    error
		copied  int
		changed bool
	}{
		{"no snapshot", DatasetSync{}, state.ErrInvalid, 0, false},
		{"relative path", DatasetSync{Snapshot: "snapshot.db"}, state.ErrInvalid, 0, false},
		{"missing snapshot", DatasetSync{Snapshot: snap + ".gone"}, state.ErrNotFound, 0, false},
		{"dry run", DatasetSync{Snapshot: snap, DryRun: true}, nil, 1, false},
		{"sync", DatasetSync{Snapshot: snap}, nil, 1, true},
		{"again", DatasetSync{Snapshot: snap}, nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rep bolt.SyncReport
			err := call(ctx, path, OpDatasetSync, tc.args, &rep)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if len(rep.Copied) != tc.copied {
				t.Errorf("copied %+v, want %d", rep.Copied, tc.copied)
			}
			select {
			case c := <-changes:
				if !tc.changed || c != ChangeDatasets {
					t.Errorf("change %v", c)
				}
			default:
				if tc.changed {
					t.Error("the server was not told its datasets changed")
				}
			}
		})
	}
	if d, err := s.Dataset("roads"); err != nil || d.Version != 1 {
		t.Errorf("roads after sync: %+v %v", d, err)
	}
	if entries, err := s.AuditLog("", 10); err != nil || len(entries) == 0 || entries[0].Action != OpDatasetSync {
		t.Errorf("audit log %+v %v: want the sync recorded", entries, err)
	}
}
