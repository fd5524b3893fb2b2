package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var gogcLine = regexp.MustCompile(`(?m)^go_gc_gogc_percent (\S+)$`)

// gogc is the collector's percent as the server's own metrics report it.
func gogc(t *testing.T, s *server) int {
	t.Helper()
	m := gogcLine.FindStringSubmatch(scrapeMetrics(t, s.waitLog(t, metricsLine)[1]))
	if m == nil {
		t.Fatal("the metrics lack go_gc_gogc_percent")
	}
	p, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestE2E_GCFloor: serve sets the collector's percent from its small live
// heap (a 64 MiB floor) unless told not to by the flag or by GOGC or
// GOMEMLIMIT in its environment, and refuses a negative floor.
func TestE2E_GCFloor(t *testing.T) {
	metricsFlags := []string{"--metrics-addr", "127.0.0.1:0", "--model", ""}
	t.Run("default floor", func(t *testing.T) {
		srv, _, keys := newServedGrid(t, []string{"full"}, metricsFlags...)
		for range 50 {
			if r := srv.get(t, keys[0], "/v1/frames/at?lat=9.05&lon=7.45"); r.Status != 200 {
				t.Fatalf("/at: %d %+v", r.Status, r.Error)
			}
		}
		// Under a few MB live and 64 MiB of floor: well above Go's 100,
		// and no more than about 1,600, where the runtime's own minimum
		// goal (4 MiB at 100 %) would pass live + 64 MiB.
		if p := gogc(t, srv); p <= 300 || p > 1700 {
			t.Errorf("GOGC percent %d with the default floor, want 300-1,700", p)
		}
	})
	t.Run("floor off", func(t *testing.T) {
		srv, _, _ := newServedGrid(t, nil, append(metricsFlags, "--gc-floor-mib", "0")...)
		if p := gogc(t, srv); p != 100 {
			t.Errorf("GOGC percent %d with --gc-floor-mib 0, want Go's 100", p)
		}
	})
	t.Run("GOGC in the environment", func(t *testing.T) {
		t.Setenv("GOGC", "150")
		srv, _, _ := newServedGrid(t, nil, metricsFlags...)
		if p := gogc(t, srv); p != 150 {
			t.Errorf("GOGC percent %d with GOGC=150 set, want 150", p)
		}
	})
	t.Run("GOMEMLIMIT in the environment", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "1GiB")
		srv, _, _ := newServedGrid(t, nil, metricsFlags...)
		if p := gogc(t, srv); p != 100 {
			t.Errorf("GOGC percent %d with GOMEMLIMIT set, want Go's 100", p)
		}
	})
	t.Run("a negative floor", func(t *testing.T) {
		dir := t.TempDir()
		data := filepath.Join(dir, "frames.db")
		mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
		_, errOut, code := cli(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--gc-floor-mib", "-1")
		if code == 0 || !strings.Contains(errOut, "--gc-floor-mib must be 0 or more, not -1") {
			t.Errorf("serve --gc-floor-mib -1: exit %d\n%s", code, errOut)
		}
	})
}
