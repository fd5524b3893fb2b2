//go:build !unix

package enrich_test

import "time"

// cpuTime is unknown here: 0.
func cpuTime() time.Duration { return 0 }
