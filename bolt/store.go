package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
	bberrors "go.etcd.io/bbolt/errors"
)

// Errors of the data file, always wrapped with a one-line message that
// names what was wrong; test for them with errors.Is. The store returns
// the shared state's kinds too (state.ErrNotFound, state.ErrInvalid, ...).
var (
	ErrMissing     = errors.New("data file does not exist")
	ErrForeign     = errors.New("not a frameindex data file")
	ErrNewerSchema = errors.New("data file was written by a newer frameindex")
	ErrLocked      = errors.New("data file is locked by another process")

	ErrNoGrid = errors.New("data file holds no grid")
)

// Schema is the newest data file schema this build reads and the one it
// writes into new files. A file with a higher number is refused with
// ErrNewerSchema rather than misread.
const Schema = 1

// DefaultTimeout is how long Open waits for the file lock when
// Options.Timeout is zero.
const DefaultTimeout = time.Second

// defaultMmapSize is the memory mapping bbolt starts with on 64-bit systems
// (address space, not memory: only the pages read are resident). bbolt
// remaps whenever a write outgrows its mapping, and each remap copies every
// key and value the write transaction holds; storing a million polygon
// frames into a small mapping remaps a dozen times and takes twice as long
// and five times the allocation. A mapping this large also means a
// long read transaction never holds up a writer that needs to remap (bbolt
// README, Transactions). On Windows bbolt would grow the file to the
// mapping size, so there it is left at bbolt's default.
var defaultMmapSize = func() int {
	if strconv.IntSize < 64 || runtime.GOOS == "windows" {
		return 0
	}
	return 1 << 30
}()

// allocSize is how far beyond its last page bbolt grows the file when a
// write needs more room. With a mapping larger than bbolt's own AllocSize
// (16 MiB), bbolt would add that much to every file; the writes here are
// few (administration, grid builds), so a small step costs little.
const allocSize = 256 << 10

// fileMode is the permission of a data file Open creates: it holds key
// digests and organisation records, so only its owner reads it.
const fileMode = 0o600

// Bucket names and the keys of the meta bucket; see the package comment for
// the layout.
var (
	bucketMeta       = []byte("meta")
	bucketLattice    = []byte("lattice")
	bucketFrames     = []byte("frames")
	bucketOrgs       = []byte("orgs")
	bucketKeys       = []byte("keys")
	bucketKeyDigests = []byte("keydigests")
	bucketLedger     = []byte("ledger")
	bucketUsage      = []byte("usage")

	metaSchema  = []byte("schema")
	metaCreated = []byte("created")
	metaGrid    = []byte("grid")
)

// Options control Open.
type Options struct {
	Create   bool          // create the file when missing (otherwise ErrMissing)
	ReadOnly bool          // shared lock, no writes
	Timeout  time.Duration // how long to wait for the file lock; zero or less means DefaultTimeout

	// mmapSize, when not zero, replaces defaultMmapSize as bbolt's
	// InitialMmapSize; tests set it to be independent of the platform.
	mmapSize int
}

// Store is an open data file. Its methods are safe for concurrent use by
// several goroutines; each exported method is one bbolt transaction, so
// several writers run one after another and readers never wait for them.
type Store struct {
	*dataFile
	// audit, on a handle of Audited, is the entry its next change writes
	// in the change's own transaction (see audit_tx.go).
	audit *pendingAudit
}

// dataFile is what every handle of one open data file shares.
type dataFile struct {
	// db is the open bbolt database. Compact replaces it with the
	// compacted file's: mu guards the field (held only while reading or
	// swapping it, never during a transaction) and gen counts the swaps,
	// so that a write transaction that began on the old database can tell
	// and start again on the new one (see update and compact.go).
	mu   sync.RWMutex
	db   *bbolt.DB
	gen  atomic.Uint64
	path string
	// How the file was opened, for Compact to open the compacted file
	// the same way.
	timeout  time.Duration
	mmapSize int

	// now is the clock for creation and build times; rand is the source of
	// key secrets and ids. Tests replace them; nil means the real ones.
	now  func() time.Time
	rand io.Reader

	closeOnce sync.Once
	// group is the group committer of the ledger (committer.go).
	group committer
	// journal is the ledger's journal (journal.go); nil on a read-only
	// store.
	journal *journal
	// memo holds decoded records by their bytes (memo.go).
	memo struct {
		datasets memo[state.Dataset]
		orgs     memo[state.Org]
		licences memo[state.Licence] // by record key, org/dataset
	}
}

