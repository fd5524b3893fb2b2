package bolt

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unsafe"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// The ledger's journal. A bbolt commit writes the changed pages, syncs,
// writes a meta page and syncs again: 0.17 ms and 0.09 ms of CPU on this
// project's machines, a quarter of a charged data call's cost. The
// committer (committer.go) instead keeps one write transaction open across
// many groups (an epoch) and makes each group durable by appending what it
// wrote (its redo: the puts, deletes and bucket sequences, as bytes) to a
// journal file beside the data file (PATH.journal), in one direct,
// synchronous write (O_DIRECT|O_DSYNC) to blocks already allocated: 0.04
// ms, and 14 µs of CPU where a buffered write and an fdatasync take 0.05
// ms and 23 µs (writeRecord). The epoch's transaction is committed into
// the data file (folded) every foldEvery, when it falls idle, when the
// journal is full, and at once when another writer or a reader of the
// ledger asks; the journal is then spent, and the next epoch writes over
// it from the start.
//
// The data file stays the ledger of record: the journal holds only what
// its last fold does not, and a store closed cleanly removes it. After a
// crash, opening the file for writing replays the journal's records into
// it before anything else runs.
//
// Which records belong to the file: each record carries the file's journal
// key (a random number in the meta bucket, new in every compacted copy)
// and its base, the id of the transaction the epoch would commit as (bbolt
// numbers commits one by one). Replay starts at the journal's first record
// and applies records while their key is the file's and their base is the
// file's next transaction: a fold that committed makes its records stale,
// as does any other commit, and a journal beside another file (a restored
// copy of another node's, a compacted copy) is never applied to it.
//
// A record: magic "fij1", payload length (u32), CRC-32C (Castagnoli) of
// key, base and payload (u32), key (u64), base (u64), payload. All
// big-endian. A record cut short by a crash fails its length or checksum
// and ends the replay: its group was never acknowledged.
//
// The payload is a list of writes, each: kind (1 put, 2 delete, 3 bucket
// sequence), the bucket's path (a count, then each name as a uvarint
// length and bytes), then for a put the key and value, for a delete the
// key (uvarint length and bytes each), for a sequence its value (uvarint).
// Replaying a write sets a value, so replaying a record twice, or over a
// file that holds it already, changes nothing.

const (
	journalSuffix = ".journal"
	journalMagic  = "fij1"
	journalHeader = 4 + 4 + 4 + 8 + 8

	redoPut    = 1
	redoDelete = 2
	redoSeq    = 3

	// directBlock is the unit of a direct write (O_DIRECT): its offset,
	// length and memory are aligned to it. 4096 serves disks of 512-byte
	// and of 4096-byte sectors.
	directBlock = 4096

	// journalChunk is how much the journal grows at a time: written as
	// zeros and synced, so that a record's own sync writes no file
	// metadata.
	journalChunk = 1 << 20
)

// maxJournal bounds the journal: an epoch whose next record would pass it
// folds instead. A variable for tests.
var maxJournal int64 = 8 << 20

var (
	metaJournalKey = []byte("journal")
	journalCRC     = crc32.MakeTable(crc32.Castagnoli)
)

// journal is a writable store's journal. Only the committer goroutine
// writes its fields, except open, which the write helpers of any
// goroutine read (notes).
type journal struct {
	path string
	key  uint64
	f    *os.File // opened at the first record
	size int64    // bytes of the file allocated (written and synced)
	off  int64    // where the next record goes
	// direct says f was opened for direct, synchronous writes
	// (openJournalFile): a record is written in whole blocks, the first
	// of which begins with tail, what the block at off already holds.
	direct bool
	tail   [directBlock]byte
	wbuf   []byte // the blocks being written, aligned to directBlock
	base   uint64 // the id of the transaction the records at [0, off) are for

	// open is the committer's open transaction: a write helper notes its
	// writes in buf only when it writes in this transaction.
	open atomic.Pointer[bbolt.Tx]
	// pending holds the open transaction's balance and usage counter
	// writes until its group is journaled (pending.go).
	pending pending
	// buf is the epoch's redo: buf[:mark] is in the journal (its groups
	// were answered), buf[mark:] is the group being gathered.
	buf  []byte
	mark int
	// newKey is the key the running epoch gives a file that had none.
	newKey []byte
}

