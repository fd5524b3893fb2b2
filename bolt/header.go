package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"frameindex/state"
)

// bbolt's meta page (go.etcd.io/bbolt internal/common/meta.go), written in
// the machine's byte order after a 16-byte page header: magic, version,
// page size and flags (uint32 each), the root bucket (root page id and
// sequence), the freelist page id, the high-water page id, the transaction
// id, and an FNV-64a checksum of the 56 bytes before it. Pages 0 and 1 are
// both meta pages; bbolt uses the valid one with the higher transaction id.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	metaSize       = 64
	metaSumOffset  = 56
	minPageSize    = 512
	maxPageSize    = 64 << 10
	headerReadSize = maxPageSize + pageHeaderSize + metaSize
)

// candidatePageSizes are where page 1 is looked for when page 0 cannot be
// read: the page sizes bbolt uses on the systems it supports.
var candidatePageSizes = []int{4096, 8192, 16384, 32768, 65536}

// boltMeta is the part of a meta page that checkHeader uses.
type boltMeta struct {
	version  uint32
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readMeta reads the meta page at off of b. magic reports whether the bbolt
// magic number is there; ok that the checksum matches too.
func readMeta(b []byte, off int) (m boltMeta, magic, ok bool) {
	start := off + pageHeaderSize
	if off < 0 || start+metaSize > len(b) {
		return m, false, false
	}
	p := b[start : start+metaSize]
	ne := binary.NativeEndian
	if ne.Uint32(p[0:4]) != boltMagic {
		return m, false, false
	}
	h := fnv.New64a()
	_, _ = h.Write(p[:metaSumOffset])
	if h.Sum64() != ne.Uint64(p[metaSumOffset:]) {
		return m, true, false
	}
	m = boltMeta{
		version:  ne.Uint32(p[4:8]),
		pageSize: ne.Uint32(p[8:12]),
		pgid:     ne.Uint64(p[40:48]),
		txid:     ne.Uint64(p[48:56]),
	}
	return m, true, true
}

// headerProblem is what parseHeader found wrong: a kind (ErrForeign or
// ErrCorrupt) and a phrase to follow the path.
type headerProblem struct {
	kind error
	what string
}

// parseHeader checks the first bytes of a file of size bytes (b holds at most
// headerReadSize of them) the way bbolt will read them, and says what is
// wrong, if anything: not a bbolt file, both meta pages damaged, an
// unsupported format version, or a file shorter than its meta page says.
func parseHeader(b []byte, size int64) *headerProblem {
	if size == 0 {
		return &headerProblem{ErrForeign, "is empty, not a frameindex data file"}
	}
	magicSeen := false
	var best boltMeta
	found := false
	consider := func(m boltMeta, magic, ok bool, wantPageSize int) {
		magicSeen = magicSeen || magic
		if !ok || (wantPageSize != 0 && int(m.pageSize) != wantPageSize) {
			return
		}
		if !found || m.txid > best.txid {
			best, found = m, true
		}
	}
	m0, magic0, ok0 := readMeta(b, 0)
	consider(m0, magic0, ok0, 0)
	if ok0 && m0.pageSize >= minPageSize && m0.pageSize <= maxPageSize {
		m1, magic1, ok1 := readMeta(b, int(m0.pageSize))
		consider(m1, magic1, ok1, int(m0.pageSize))
	} else {
		for _, ps := range candidatePageSizes {
			m1, magic1, ok1 := readMeta(b, ps)
			consider(m1, magic1, ok1, ps)
		}
	}
	switch {
	case !found && !magicSeen:
		return &headerProblem{ErrForeign, "is not a bbolt database, so not a frameindex data file"}
	case !found:
		return &headerProblem{state.ErrCorrupt, "is corrupt: both bbolt meta pages are damaged"}
	case best.version != boltVersion:
		return &headerProblem{state.ErrCorrupt, fmt.Sprintf("is corrupt or from another bbolt: format version %d, want %d", best.version, boltVersion)}
	case best.pageSize < minPageSize || best.pageSize > maxPageSize:
		return &headerProblem{state.ErrCorrupt, fmt.Sprintf("is corrupt: page size %d", best.pageSize)}
	}
	ps := int64(best.pageSize)
	if size < 2*ps || best.pgid > uint64(size/ps) {
		need := "more"
		if best.pgid <= uint64(1<<62)/uint64(ps) {
			need = fmt.Sprintf("%d", int64(best.pgid)*ps)
		}
		return &headerProblem{state.ErrCorrupt, fmt.Sprintf("is corrupt: truncated to %d bytes, its meta page needs %s", size, need)}
	}
	return nil
}

// checkHeader reads the start of the file at path and returns ErrForeign or
// ErrCorrupt (with the path) if bbolt must not be let loose on it.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open data file %q: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open data file %q: %w", path, err)
	}
	b := make([]byte, min(fi.Size(), headerReadSize))
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("read data file %q: %w", path, err)
	}
	b = b[:n]
	if p := parseHeader(b, fi.Size()); p != nil {
		return state.Errorf(p.kind, "data file %q %s", path, p.what)
	}
	return nil
}
