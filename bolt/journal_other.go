//go:build !linux

package bolt

import "os"

// fdatasync syncs f (fsync where fdatasync is not to be had).
func fdatasync(f *os.File) error { return f.Sync() }

// openJournalFile opens the journal for buffered writes, synced by
// fdatasync.
func openJournalFile(path string) (f *os.File, direct bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	return f, false, err
}
