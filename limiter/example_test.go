package limiter_test

import (
	"fmt"
	"time"

	"frameindex/limiter"
)

func ExampleLimiter_Request() {
	cfg := limiter.DefaultConfig()
	cfg.Key = limiter.Limit{PerMinute: 60, Burst: 2} // small, for the example

	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	l := limiter.New(cfg, limiter.NewMemory(cfg), func() time.Time { return now })

	for range 3 {
		d, err := l.Request("key1", "org1", false)
		if err != nil {
			// errors.Is(err, limiter.ErrUnavailable): serve unmetered, no headers.
			continue
		}
		fmt.Printf("allowed=%v limit=%d remaining=%d reset=%v retry-after=%v\n",
			d.Allowed, d.State.Limit, d.State.Remaining, d.State.Reset, d.State.RetryAfter)
	}
	// Output:
	// allowed=true limit=2 remaining=1 reset=1s retry-after=0s
	// allowed=true limit=2 remaining=0 reset=2s retry-after=0s
	// allowed=false limit=2 remaining=0 reset=2s retry-after=1s
}
