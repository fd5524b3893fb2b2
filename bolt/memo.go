package bolt

import (
	"bytes"
	"sync"
)

// memo remembers what the stored record of each id decoded to, beside the
// record's bytes, so that a record read again unchanged is not decoded
// again. Every data call reads every dataset's description (to find what
// its key may read, and each read dataset's live version), and every
// charge its organisation's record: decoding them was a third of a data
// call's CPU and a quarter of a charge's, where comparing the stored bytes
// with the remembered ones takes tens of nanoseconds.
//
// A value is served only for the very bytes it was decoded from, read in
// the caller's own transaction, so the memo is a cache of a pure function
// and no transaction sees another's record: a write that is rolled back
// after put leaves an entry no stored record matches. Entries are never
// evicted; there is one an id, and ids are organisations, datasets and
// licences (one an organisation and dataset), which a data file holds tens
// to hundreds of.
type memo[T any] struct{ m sync.Map } // id → *memoEntry[T]

type memoEntry[T any] struct {
	raw []byte
	v   T
}

// get returns what raw, the stored record of id, decodes to, when it is
// remembered. Values holding slices are shared: copy them before handing
// them out.
func (c *memo[T]) get(id string, raw []byte) (T, bool) {
	e, ok := c.m.Load(id)
	if !ok || !bytes.Equal(e.(*memoEntry[T]).raw, raw) {
		var zero T
		return zero, false
	}
	return e.(*memoEntry[T]).v, true
}

// put remembers that raw, the record of id, decodes to v. raw is copied:
// bbolt owns the bytes it hands out.
func (c *memo[T]) put(id string, raw []byte, v T) {
	c.m.Store(id, &memoEntry[T]{raw: bytes.Clone(raw), v: v})
}
