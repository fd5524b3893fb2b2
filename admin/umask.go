//go:build !windows

package admin

import (
	"os"
	"syscall"
)

// umask sets the process's file mode creation mask and returns the old one.
// Listen uses it so that the admin socket is owner-only from the moment it
// exists.
func umask(mask int) int { return syscall.Umask(mask) }

// restrictSocket makes the admin socket owner-only (mode 0600): a second
// guard after the umask, for unusual file systems.
func restrictSocket(path string) error { return os.Chmod(path, 0o600) }