// JournalPath is where the journal of the data file at path is kept.
func JournalPath(path string) string { return path + journalSuffix }

// newJournalKey returns a random journal key (never 0, which no record
// carries).
func newJournalKey() ([]byte, error) {
	for {
		var k [8]byte
		if _, err := io.ReadFull(rand.Reader, k[:]); err != nil {
			return nil, err
		}
		if binary.BigEndian.Uint64(k[:]) != 0 {
			return k[:], nil
		}
	}
}

// journalKey reads the file's journal key in tx: 0 when it has none.
func journalKey(tx *bbolt.Tx) uint64 {
	if meta := tx.Bucket(bucketMeta); meta != nil {
		if v := meta.Get(metaJournalKey); len(v) == 8 {
			return binary.BigEndian.Uint64(v)
		}
	}
	return 0
}

// openJournal readies the journal of a store opened for writing: it
// replays what a crashed server's journal holds for the file, and removes
// the journal. It returns how many records it replayed. A file that needs
// no replay is not written to.
func (s *Store) openJournal() (int, error) {
	j, pending, err := s.pendingJournal()
	if err != nil {
		return 0, err
	}
	replayed := 0
	if pending > 0 {
		err = s.updateRaw(func(tx *bbolt.Tx) error {
			var err error
			replayed, err = j.replay(tx, func(payload []byte) error { return applyRedo(tx, payload) })
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("remove the journal %s: %w", j.path, err)
	}
	s.journal = j
	return replayed, nil
}

// pendingJournal reads the file's journal key and counts the records of
// the journal beside it that a writable open replays.
func (s *Store) pendingJournal() (*journal, int, error) {
	j := &journal{path: JournalPath(s.path)}
	n := 0
	err := s.view(func(tx *bbolt.Tx) error {
		j.key = journalKey(tx)
		if j.key == 0 {
			return nil // a file without a key has no journal of its own
		}
		var err error
		// A read transaction's id is the last commit's; a write one's,
		// which replay compares with, is the next.
		n, err = j.records(uint64(tx.ID())+1, func([]byte) error { return nil })
		return err
	})
	return j, n, err
}

// replay applies, through apply, the journal's records for tx's file and
// transaction, in order, and returns how many there were.
func (j *journal) replay(tx *bbolt.Tx, apply func(payload []byte) error) (int, error) {
	return j.records(uint64(tx.ID()), apply)
}

// records calls fn with the payload of each of the journal's records, from
// the first, while they carry j.key and base. A missing journal has none.
func (j *journal) records(base uint64, fn func(payload []byte) error) (int, error) {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the journal %s: %w", j.path, err)
	}
	n := 0
	for len(data) >= journalHeader {
		payload, rest, ok := parseRecord(data, j.key, base)
		if !ok {
			break
		}
		if err := fn(payload); err != nil {
			return n, state.Wrapf(state.ErrCorrupt, err, "journal %s, record %d: %v", j.path, n+1, err)
		}
		n++
		data = rest
	}
	return n, nil
}

// parseRecord reads the record at the start of data: its payload and what
// follows it, ok == false when there is none for key and base there.
func parseRecord(data []byte, key, base uint64) (payload, rest []byte, ok bool) {
	if len(data) < journalHeader || string(data[:4]) != journalMagic {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(data[4:])
	if uint64(n) > uint64(len(data)-journalHeader) {
		return nil, nil, false
	}
	end := journalHeader + int(n)
	if crc32.Checksum(data[12:end], journalCRC) != binary.BigEndian.Uint32(data[8:]) {
		return nil, nil, false
	}
	if binary.BigEndian.Uint64(data[12:]) != key || binary.BigEndian.Uint64(data[20:]) != base {
		return nil, nil, false
	}
	return data[journalHeader:end], data[end:], true
}

// begin starts an epoch on tx: writes are noted from now on. The redo a
// failed epoch left (journaled, not folded) is applied to tx first; when
// tx is not the transaction the journal's records are for (a commit came
// between), it is journaled again from the start with the next group.
func (j *journal) begin(tx *bbolt.Tx) error {
	j.pending.reset()
	j.buf = j.buf[:j.mark]
	if j.mark > 0 {
		if err := applyRedo(tx, j.buf); err != nil {
			return err
		}
	}
	if base := uint64(tx.ID()); base != j.base || j.mark == 0 {
		j.base, j.off, j.mark = base, 0, 0
	}
	if j.key == 0 {
		// The file's first epoch gives it its key; no record may name
		// the key before it is in the file, so this epoch folds each
		// group (keyless).
		k, err := newJournalKey()
		if err != nil {
			return err
		}
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(metaJournalKey, k); err != nil {
			return err
		}
		j.newKey = k
	}
	j.open.Store(tx)
	return nil
}

// keyless reports whether the running epoch is giving the file its key:
// its groups are folded, not journaled.
func (j *journal) keyless() bool { return j.newKey != nil }

// end stops noting writes: the epoch's transaction is over. folded says
// whether it committed; if not, what was journaled stays to be applied by
// the next epoch, and the unanswered group's writes are dropped.
func (j *journal) end(folded bool) {
	j.open.Store(nil)
	j.pending.reset()
	if folded && j.newKey != nil {
		j.key = binary.BigEndian.Uint64(j.newKey)
	}
	j.newKey = nil
	if folded {
		j.buf, j.mark, j.off = j.buf[:0], 0, 0
		if cap(j.buf) > 1<<20 {
			j.buf = nil
		}
		return
	}
	j.buf = j.buf[:j.mark]
}

// rekey takes the key of the file Compact swapped in. The committer is not
// in an epoch (Compact held the write lock since the last fold), so the
// journal holds nothing the new file lacks.
func (j *journal) rekey(key []byte) {
	if j != nil {
		j.key = binary.BigEndian.Uint64(key)
	}
}

// dirty reports whether the epoch holds journaled writes not yet folded.
func (j *journal) dirty() bool { return j.mark > 0 }

// errJournalFull says a group does not fit in the journal: fold instead.
var errJournalFull = errors.New("journal full")

// writeGroup appends the group gathered since the last one (buf[mark:])
// to the journal as one record and syncs it; wrote says a record was
// written. A group that wrote nothing writes no record. errJournalFull
// leaves the journal as it was.
func (j *journal) writeGroup() (wrote bool, err error) {
	payload := j.buf[j.mark:]
	if len(payload) == 0 {
		return false, nil
	}
	n := int64(journalHeader + len(payload))
	if j.off+n > maxJournal {
		return false, errJournalFull
	}
	if j.f == nil {
		f, direct, err := openJournalFile(j.path)
		if err != nil {
			return false, fmt.Errorf("open the journal %s: %w", j.path, err)
		}
		fi, err := f.Stat()
		if err == nil {
			// The service's user must be able to replay and remove it,
			// also when root's process wrote it.
			err = CopyOwner(j.path, strings.TrimSuffix(j.path, journalSuffix))
		}
		if err != nil {
			_ = f.Close()
			return false, fmt.Errorf("open the journal %s: %w", j.path, err)
		}
		if direct && fi.Size()%directBlock != 0 {
			// Cut short while it grew: its end cannot be written
			// directly; buffered writes need no alignment.
			_ = f.Close()
			if f, err = os.OpenFile(j.path, os.O_RDWR, fileMode); err != nil {
				return false, fmt.Errorf("open the journal %s: %w", j.path, err)
			}
			direct = false
		}
		j.f, j.size, j.direct = f, fi.Size(), direct
	}
	if j.off+n > j.size {
		if err := j.grow(j.off + n); err != nil {
			return false, err
		}
	}
	if err := j.writeRecord(payload); err != nil {
		// What the failed write or sync left on disk is unknown (Linux
		// may have dropped the dirty pages): the next record reopens the
		// file, and rewrites the block at off whole.
		j.drop()
		return false, fmt.Errorf("write the journal %s: %w", j.path, err)
	}
	j.off += n
	j.mark = len(j.buf)
	return true, nil
}

// writeRecord writes the record of payload at off and returns once it is
// on the disk. The record is framed in the block buffer (wbuf). A file
// opened for direct writes (O_DIRECT|O_DSYNC) is written in whole blocks:
// from the one holding off to the one holding the record's end, the first
// beginning with what the file holds before off (tail), the last padded
// with zeros, which the next record overwrites. Rewriting the bytes of the
// records before off with the same bytes cannot tear them, as a write of a
// block leaves each sector old or new; it is what PostgreSQL's write-ahead
// log does with its last page. Otherwise the record alone is written and
// the file synced (fdatasync).
func (j *journal) writeRecord(payload []byte) error {
	start := j.off &^ (directBlock - 1)
	head := int(j.off - start)
	end := head + journalHeader + len(payload)
	size := (end + directBlock - 1) &^ (directBlock - 1)
	if cap(j.wbuf) < size {
		j.wbuf = alignedBlocks(size + 16*directBlock)
	}
	buf := j.wbuf[:size]
	copy(buf, j.tail[:head])
	rec := buf[head:end]
	copy(rec, journalMagic)
	binary.BigEndian.PutUint32(rec[4:], uint32(len(payload)))
	binary.BigEndian.PutUint64(rec[12:], j.key)
	binary.BigEndian.PutUint64(rec[20:], j.base)
	copy(rec[journalHeader:], payload)
	binary.BigEndian.PutUint32(rec[8:], crc32.Checksum(rec[12:], journalCRC))
	clear(buf[end:])
	if j.direct {
		if _, err := j.f.WriteAt(buf, start); err != nil {
			return err
		}
	} else {
		if _, err := j.f.WriteAt(rec, j.off); err != nil {
			return err
		}
		if err := fdatasync(j.f); err != nil {
			return err
		}
	}
	copy(j.tail[:], buf[end&^(directBlock-1):])
	if cap(j.wbuf) > 1<<20 {
		j.wbuf = nil
	}
	return nil
}

// alignedBlocks returns size bytes (a multiple of directBlock) whose
// address is a multiple of directBlock, as O_DIRECT needs.
func alignedBlocks(size int) []byte {
	b := make([]byte, size+directBlock)
	skip := (directBlock - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))%directBlock)) % directBlock
	return b[skip : skip+size : skip+size]
}

