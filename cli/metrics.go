package cli

import (
	"context"
	"log/slog"
	"os"
	"time"

	"frameindex/bolt"
	"frameindex/handlers"
	"frameindex/metrics"

	"github.com/spf13/cobra"
)

// Environment variables of the running-several-nodes flags.
const (
	envMetricsAddr = "FRAMEINDEX_METRICS_ADDR"
	envNode        = "FRAMEINDEX_NODE"
)

// nodeOptions are serve's flags for running behind a load balancer:
// the node's name, the metrics listener and the drain on SIGTERM.
type nodeOptions struct {
	Node        string
	MetricsAddr string
	DrainDelay  time.Duration
}

func (o *nodeOptions) addFlags(cmd *cobra.Command) {
	host, _ := os.Hostname()
	cmd.Flags().StringVar(&o.Node, "node", envOr(envNode, host), "this node's name in /healthz and the metrics (env "+envNode+")")
	cmd.Flags().StringVar(&o.MetricsAddr, "metrics-addr", os.Getenv(envMetricsAddr),
		"serve Prometheus metrics at http://ADDR/metrics on a listener of their own (env "+envMetricsAddr+"); empty: none. Bind it to a private address")
	cmd.Flags().DurationVar(&o.DrainDelay, "drain-delay", 5*time.Second,
		"on SIGTERM, when /readyz was asked within the last minute (a load balancer watches), answer it 503 for this long before closing the listener")
}

// nodeHealth is the health configuration of a node serving store.
func nodeHealth(o nodeOptions, store *bolt.Store) handlers.Health {
	b := Build()
	return handlers.Health{Node: o.Node, Version: b.Version, Commit: b.Commit,
		Datasets: func() ([]handlers.DatasetVersion, error) { return datasetVersions(store) }}
}

// datasetVersions lists the datasets of store with their versions.
func datasetVersions(store *bolt.Store) ([]handlers.DatasetVersion, error) {
	ds, err := store.Datasets()
	if err != nil {
		return nil, err
	}
	out := make([]handlers.DatasetVersion, len(ds))
	for i, d := range ds {
		out[i] = handlers.DatasetVersion{ID: d.ID, Version: d.Version, ImportedAt: d.ImportedAt}
	}
	return out, nil
}

// startMetrics opens the metrics listener when o asks for one. It returns
// nil and a no-op stop when it does not. Errors: the listener's.
// ledger, when not nil, is the data file whose group committer keeps the
// ledger (nil when PostgreSQL does).
func startMetrics(o nodeOptions, h handlers.Health, frames func() int, ledger *bolt.Store, log *slog.Logger) (*metrics.Registry, func(), error) {
	if o.MetricsAddr == "" {
		return nil, func() {}, nil
	}
	opts := metrics.Options{Node: h.Node, Version: h.Version, Commit: h.Commit, Datasets: h.Datasets, Frames: frames}
	if ledger != nil {
		opts.Ledger = ledger.LedgerStats
	}
	reg := metrics.New(opts)
	srv, err := metrics.Listen(o.MetricsAddr, reg, log)
	if err != nil {
		return nil, nil, err
	}
	log.Info("metrics listener", "addr", srv.Addr(), "path", "/metrics")
	return reg, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Close(ctx)
	}, nil
}

// drainFirst marks api as draining and, when a load balancer probed
// /readyz within the last minute, waits delay so that it sees the 503 and
// sends no new requests before the listener closes. A server nothing
// probes stops at once.
func drainFirst(api *handlers.Server, delay time.Duration, log *slog.Logger) {
	api.Drain()
	if delay <= 0 || time.Since(api.LastReadyProbe()) > time.Minute {
		return
	}
	log.Info("draining: /readyz answers 503 before the listener closes", "delay", delay.String())
	time.Sleep(delay)
}
