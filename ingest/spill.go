package ingest

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// spillSorter orders the features of an import by frame, in bounded memory:
// features gather in an arena until it holds spillBytes, are then sorted by
// (frame, arrival) and written to a temporary run file, and the runs are
// merged at the end. Features of one frame keep their input order, so the
// result is the same as sorting everything in memory. Memory is the arena
// plus one read buffer per run; temporary files are removed by close.
type spillSorter struct {
	dir   string // where runs go: a private temporary directory, made on first spill
	limit int    // arena bytes before a spill
	recs  []spillRec
	arena []byte
	runs  []string
	seq   uint64
	n     int64 // features added
}

type spillRec struct {
	frame uint64
	seq   uint64
	off   uint32
	n     uint32
}

// spillBytes is the arena size at which features spill to a run file: big
// enough that 10 million small footprints make a handful of runs, small
// enough to keep an import's peak memory flat whatever its input size.
const spillBytes = 32 << 20

// maxFeatureBytes bounds one feature's compact text.
const maxFeatureBytes = 64 << 20

func newSpillSorter(limit int) *spillSorter {
	return &spillSorter{limit: limit}
}

// add keeps a copy of feature f, located on frame.
func (s *spillSorter) add(frame uint64, f []byte) error {
	if len(f) > maxFeatureBytes {
		return fmt.Errorf("a feature of %d bytes is larger than the limit of %d MiB", len(f), maxFeatureBytes>>20)
	}
	if len(s.arena)+len(f) > s.limit && len(s.recs) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if s.arena == nil {
		// The arena never grows past its limit (but for one feature larger
		// than it), so it is allocated once at its full size.
		s.arena = make([]byte, 0, max(s.limit, len(f)))
	}
	s.recs = append(s.recs, spillRec{frame: frame, seq: s.seq, off: uint32(len(s.arena)), n: uint32(len(f))})
	s.arena = append(s.arena, f...)
	s.seq++
	s.n++
	return nil
}

func (s *spillSorter) sortRecs() {
	slices.SortFunc(s.recs, func(a, b spillRec) int {
		if c := cmp.Compare(a.frame, b.frame); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// spill writes the arena as one sorted run: per feature the frame (8
// bytes), the arrival number (8), the length (4) and the text.
func (s *spillSorter) spill() (err error) {
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "frameindex-import-"); err != nil {
			return fmt.Errorf("a temporary directory for sorting features: %w", err)
		}
	}
	s.sortRecs()
	name := fmt.Sprintf("%s/run-%04d", s.dir, len(s.runs))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("sorting features: %w", err)
	}
	s.runs = append(s.runs, name)
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [20]byte
	for _, r := range s.recs {
		binary.BigEndian.PutUint64(hdr[0:], r.frame)
		binary.BigEndian.PutUint64(hdr[8:], r.seq)
		binary.BigEndian.PutUint32(hdr[16:], r.n)
		w.Write(hdr[:])
		w.Write(s.arena[r.off : r.off+r.n])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("sorting features: writing %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sorting features: writing %s: %w", name, err)
	}
	s.recs, s.arena = s.recs[:0], s.arena[:0]
	return nil
}

// featureIter yields the sorted features: frame and text, the text valid
// until the next call. ok is false at the end.
type featureIter interface {
	next() (frame uint64, f []byte, ok bool, err error)
}

// iter returns the features in order. No add may follow.
func (s *spillSorter) iter() (featureIter, error) {
	if len(s.runs) == 0 {
		s.sortRecs()
		return &memIter{s: s}, nil
	}
	if len(s.recs) > 0 {
		if err := s.spill(); err != nil {
			return nil, err
		}
	}
	s.arena, s.recs = nil, nil // the runs hold everything now
	m := &mergeIter{}
	for _, name := range s.runs {
		f, err := os.Open(name)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("sorting features: %w", err)
		}
		r := &runReader{f: f, r: bufio.NewReaderSize(f, 256<<10)}
		m.files = append(m.files, f)
		if ok, err := r.advance(); err != nil {
			m.close()
			return nil, err
		} else if ok {
			m.h = append(m.h, r)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// close removes the temporary files.
func (s *spillSorter) close() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

type memIter struct {
	s *spillSorter
	i int
}

func (m *memIter) next() (uint64, []byte, bool, error) {
	if m.i >= len(m.s.recs) {
		return 0, nil, false, nil
	}
	r := m.s.recs[m.i]
	m.i++
	return r.frame, m.s.arena[r.off : r.off+r.n : r.off+r.n], true, nil
}

type runReader struct {
	f     *os.File
	r     *bufio.Reader
	frame uint64
	seq   uint64
	buf   []byte
}

// advance reads the next record of the run; false at its end.
func (r *runReader) advance() (bool, error) {
	var hdr [20]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("sorting features: reading %s: %w", r.f.Name(), err)
	}
	r.frame = binary.BigEndian.Uint64(hdr[0:])
	r.seq = binary.BigEndian.Uint64(hdr[8:])
	n := binary.BigEndian.Uint32(hdr[16:])
	if n > maxFeatureBytes {
		return false, errors.New("sorting features: a run file is corrupt")
	}
	r.buf = slices.Grow(r.buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		return false, fmt.Errorf("sorting features: reading %s: %w", r.f.Name(), err)
	}
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if h[i].frame != h[j].frame {
		return h[i].frame < h[j].frame
	}
	return h[i].seq < h[j].seq
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type mergeIter struct {
	h     runHeap
	files []*os.File
	out   []byte
	last  *runReader // advanced at the next call, so its buffer stays valid until then
}

func (m *mergeIter) next() (uint64, []byte, bool, error) {
	if m.last != nil {
		ok, err := m.last.advance()
		if err != nil {
			return 0, nil, false, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
		m.last = nil
	}
	if len(m.h) == 0 {
		m.close()
		return 0, nil, false, nil
	}
	r := m.h[0]
	m.last = r
	return r.frame, r.buf, true, nil
}

func (m *mergeIter) close() {
	for _, f := range m.files {
		f.Close()
	}
	m.files = nil
}