// drop closes the journal file after a failed write: the next record
// opens it again.
func (j *journal) drop() {
	_ = j.f.Close()
	j.f, j.size = nil, 0
}

// grow allocates the journal to at least size bytes, in whole chunks of
// zeros, and syncs them and the directory entry.
func (j *journal) grow(size int64) error {
	to := (size + journalChunk - 1) / journalChunk * journalChunk
	zeros := alignedBlocks(journalChunk)
	for at := j.size; at < to; at += journalChunk {
		if _, err := j.f.WriteAt(zeros, at); err != nil {
			return fmt.Errorf("grow the journal %s: %w", j.path, err)
		}
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync the journal %s: %w", j.path, err)
	}
	if j.size == 0 {
		syncDir(filepath.Dir(j.path))
	}
	j.size = to
	return nil
}

// close closes the journal file, and removes it when everything it held
// is folded into the data file.
func (j *journal) close() error {
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
	if j.mark > 0 {
		return fmt.Errorf("the journal %s holds ledger writes that could not be written into the data file; they are replayed when it is next opened", j.path)
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the journal %s: %w", j.path, err)
	}
	return nil
}

// journalFor returns the journal that notes tx's writes: s's when tx is
// its committer's open transaction, nil otherwise.
func (s *Store) journalFor(tx *bbolt.Tx) *journal {
	if j := s.journal; j != nil && j.open.Load() == tx {
		return j
	}
	return nil
}

