package bolt

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// testNow is the fixed clock of test stores.
var testNow = time.Date(2025, 3, 14, 9, 26, 53, 589_793_238, time.UTC)

// MustOpenStore returns a new store on a temporary file with a fixed clock.
// Cleanup closes it and runs bbolt's consistency check on the file.
func MustOpenStore(tb testing.TB) *Store {
	tb.Helper()
	return mustOpenStoreOpts(tb, filepath.Join(tb.TempDir(), "frames.db"), Options{Create: true})
}

func mustOpenStoreOpts(tb testing.TB, path string, opts Options) *Store {
	tb.Helper()
	s, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open(%q): %v", path, err)
	}
	s.now = func() time.Time { return testNow }
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		mustCheckFile(tb, path)
	})
	return s
}

// mustCheckFile runs bbolt's tx.Check over the file at path, as bbolt's
// own tests do after each test (internal/btesting).
func mustCheckFile(tb testing.TB, path string) {
	tb.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		tb.Errorf("check %s: open: %v", path, err)
		return
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			tb.Errorf("check %s: %v", path, err)
		}
		return nil
	})
	if err != nil {
		tb.Errorf("check %s: %v", path, err)
	}
}

// assertErrText fails unless err is a one-line error containing every want.
func assertErrText(tb testing.TB, err error, want ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("error = nil, want one containing %q", want)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		tb.Errorf("error %q spans more than one line", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			tb.Errorf("error %q does not contain %q", msg, w)
		}
	}
}
