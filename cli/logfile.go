package cli

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// rotatingFile is a log file that rotates itself by size: past max bytes
// it is renamed PATH.1 (PATH.1 to PATH.2, and so on, keeping keep old
// files) and a new one started. The Windows service writes its log there,
// having no journal. Safe for concurrent use.
type rotatingFile struct {
	mu   sync.Mutex
	path string
	max  int64
	keep int
	f    *os.File
	size int64
}

// openRotating opens (appending) or creates the log file at path, mode
// 0600. Errors: the file system's, naming the path.
func openRotating(path string, max int64, keep int) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log file: %w", err)
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past max. A
// failed rotation keeps writing to the current file.
func (r *rotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		r.rotate()
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *rotatingFile) rotate() {
	if err := r.f.Close(); err != nil {
		return
	}
	for i := r.keep - 1; i >= 1; i-- {
		os.Rename(r.path+"."+strconv.Itoa(i), r.path+"."+strconv.Itoa(i+1))
	}
	if r.keep > 0 {
		os.Rename(r.path, r.path+".1")
	} else {
		os.Remove(r.path)
	}
	if err := r.open(); err != nil {
		// Reopen what is there rather than lose the log.
		f, ferr := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if ferr == nil {
			r.f = f
		}
	}
}

// Close closes the file.
func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}