// Open opens (or, with Create, creates) the data file at path.
//
// Errors, each wrapped in a one-line message that names the path:
// ErrMissing (no file and no Create), ErrLocked (another process holds the
// file, after opts.Timeout), ErrForeign (the file is not a frameindex data
// file: not bbolt, empty, or without the schema record), ErrCorrupt (a
// damaged or truncated file), ErrNewerSchema (written by a newer build),
// ErrInvalid (Create together with ReadOnly). Other failures (permissions,
// a directory in the path) come back wrapped with the path.
//
// With Create a missing file is made with mode 0600 (parent directories
// must exist) and its schema record written before Open returns. A file
// that exists is never created over, even an empty one.
//
// Open reads only the file's header and meta bucket: damage elsewhere
// shows up later, as ErrCorrupt from the call that reads it.
func Open(path string, opts Options) (*Store, error) {
	if opts.Create && opts.ReadOnly {
		return nil, state.Errorf(state.ErrInvalid, "open data file %q: Create and ReadOnly cannot be used together", path)
	}
	if path == "" {
		return nil, state.Errorf(state.ErrInvalid, "open data file: empty path")
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}

	created := false
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !opts.Create {
			return nil, state.Wrapf(ErrMissing, err, "data file %q does not exist: build one with `frameindex grid build` or `frameindex demo`", path)
		}
		created = true
	case err != nil:
		return nil, fmt.Errorf("open data file %q: %w", path, err)
	case fi.IsDir():
		return nil, state.Errorf(ErrForeign, "data file %q is a directory, not a frameindex data file", path)
	case !fi.Mode().IsRegular():
		return nil, state.Errorf(ErrForeign, "data file %q is not a regular file", path)
	default:
		// Read and check the bbolt header ourselves first: bbolt would
		// initialise an empty file as a new database, and a truncated
		// file would crash the process when bbolt touches a page past
		// its end.
		if err := checkHeader(path); err != nil {
			return nil, err
		}
	}

	mmapSize := opts.mmapSize
	if mmapSize == 0 {
		mmapSize = defaultMmapSize
	}
	db, err := openBolt(path, opts.ReadOnly, created, timeout, mmapSize)
	if err != nil && mmapSize != 0 && errors.Is(err, syscall.ENOMEM) {
		// Address space is limited (ulimit -v): let bbolt map the file
		// at its own size and grow the mapping as it goes.
		db, err = openBolt(path, opts.ReadOnly, created, timeout, 0)
	}
	if err != nil {
		return nil, err
	}
	db.AllocSize = allocSize
	s := &Store{dataFile: &dataFile{db: db, path: path, timeout: timeout, mmapSize: mmapSize}}
	if err := s.checkMeta(created); err != nil {
		_ = db.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		if _, err := s.openJournal(); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("data file %q: %w", path, err)
		}
	}
	return s, nil
}

// openBolt opens the bbolt database, mapping its errors to ours. A panic
// inside bbolt (it panics on some damaged pages, e.g. a bad freelist) becomes
// ErrCorrupt; the file it had opened is closed so that its lock goes, but
// its memory mapping, if it made one, stays until the process exits: the
// bbolt handle that owns it is never returned to us.
func openBolt(path string, readOnly, creating bool, timeout time.Duration, mmapSize int) (db *bbolt.DB, err error) {
	var file *os.File
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				_ = file.Close()
			}
			db, err = nil, state.Errorf(state.ErrCorrupt, "data file %q is corrupt: %s (check it with `bbolt check`)", path, panicText(r))
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))

	db, err = bbolt.Open(path, fileMode, &bbolt.Options{
		Timeout:         timeout,
		ReadOnly:        readOnly,
		InitialMmapSize: mmapSize,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		},
	})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, bberrors.ErrTimeout):
		return nil, state.Wrapf(ErrLocked, err, "data file %q is locked by another process (waited %v): is `frameindex serve` running on it? Stop it, or make the change through the running server", path, timeout)
	case errors.Is(err, bberrors.ErrInvalid), errors.Is(err, bberrors.ErrChecksum), errors.Is(err, bberrors.ErrVersionMismatch):
		return nil, state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: %v", path, err)
	case creating:
		// For instance a directory in the path that does not exist.
		return nil, fmt.Errorf("create data file %q: %w", path, err)
	case errors.Is(err, fs.ErrNotExist):
		// Removed between our Stat and bbolt's open.
		return nil, state.Wrapf(ErrMissing, err, "data file %q does not exist: build one with `frameindex grid build` or `frameindex demo`", path)
	default:
		return nil, fmt.Errorf("open data file %q: %w", path, err)
	}
}

