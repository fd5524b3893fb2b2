//go:build !windows

package ingest

import (
	"context"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openPipe opens a named pipe for reading. Opening a pipe waits until a
// writer opens it too, inside the system call, where nothing can stop it;
// so the open runs in a goroutine, and when ctx ends first the pipe is
// opened for writing for a moment (without waiting), which completes the
// waiting open, whose file is then closed: no goroutine or thread is left
// behind.
func openPipe(ctx context.Context, path string) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
	}
	go func() {
		for {
			// ENXIO until the reader's open has begun; retry.
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			select {
			case r := <-ch:
				if r.f != nil {
					r.f.Close()
				}
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return nil, ctx.Err()
}

// readable reports whether the process may read path.
func readable(path string) error {
	return unix.Access(path, unix.R_OK)
}

// PollableStdin returns standard input f as a file whose reads can be
// interrupted (OpenInput then stops them when its context ends): a
// duplicate of its descriptor in non-blocking mode, which Go's poller
// waits on. A regular file (`< data.csv`) is returned as it is: its reads
// never wait. restore puts the descriptor back in blocking mode; call it
// when done. Errors: the system's.
func PollableStdin(f *os.File) (in *os.File, restore func(), err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode().IsRegular() {
		return f, func() {}, nil
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, nil, err
	}
	in = os.NewFile(uintptr(fd), f.Name())
	return in, func() {
		syscall.SetNonblock(fd, false)
		in.Close()
	}, nil
}