// note appends one write to the redo of the group being gathered.
func (j *journal) note(kind byte, path [][]byte, key, value []byte, seq uint64) {
	j.buf = append(j.buf, kind, byte(len(path)))
	for _, p := range path {
		j.buf = binary.AppendUvarint(j.buf, uint64(len(p)))
		j.buf = append(j.buf, p...)
	}
	switch kind {
	case redoSeq:
		j.buf = binary.AppendUvarint(j.buf, seq)
	default:
		j.buf = binary.AppendUvarint(j.buf, uint64(len(key)))
		j.buf = append(j.buf, key...)
		if kind == redoPut {
			j.buf = binary.AppendUvarint(j.buf, uint64(len(value)))
			j.buf = append(j.buf, value...)
		}
	}
}

// maxRedoDepth bounds a write's bucket path: the ledger's are two deep.
const maxRedoDepth = 4

// applyRedo applies a redo payload in tx, creating the buckets on each
// write's path. A malformed payload is ErrCorrupt; what it applied before
// the fault is left for the caller to roll back.
func applyRedo(tx *bbolt.Tx, payload []byte) error {
	return parseRedo(payload, func(kind byte, path [][]byte, key, value []byte, seq uint64) error {
		b, err := tx.CreateBucketIfNotExists(path[0])
		if err != nil {
			return err
		}
		for _, p := range path[1:] {
			if b, err = b.CreateBucketIfNotExists(p); err != nil {
				return err
			}
		}
		switch kind {
		case redoPut:
			if len(path) == 2 && string(path[0]) == string(bucketLedger) {
				b.FillPercent = 1 // as appendLedger
			}
			return b.Put(key, value)
		case redoDelete:
			return b.Delete(key)
		default:
			return b.SetSequence(seq)
		}
	})
}

