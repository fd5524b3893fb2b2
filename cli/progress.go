package cli

import (
	"fmt"
	"io"
	"os"
	"sync"

	"frameindex/admin"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressFloor is the input size below which a step is too quick to report.
const progressFloor = 16 << 20

// newProgress reports long steps (inputs of 16 MiB and more): a progress bar
// when w is a terminal, otherwise a plain line at every tenth of the way.
func newProgress(w io.Writer) admin.Progress {
	f, isFile := w.(*os.File)
	tty := isFile && term.IsTerminal(int(f.Fd()))
	var (
		mu   sync.Mutex
		step string
		bar  *progressbar.ProgressBar
		last int64 = -1
	)
	return func(s string, done, total int64) {
		if total < progressFloor {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if s != step {
			if bar != nil {
				bar.Finish()
				bar = nil
			}
			step, last = s, -1
		}
		if tty {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription(s), progressbar.OptionShowBytes(true),
					progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
			}
			bar.Set64(done)
			return
		}
		tenth := done * 10 / total
		if tenth != last {
			last = tenth
			fmt.Fprintf(w, "%s: %d%% (%d of %d bytes)\n", s, tenth*10, done, total)
		}
	}
}
