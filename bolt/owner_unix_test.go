//go:build !windows

package bolt

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestStore_CompactKeepsOwner: root compacting the service's file leaves
// it the service's, as restore does with CopyOwner.
func TestStore_CompactKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root; root absent")
	}
	const nobody = 65534
	s := opsStore(t)
	if err := os.Chown(s.Path(), nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != nobody {
		t.Fatalf("owner %d:%d after compaction, want %d:%d", st.Uid, st.Gid, nobody, nobody)
	}
}
