package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// CompactReport says what Compact did.
type CompactReport struct {
	Path    string   `json:"path"`
	Before  int64    `json:"before"`            // bytes of the file before
	After   int64    `json:"after"`             // bytes of the file after
	Dropped []string `json:"dropped,omitempty"` // staging buckets of crashed imports, dropped
}

// compactTxBytes is how many bytes of keys and values Compact writes into
// the new file per transaction, bounding the memory a transaction holds.
const compactTxBytes = 64 << 20

// compactSuffix names the file Compact writes beside the data file.
const compactSuffix = ".compacting"

// Compact rewrites the data file without free pages: every bucket and
// record is copied, in key order with pages filled, into a new file beside
// it (PATH.compacting), which then replaces the data file. The version
// buckets no dataset points at (staging buckets left by crashed imports)
// are left out. It returns the sizes before and after.
//
// It works on a store in use, as a server's: a write transaction is held
// for the whole copy, so other writes (charges, administration) wait for it
// and then run on the new file, while reads go on throughout; an import
// running at the time makes Compact fail with ErrInvalid (the import lock is
// taken, so none starts meanwhile). The swap itself is atomic: readers see
// the old file or the new one, whose contents are the same. On Windows the
// old file must be closed before it can be replaced, so reads wait too
// during the swap (milliseconds).
//
// When ctx ends, or anything fails, the new file is removed and the data
// file is untouched. Errors: ErrInvalid (a read-only store; an import
// running), ctx's error, ErrCorrupt, file errors (disk full: the copy needs
// room for the live data beside the file).
func (s *Store) Compact(ctx context.Context) (rep CompactReport, err error) {
	rep.Path = s.path
	old := s.current()
	if old.IsReadOnly() {
		return rep, state.Errorf(state.ErrInvalid, "data file %q is open read-only: cannot compact it", s.path)
	}
	mu := s.importLock()
	if !mu.TryLock() {
		return rep, state.Errorf(state.ErrInvalid, "an import is running on %q: compact it when the import has finished", s.path)
	}
	defer mu.Unlock()
	defer s.recoverCorrupt(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))

	if fi, err := os.Stat(s.path); err == nil {
		rep.Before = fi.Size()
	}
	s.group.poke() // the committer's open epoch folds and lets go of the lock
	tx, err := old.Begin(true)
	if err != nil {
		return rep, s.wrap(err)
	}
	txDone := false
	defer func() {
		if !txDone {
			_ = tx.Rollback()
		}
	}()
	if s.group.dirty.Load() {
		// Between epochs, so a fold failed: the journal holds answered
		// ledger writes this file lacks, which the copy would lack too.
		return rep, fmt.Errorf("compact %q: the ledger's journal holds writes the data file could not take (see the log for the failed write); free the disk and restart the server, which writes them in, then compact", s.path)
	}
	tmp := s.path + compactSuffix
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("compact %q: remove the copy a crashed compaction left: %w", s.path, err)
	}
	keep := false
	defer func() {
		if !keep {
			_ = os.Remove(tmp)
		}
	}()
	dst, err := bbolt.Open(tmp, fileMode, &bbolt.Options{NoSync: true, InitialMmapSize: s.mmapSize})
	if err != nil {
		return rep, fmt.Errorf("compact %q: create %s: %w", s.path, tmp, err)
	}
	dstOpen := true
	defer func() {
		if dstOpen {
			_ = dst.Close()
		}
	}()
	dst.AllocSize = allocSize
	dropped, err := copyTx(ctx, dst, tx)
	// The copy numbers its transactions afresh: it gets a journal key of
	// its own, so that no record of the old file's journal is replayed
	// into it.
	var key []byte
	if err == nil {
		key, err = newJournalKey()
	}
	if err == nil {
		err = dst.Update(func(tx *bbolt.Tx) error {
			meta, err := tx.CreateBucketIfNotExists(bucketMeta)
			if err != nil {
				return err
			}
			return meta.Put(metaJournalKey, key)
		})
	}
	var used int64
	if err == nil {
		err = dst.Sync()
	}
	if err == nil {
		err = dst.View(func(tx *bbolt.Tx) error { used = tx.Size(); return nil })
	}
	dstOpen = false
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	// bbolt grows a file ahead of its pages; what lies past the last
	// page is unused: cut it off. The new file keeps the old one's owner
	// (the service's user, when root compacts).
	if err == nil {
		err = truncateSync(tmp, used)
	}
	if err == nil {
		err = CopyOwner(tmp, s.path)
	}
	if err != nil {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		return rep, fmt.Errorf("compact %q: write %s: %w", s.path, tmp, err)
	}
	rep.Dropped = dropped
	if fi, err := os.Stat(tmp); err == nil {
		rep.After = fi.Size()
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}

	if runtime.GOOS == "windows" {
		// A file open on Windows cannot be renamed over: close the old
		// database first. Requests wait on s.mu meanwhile.
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gen.Add(1)
		txDone = true
		_ = tx.Rollback()
		if err := old.Close(); err != nil {
			return rep, fmt.Errorf("compact %q: close: %w", s.path, err)
		}
		if err := os.Rename(tmp, s.path); err != nil {
			db, oerr := openBolt(s.path, false, false, s.timeout, s.mmapSize)
			if oerr == nil {
				db.AllocSize = allocSize
				s.db = db
			}
			return rep, fmt.Errorf("compact %q: replace the file: %w", s.path, err)
		}
		keep = true
		db, err := openBolt(s.path, false, false, s.timeout, s.mmapSize)
		if err != nil {
			return rep, fmt.Errorf("compact %q: open the compacted file: %w", s.path, err)
		}
		db.AllocSize = allocSize
		s.db = db
		s.journal.rekey(key)
		return rep, nil
	}

	// Open the new file before it replaces the old one, so that a failure
	// leaves everything as it was; open descriptors and bbolt's lock
	// follow the file through the rename.
	db, err := openBolt(tmp, false, false, s.timeout, s.mmapSize)
	if err != nil {
		return rep, fmt.Errorf("compact %q: open the compacted copy: %w", s.path, err)
	}
	db.AllocSize = allocSize
	if err := os.Rename(tmp, s.path); err != nil {
		_ = db.Close()
		return rep, fmt.Errorf("compact %q: replace the file: %w", s.path, err)
	}
	keep = true
	syncDir(filepath.Dir(s.path))
	s.mu.Lock()
	s.db = db
	s.gen.Add(1)
	s.journal.rekey(key)
	s.mu.Unlock()
	// Writers waiting on the old file now find it replaced and start
	// again on the new one; readers still in it finish before it closes.
	txDone = true
	_ = tx.Rollback()
	_ = old.Close()
	return rep, nil
}

