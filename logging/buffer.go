package logging

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// Buffer batches log lines so that a busy server does not pay one write
// system call per request (an access-log line each). Lines reach w within
// flushEvery, when 64 KiB have gathered, and at Close. A line is only lost if
// the process dies within flushEvery of writing it, like nginx's
// access_log buffer=.
type Buffer struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

const flushEvery = 200 * time.Millisecond

// NewBuffer starts a Buffer writing to w; Close it when done.
func NewBuffer(w io.Writer) *Buffer {
	b := &Buffer{bw: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go b.flusher()
	return b
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bw.Write(p)
}

func (b *Buffer) flush() {
	b.mu.Lock()
	b.bw.Flush()
	b.mu.Unlock()
}

func (b *Buffer) flusher() {
	defer close(b.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.flush()
		case <-b.stop:
			b.flush()
			return
		}
	}
}

// Close flushes what is buffered and stops the flusher. Writes after Close
// are buffered but never flushed; call it last.
func (b *Buffer) Close() error {
	close(b.stop)
	<-b.done
	return nil
}