// checkMeta verifies the schema record, or writes it into a file this Open
// call created.
func (s *Store) checkMeta(created bool) error {
	var schema uint32
	found := false
	err := s.view(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return nil
		}
		v := meta.Get(metaSchema)
		if v == nil {
			return nil
		}
		if len(v) != 4 {
			return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: schema record has %d bytes, want 4", s.path, len(v))
		}
		schema, found = binary.BigEndian.Uint32(v), true
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case !found && created:
		err := s.update(func(tx *bbolt.Tx) error {
			meta, err := tx.CreateBucketIfNotExists(bucketMeta)
			if err != nil {
				return err
			}
			if err := meta.Put(metaSchema, binary.BigEndian.AppendUint32(nil, Schema)); err != nil {
				return err
			}
			return meta.Put(metaCreated, []byte(s.clock().UTC().Format(time.RFC3339Nano)))
		})
		if err != nil {
			// The file is one this call made (we hold its lock and it has
			// no schema record): leave no half-made file behind.
			_ = os.Remove(s.path)
		}
		return err
	case !found:
		return state.Errorf(ErrForeign, "data file %q is a bbolt database without a frameindex schema record: not a frameindex data file (if its creation was interrupted, delete it and build it again)", s.path)
	case schema == 0:
		return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: schema number 0", s.path)
	case schema > Schema:
		return state.Errorf(ErrNewerSchema, "data file %q was written by a newer frameindex (schema %d; this build reads up to %d)", s.path, schema, Schema)
	}
	return nil
}

// Close closes the file and releases its lock. It waits for running
// transactions to finish. Calling it again, or on a nil Store, returns nil.
func (s *Store) Close() error {
	if s == nil || s.current() == nil {
		return nil
	}
	var err error
	s.closeOnce.Do(func() {
		s.stopCommitter()
		if s.journal != nil {
			err = s.journal.close()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if cerr := s.db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close data file %q: %w", s.path, cerr)
		}
	})
	return err
}

// Path returns the file's path.
func (s *Store) Path() string { return s.path }

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// view runs fn in a read transaction. A panic inside bbolt or a fault on the
// mapped file (a page that is not there) becomes ErrCorrupt; bbolt has
// rolled the transaction back by then.
func (s *Store) view(fn func(*bbolt.Tx) error) (err error) {
	defer s.recoverCorrupt(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for {
		db, _ := s.currentGen()
		err := db.View(fn)
		if errors.Is(err, bberrors.ErrDatabaseNotOpen) && s.current() != db {
			continue // Compact closed it after swapping in the compacted file
		}
		return s.wrap(err)
	}
}

// current returns the open bbolt database.
func (s *Store) current() *bbolt.DB {
	db, _ := s.currentGen()
	return db
}

// currentGen returns the open bbolt database and the number of swaps
// before it.
func (s *Store) currentGen() (*bbolt.DB, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.db, s.gen.Load()
}

// errSwapped ends a write transaction that began on a database Compact
// has since replaced; update starts it again on the new one.
var errSwapped = errors.New("data file was swapped for its compacted copy")

// viewValue runs read in a read transaction, as view does, and returns
// what it read; the zero value with an error.
func viewValue[T any](s *Store, read func(*bbolt.Tx) (T, error)) (T, error) {
	var v T
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		v, err = read(tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// lookup returns the value of key in the top-level bucket of tx, or nil
// when the bucket, the key or the value is missing (or key is empty).
func lookup(tx *bbolt.Tx, bucket []byte, key string) []byte {
	b := tx.Bucket(bucket)
	if b == nil || key == "" {
		return nil
	}
	return b.Get([]byte(key))
}

// update runs fn in a read-write transaction, recovering like view. On a
// handle of Audited it appends the pending audit entry after fn, in the
// same transaction.
func (s *Store) update(fn func(*bbolt.Tx) error) (err error) {
	// The committer's open epoch holds bbolt's one write transaction:
	// ask it to fold rather than wait for it to fall idle.
	s.group.poke()
	return s.updateRaw(fn)
}

// updateRaw is update without asking the committer's epoch to fold: for
// the committer itself.
func (s *Store) updateRaw(fn func(*bbolt.Tx) error) (err error) {
	defer s.recoverCorrupt(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for {
		db, gen := s.currentGen()
		var audited state.AuditEntry
		err := db.Update(func(tx *bbolt.Tx) error {
			if s.gen.Load() != gen {
				return errSwapped
			}
			if err := fn(tx); err != nil {
				return err
			}
			var err error
			audited, err = s.audit.write(tx, s)
			return err
		})
		if errors.Is(err, errSwapped) || errors.Is(err, bberrors.ErrDatabaseNotOpen) && s.current() != db {
			continue
		}
		if err == nil {
			s.audit.committed(audited)
		}
		return s.wrap(err)
	}
}

func (s *Store) recoverCorrupt(err *error) {
	if r := recover(); r != nil {
		*err = state.Errorf(state.ErrCorrupt, "data file %q is corrupt: %s (check it with `bbolt check`)", s.path, panicText(r))
	}
}

// panicText renders a recovered panic value as one line of bounded length.
func panicText(r any) string {
	const maxLen = 300
	t := strings.Join(strings.Fields(fmt.Sprint(r)), " ")
	if len(t) > maxLen {
		t = strings.ToValidUTF8(t[:maxLen], "") + "…"
	}
	return t
}

// wrap gives bbolt's own errors (read-only file, closed file, disk full)
// the path; errors of ours pass through unchanged.
func (s *Store) wrap(err error) error {
	if err == nil || state.HasKind(err) {
		return err
	}
	return fmt.Errorf("data file %q: %w", s.path, err)
}
