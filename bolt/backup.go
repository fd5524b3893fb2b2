package bolt

import (
	"context"
	"io"

	bbolt "go.etcd.io/bbolt"
)

// Snapshot writes a consistent copy of the whole data file to w: the file
// as one read transaction sees it, written out by bbolt's own copy
// (Tx.WriteTo), so that writers go on meanwhile and the copy holds every
// transaction committed before it began and none after. size, when not
// nil, is called with the number of bytes the copy will have before the
// first byte is written (a server announces it to its client). Snapshot
// returns the bytes written.
//
// The copy keeps the file's free pages: it is as large as the file. It is
// a valid data file as it stands (both meta pages are written for the
// snapshot's transaction).
//
// ctx is checked before every write: when it ends, Snapshot stops and
// returns ctx's error, and w holds a partial copy the caller must discard.
// Errors: ctx's, w's (wrapped with the path of this file), ErrCorrupt.
// Safe for concurrent use.
func (s *Store) Snapshot(ctx context.Context, w io.Writer, size func(int64)) (int64, error) {
	s.settled() // the copy holds every charge answered before it began
	var n int64
	err := s.view(func(tx *bbolt.Tx) error {
		if size != nil {
			size(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(&ctxWriter{ctx: ctx, w: w})
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	})
	return n, err
}

// ctxWriter fails every write once ctx has ended. It deliberately has no
// ReadFrom, so that io.Copy writes through Write in bounded chunks (32 KiB),
// each of which checks ctx.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
