package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"frameindex/limiter"
	"frameindex/limiter/redisstore"
)

// envLimiter names the default of serve's --limiter.
const envLimiter = "FRAMEINDEX_LIMITER"

// addLimiterFlag adds serve's --limiter, where the rate-limit buckets live.
func addLimiterFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "limiter", os.Getenv(envLimiter),
		`where rate-limit buckets live (env `+envLimiter+`): empty or "memory" = in this process; `+
			`redis://[user:password@]host:port/db, rediss://… (TLS) or unix:///path?db=N = a Redis or Valkey server `+
			`shared by every node that names it, so the limits hold across nodes`)
}

// openLimiter returns serve's limiter over the store rawURL names, and a
// function that releases the store. A Redis server that does not answer at
// start-up is not an error: requests pass unmetered until it does (spec
// Limits 3), and the log says so. The log names the store without its
// password. The error names a URL that cannot be used.
func openLimiter(ctx context.Context, rawURL string, cfg limiter.Config, log *slog.Logger) (*limiter.Limiter, func(), error) {
	if rawURL == "" || rawURL == "memory" {
		log.Info("rate limits: buckets held in this process (each node meters on its own)", "limiter", "memory")
		return limiter.New(cfg, limiter.NewMemory(cfg), nil), func() {}, nil
	}
	store, err := redisstore.New(rawURL, redisstore.Options{Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("--limiter: %w (want \"memory\", redis://host:port/db, rediss://… or unix:///path)", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := store.Ping(pctx); err != nil {
		log.Warn("rate limits: Redis does not answer; requests pass unmetered until it does",
			"limiter", store.String(), "error", err.Error())
	} else {
		log.Info("rate limits: buckets shared in Redis", "limiter", store.String())
	}
	return limiter.New(cfg, store, nil), func() { store.Close() }, nil
}