// parseRedo calls fn with each write of a redo payload, in order. Slices
// it passes point into payload.
func parseRedo(payload []byte, fn func(kind byte, path [][]byte, key, value []byte, seq uint64) error) error {
	var path [maxRedoDepth][]byte
	for n := 1; len(payload) > 0; n++ {
		bad := func(what string) error {
			return state.Errorf(state.ErrCorrupt, "redo write %d: %s", n, what)
		}
		if len(payload) < 2 {
			return bad("cut short")
		}
		kind, depth := payload[0], int(payload[1])
		payload = payload[2:]
		if kind < redoPut || kind > redoSeq {
			return bad(fmt.Sprintf("unknown kind %d", kind))
		}
		if depth < 1 || depth > maxRedoDepth {
			return bad(fmt.Sprintf("bucket path of %d names", depth))
		}
		bytesField := func() ([]byte, bool) {
			l, k := binary.Uvarint(payload)
			if k <= 0 || l > uint64(len(payload)-k) {
				return nil, false
			}
			v := payload[k : k+int(l)]
			payload = payload[k+int(l):]
			return v, true
		}
		for i := range depth {
			p, ok := bytesField()
			if !ok || len(p) == 0 {
				return bad("bad bucket name")
			}
			path[i] = p
		}
		var key, value []byte
		var seq uint64
		switch kind {
		case redoSeq:
			v, k := binary.Uvarint(payload)
			if k <= 0 {
				return bad("bad sequence")
			}
			seq, payload = v, payload[k:]
		default:
			var ok bool
			if key, ok = bytesField(); !ok || len(key) == 0 || len(key) > bbolt.MaxKeySize {
				return bad("bad key")
			}
			if kind == redoPut {
				if value, ok = bytesField(); !ok || len(value) > bbolt.MaxValueSize {
					return bad("bad value")
				}
				if value == nil {
					value = []byte{}
				}
			}
		}
		if err := fn(kind, path[:depth], key, value, seq); err != nil {
			return err
		}
	}
	return nil
}

// wbucket is a bucket the ledger's writes go to: a write in the
// committer's open transaction is noted in its journal too.
type wbucket struct {
	*bbolt.Bucket
	j    *journal // nil: not journaled
	path [][]byte
}

// writeBucket returns the bucket at path in tx, creating it and its
// parents as needed.
func (s *Store) writeBucket(tx *bbolt.Tx, path ...[]byte) (wbucket, error) {
	b, err := tx.CreateBucketIfNotExists(path[0])
	if err != nil {
		return wbucket{}, err
	}
	for _, p := range path[1:] {
		if b, err = b.CreateBucketIfNotExists(p); err != nil {
			return wbucket{}, err
		}
	}
	return wbucket{Bucket: b, j: s.journalFor(tx), path: path}, nil
}

// Put puts key=value, as bbolt's Put.
func (b wbucket) Put(key, value []byte) error {
	if err := b.Bucket.Put(key, value); err != nil {
		return err
	}
	if b.j != nil {
		b.j.note(redoPut, b.path, key, value, 0)
	}
	return nil
}

// Delete deletes key, as bbolt's Delete.
func (b wbucket) Delete(key []byte) error {
	if err := b.Bucket.Delete(key); err != nil {
		return err
	}
	if b.j != nil {
		b.j.note(redoDelete, b.path, key, nil, 0)
	}
	return nil
}

// NextSequence moves the bucket's sequence on, as bbolt's.
func (b wbucket) NextSequence() (uint64, error) {
	n, err := b.Bucket.NextSequence()
	if err != nil {
		return 0, err
	}
	if b.j != nil {
		b.j.note(redoSeq, b.path, nil, nil, n)
	}
	return n, nil
}
