package enrich

import (
	"context"
	"io"
	"runtime"
	"sync"
	"time"
)

// Progress is how far a run is.
type Progress struct {
	Sites     int   // sites written
	Read      int64 // input bytes read (Reader.Read)
	Size      int64 // input size (0 unknown)
	Elapsed   time.Duration
	Done      bool
	Charges   []int64 // per per-query dataset (Engine.PerQuery), so far
	WithNotes int     // rows written with a note
}

// Stats are a finished run's totals.
type Stats = Progress

// window bounds the sites between the reader and the writer: read and
// not yet written, whatever the workers' speeds.
const window = 512

// Run enriches every site of r with e and writes the rows to w in input
// order, with workers goroutines computing (<= 0: GOMAXPROCS). progress,
// when not nil, is called from the writing goroutine after each row at
// most every interval, and once at the end with Done set. Memory is
// bounded by the window of sites in flight, not by their number. It stops
// at the first read or write error, or when ctx ends (its cause).
func Run(ctx context.Context, r Reader, e *Engine, w Writer, workers int, interval time.Duration, progress func(Progress)) (Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	type job struct {
		seq  int
		site Site
		row  Row
		done chan struct{}
	}
	// order carries the jobs in input order to the writer; work the
	// same jobs to the workers. The writer waits on each in turn.
	order := make(chan *job, window)
	work := make(chan *job, window)
	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		for seq := 0; ; seq++ {
			s, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				readErr = err
				return
			}
			j := &job{seq: seq, site: s, done: make(chan struct{})}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if ctx.Err() == nil {
					j.row = e.Enrich(&j.site)
				}
				close(j.done)
			}
		}()
	}
	start := time.Now()
	st := Stats{Size: r.Size(), Charges: make([]int64, len(e.PerQuery()))}
	last := time.Time{}
	var err error
	for j := range order {
		select {
		case <-j.done:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			err = context.Cause(ctx)
			break
		}
		if err = w.Write(&j.site, &j.row); err != nil {
			cancel(err)
			break
		}
		st.Sites++
		if j.row.Note != "" {
			st.WithNotes++
		}
		for i, c := range j.row.Reads {
			st.Charges[i] += c
		}
		if progress != nil && time.Since(last) >= interval {
			last = time.Now()
			st.Read, st.Elapsed = r.Read(), time.Since(start)
			progress(st)
		}
	}
	cancel(nil)
	// Drain so the reader and workers end.
	for range order {
	}
	wg.Wait()
	if err == nil {
		err = readErr
	}
	st.Read, st.Elapsed, st.Done = r.Read(), time.Since(start), err == nil
	if progress != nil {
		progress(st)
	}
	return st, err
}