// CompactFile opens the data file at path (it fails with ErrLocked while a
// server has it: compact through the server then), compacts it and closes
// it. Errors: those of Open and Compact.
func CompactFile(ctx context.Context, path string) (CompactReport, error) {
	s, err := Open(path, Options{})
	if err != nil {
		return CompactReport{}, err
	}
	rep, err := s.Compact(ctx)
	if cerr := s.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return rep, err
}

// copyTx copies every bucket of src into dst, leaving out the staging
// buckets of the dataset versions, which it returns by name. Each bucket
// keeps its sequence (ledgers and reservations are numbered from it).
func copyTx(ctx context.Context, dst *bbolt.DB, src *bbolt.Tx) ([]string, error) {
	live := map[string]bool{}
	if ds := src.Bucket(bucketDatasets); ds != nil {
		err := ds.ForEach(func(k, v []byte) error {
			version, err := liveVersion(ds, string(k))
			if err != nil {
				return state.Wrapf(state.ErrCorrupt, err, "dataset %q: %v", k, err)
			}
			live[string(versionBucketName(string(k), version))] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var dropped []string
	w := &compactWriter{ctx: ctx, db: dst}
	if err := w.begin(); err != nil {
		return nil, err
	}
	defer w.rollback()
	err := src.ForEach(func(name []byte, b *bbolt.Bucket) error {
		skip := func(k []byte) bool { return false }
		if bytes.Equal(name, bucketVersions) {
			skip = func(k []byte) bool {
				if live[string(k)] {
					return false
				}
				dropped = append(dropped, string(k))
				return true
			}
		}
		return w.bucket(nil, name, b, skip)
	})
	if err != nil {
		return nil, err
	}
	return dropped, w.commit()
}

// compactWriter writes into the new file in transactions of bounded size.
type compactWriter struct {
	ctx  context.Context
	db   *bbolt.DB
	tx   *bbolt.Tx
	txs  int // transactions begun: a bucket found in an earlier one is stale
	size int64
	n    int
}

func (w *compactWriter) begin() error {
	tx, err := w.db.Begin(true)
	w.tx, w.size = tx, 0
	w.txs++
	return err
}

func (w *compactWriter) commit() error {
	tx := w.tx
	w.tx = nil
	return tx.Commit()
}

func (w *compactWriter) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback()
	}
}

// target returns the bucket at path in the current transaction.
func (w *compactWriter) target(path [][]byte) *bbolt.Bucket {
	b := w.tx.Bucket(path[0])
	for _, p := range path[1:] {
		b = b.Bucket(p)
	}
	return b
}

// account counts n bytes written and starts a new transaction past
// compactTxBytes; it checks ctx every 1024 records.
func (w *compactWriter) account(n int) error {
	if w.n++; w.n%1024 == 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
	w.size += int64(n)
	if w.size < compactTxBytes {
		return nil
	}
	if err := w.commit(); err != nil {
		return err
	}
	return w.begin()
}

// bucket copies bucket b, named name inside the bucket at parent (nil: a
// top-level bucket), with everything in it; skip says which of its child
// buckets to leave out.
func (w *compactWriter) bucket(parent [][]byte, name []byte, b *bbolt.Bucket, skip func([]byte) bool) error {
	var nb *bbolt.Bucket
	var err error
	if parent == nil {
		nb, err = w.tx.CreateBucket(name)
	} else {
		nb, err = w.target(parent).CreateBucket(name)
	}
	if err != nil {
		return err
	}
	if err := nb.SetSequence(b.Sequence()); err != nil {
		return err
	}
	nb.FillPercent = 1 // keys come in order: fill every page
	path := append(append([][]byte(nil), parent...), name)
	t, txs := nb, w.txs
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if skip(k) {
				continue
			}
			if err := w.bucket(path, k, b.Bucket(k), func([]byte) bool { return false }); err != nil {
				return err
			}
			continue
		}
		if txs != w.txs { // a new transaction: find the bucket in it
			t, txs = w.target(path), w.txs
			t.FillPercent = 1
		}
		if err := t.Put(k, v); err != nil {
			return err
		}
		if err := w.account(len(k) + len(v)); err != nil {
			return err
		}
	}
	return nil
}

// truncateSync cuts the file at path to size bytes and flushes it.
func truncateSync(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir flushes a directory's entries (a rename) to disk where the
// system allows it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
