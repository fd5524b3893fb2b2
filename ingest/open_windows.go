package ingest

import (
	"context"
	"os"
)

// openPipe opens a named pipe: Windows has no named pipes in the file
// system, so this is a plain open.
func openPipe(_ context.Context, path string) (*os.File, error) { return os.Open(path) }

// readable is decided by opening the file, on Windows.
func readable(string) error { return nil }

// PollableStdin returns f unchanged on Windows: its reads are stopped by
// abandoning them (see OpenInput).
func PollableStdin(f *os.File) (*os.File, func(), error) { return f, func() {}, nil }
