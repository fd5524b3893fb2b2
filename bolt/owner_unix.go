//go:build !windows

package bolt

import (
	"os"
	"syscall"
)

// CopyOwner gives the file dst the owner and group of the file src, when
// they differ and the process may change them (it runs as root): a file
// that replaces another (a compacted or restored data file) keeps the
// owner the service runs as, even when root ran the command. It does
// nothing otherwise, and on Windows (where the file inherits its folder's
// access list). Errors: the system's, when root could not change them.
func CopyOwner(dst, src string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	if di, err := os.Stat(dst); err == nil {
		if d, ok := di.Sys().(*syscall.Stat_t); ok && d.Uid == st.Uid && d.Gid == st.Gid {
			return nil
		}
	}
	return os.Chown(dst, int(st.Uid), int(st.Gid))
}
