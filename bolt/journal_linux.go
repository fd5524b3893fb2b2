package bolt

import (
	"os"
	"syscall"
)

// fdatasync syncs f's data, and of its metadata only what reading the data
// back needs (its size), as bbolt does on Linux.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
