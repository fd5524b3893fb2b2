package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/state"
)

// serveStore starts the admin socket of a store holding "acme" with
// credits and a dataset, as `serve` does, and returns the store and path.
func serveStore(t *testing.T) (*bolt.Store, string) {
	t.Helper()
	s, path := keptStore(t)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, &Ops{Store: s}, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, path
}

// keptStore is a store holding "acme" (100 credits) and a dataset of
// 2,000 frames.
func keptStore(t *testing.T) (*bolt.Store, string) {
	t.Helper()
	s, path := openStore(t)
	mustOrg(t, s, "acme", state.PlanPro, 100)
	d := state.Dataset{ID: "pop", Owner: "acme", Attributes: []state.Attribute{{Name: "n", Type: state.TypeNumber, Aggregation: state.AggSum}}}
	var recs []bolt.FrameRecord
	for i := range 2000 {
		recs = append(recs, bolt.FrameRecord{Frame: uint64(i + 1), Attrs: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	if _, err := s.ImportDataset(d, recs, time.Time{}); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// busy adds credits to acme from 4 goroutines until the returned stop is
// called.
func busy(t *testing.T, s *bolt.Store) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, _, err := s.AddCredits("acme", 1, "busy", time.Time{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	time.Sleep(5 * time.Millisecond)
	return func() { cancel(); wg.Wait() }
}

func ledgerOf(t *testing.T, path string) []state.LedgerEntry {
	t.Helper()
	s, err := bolt.Open(path, bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, l, err := s.OrgLedger("acme", 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// noPartials fails if dir holds a file left by an unfinished backup or
// restore.
func noPartials(t *testing.T, dir string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		if strings.Contains(n, ".partial-") || strings.Contains(n, ".restoring-") || strings.Contains(n, ".check-") {
			t.Errorf("left behind: %s", n)
		}
	}
}

func TestBackup_ThroughServerUnderWrites(t *testing.T) {
	s, path := serveStore(t)
	stop := busy(t, s)
	out := filepath.Join(t.TempDir(), "copy.db")
	v, err := Backup(context.Background(), path, out, BackupOptions{Check: true})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if v.Through != "server" || v.Bytes == 0 || v.Check == nil || !v.Check.OK() || v.Check.Records != 2000 {
		t.Fatalf("view %+v check %+v", v, v.Check)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() != v.Bytes || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy: %v, %v", fi, err)
	}
	copied := ledgerOf(t, out)
	s.Close()
	final := ledgerOf(t, path)
	if len(copied) == 0 || len(copied) > len(final) {
		t.Fatalf("copy has %d entries, file %d", len(copied), len(final))
	}
	for i := range copied {
		if copied[i] != final[i] {
			t.Fatalf("entry %d differs", i+1)
		}
	}
	noPartials(t, filepath.Dir(out))
}

func TestBackup_Refusals(t *testing.T) {
	s, path := keptStore(t)
	s.Close() // no server: Backup opens the file itself
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.db")
	os.WriteFile(exists, []byte("keep me"), 0o600)
	tests := []struct {
		name string
		out  string
		ctx  func() context.Context
		opts BackupOptions
		want error
		text string
	}{
		{"out exists", exists, context.Background, BackupOptions{}, state.ErrExists, "give --force"},
		{"out is the data file", path, context.Background, BackupOptions{Overwrite: true}, state.ErrInvalid, "is the data file itself"},
		{"interrupted", filepath.Join(dir, "new.db"), func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, BackupOptions{}, context.Canceled, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Backup(tt.ctx(), path, tt.out, tt.opts)
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.text) {
				t.Fatalf("err = %v, want %v with %q", err, tt.want, tt.text)
			}
			if b, _ := os.ReadFile(exists); string(b) != "keep me" {
				t.Error("the existing file was touched")
			}
			if _, err := os.Stat(filepath.Join(dir, "new.db")); !errors.Is(err, os.ErrNotExist) {
				t.Error("an interrupted backup left its file")
			}
			noPartials(t, dir)
		})
	}
}

func TestBackupRestore_WithoutServer(t *testing.T) {
	s, path := keptStore(t)
	s.Close()
	out := filepath.Join(t.TempDir(), "copy.db")
	v, err := Backup(context.Background(), path, out, BackupOptions{})
	if err != nil || v.Through != "file" {
		t.Fatalf("%+v, %v", v, err)
	}
	// Spend after the backup, then restore: the spending is undone and
	// the replaced file kept.
	s2, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2.AddCredits("acme", -40, "after the backup", time.Time{})
	s2.Close()
	// A journal a crash left beside the file belongs to it, not to the
	// backup: restore's open of the file replays it (this one holds no
	// record of the file: it is dropped), or, when the file does not
	// open, moves it aside with the file.
	journal := []byte("the replaced file's journal")
	if err := os.WriteFile(bolt.JournalPath(path), journal, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(context.Background(), out, path)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Check.OK() || r.Previous == "" || r.Bytes != v.Bytes {
		t.Fatalf("restore %+v", r)
	}
	if _, err := os.Stat(bolt.JournalPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a journal is left beside the restored file: %v", err)
	}

	if got := ledgerOf(t, path); len(got) != 1 || got[0].Balance != 100 {
		t.Fatalf("restored ledger %+v", got)
	}
	if got := ledgerOf(t, r.Previous); len(got) != 2 {
		t.Fatalf("previous file's ledger %+v", got)
	}
	noPartials(t, filepath.Dir(path))
}

func TestRestore_Refusals(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("frameindex"), 2000), 0o600)

	t.Run("server running", func(t *testing.T) {
		_, path := serveStore(t)
		before, _ := os.ReadFile(path)
		_, err := Restore(context.Background(), garbage, path)
		if !errors.Is(err, bolt.ErrLocked) || !strings.Contains(err.Error(), "stop it first") {
			t.Fatalf("err = %v", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the served file changed")
		}
	})
	t.Run("file held by another store", func(t *testing.T) {
		s, path := keptStore(t)
		out := filepath.Join(t.TempDir(), "copy.db")
		if _, err := s.Snapshot(context.Background(), mustCreate(t, out), nil); err != nil {
			t.Fatal(err)
		}
		_, err := Restore(context.Background(), out, path)
		if !errors.Is(err, bolt.ErrLocked) {
			t.Fatalf("err = %v", err)
		}
		noPartials(t, filepath.Dir(path))
	})
	t.Run("not a data file", func(t *testing.T) {
		s, path := keptStore(t)
		s.Close()
		before, _ := os.ReadFile(path)
		_, err := Restore(context.Background(), garbage, path)
		if !errors.Is(err, bolt.ErrForeign) || !strings.Contains(err.Error(), "cannot be restored") {
			t.Fatalf("err = %v", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Error("the data file changed")
		}
	})
	t.Run("backup fails its check", func(t *testing.T) {
		s, path := keptStore(t)
		out := filepath.Join(t.TempDir(), "copy.db")
		if _, err := s.Snapshot(context.Background(), mustCreate(t, out), nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		damageBalance(t, out)
		_, err := Restore(context.Background(), out, path)
		if !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), "fails its check") {
			t.Fatalf("err = %v", err)
		}
		noPartials(t, filepath.Dir(path))
	})
}

func mustCreate(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// damageBalance rewrites acme's balance in place (same length), so that
// it no longer matches the ledger.
func damageBalance(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"credits":100}`))
	if i < 0 {
		t.Fatal("balance record not found")
	}
	copy(b[i:], `"credits":999}`)
	// The page holding it now fails no bbolt check (bbolt has no page
	// checksums); only frameindex's invariants catch it.
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOps_CheckAndCompactThroughServer(t *testing.T) {
	s, path := serveStore(t)
	if err := s.RemoveDataset("pop"); err != nil {
		t.Fatal(err)
	}
	stop := busy(t, s)
	var rep bolt.CheckReport
	if err := call(context.Background(), path, OpCheck, struct{}{}, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Path != path || rep.Orgs != 1 {
		t.Fatalf("check %+v", rep)
	}
	var c bolt.CompactReport
	if err := call(context.Background(), path, OpCompact, struct{}{}, &c); err != nil {
		t.Fatal(err)
	}
	stop()
	if c.After >= c.Before {
		t.Fatalf("compact %+v", c)
	}
	noPartials(t, filepath.Dir(path))
	if r, err := s.Check(context.Background()); err != nil || !r.OK() {
		t.Fatalf("after compaction: %+v, %v", r, err)
	}
}
