package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"frameindex/bolt"
	"frameindex/handlers"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options describe the node to a Registry.
type Options struct {
	// Node, Version and Commit label frameindex_build_info.
	Node, Version, Commit string
	// Datasets lists the datasets served, read at each scrape for
	// frameindex_dataset_info; nil leaves the series out.
	Datasets func() ([]handlers.DatasetVersion, error)
	// Frames returns the number of frames of the grid served, read at each
	// scrape; nil leaves frameindex_grid_frames out.
	Frames func() int
	// Ledger returns the data file's group committer's counts, read at
	// each scrape; nil (a node whose ledger is in PostgreSQL) leaves them
	// out.
	Ledger func() bolt.LedgerStats
	// NoProcess leaves out the Go runtime and process collectors (tests).
	NoProcess bool
}

// Registry holds a node's metrics. It implements handlers.Metrics; all its
// methods are safe for concurrent use and never block.
type Registry struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	rate         *prometheus.CounterVec
	charges      prometheus.Counter
	credits      prometheus.Counter
	leftOut      prometheus.Counter
	wording      *prometheus.CounterVec
	scrapeErrors prometheus.Counter
}

var _ handlers.Metrics = (*Registry)(nil)

// latencyBuckets span a point lookup (well under a millisecond) to the
// 30-second request budget.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// New returns a Registry for the node o describes, with every metric
// registered. It does not fail.
func New(o Options) *Registry {
	r := &Registry{reg: prometheus.NewRegistry()}
	r.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "frameindex_http_requests_total",
		Help: "Requests answered on the API listener, by route pattern and status.",
	}, []string{"route", "status"})
	r.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "frameindex_http_request_duration_seconds",
		Help:    "Time to answer a request on the API listener, by route pattern.",
		Buckets: latencyBuckets,
	}, []string{"route"})
	r.rate = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "frameindex_ratelimit_decisions_total",
		Help: "Rate-limit decisions by bucket kind (request, insight, invalid) and outcome (allowed, refused, unmetered).",
	}, []string{"kind", "outcome"})
	r.charges = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frameindex_charges_total",
		Help: "Per-query datasets charged to an organisation (one per dataset per request).",
	})
	r.credits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frameindex_charged_credits_total",
		Help: "Credits taken by per-query dataset charges.",
	})
	r.leftOut = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frameindex_charges_left_out_total",
		Help: "Per-query datasets left out of an answer because the credits did not cover them.",
	})
	r.wording = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "frameindex_wording_total",
		Help: "Answers a model was to word, by outcome (kept, discarded, not_worded) and reason.",
	}, []string{"outcome", "reason"})
	r.scrapeErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "frameindex_scrape_errors_total",
		Help: "Scrapes that could not read the datasets served.",
	})
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "frameindex_build_info",
		Help:        "The node's build; always 1.",
		ConstLabels: prometheus.Labels{"version": o.Version, "commit": o.Commit, "node": o.Node},
	})
	build.Set(1)
	r.reg.MustRegister(r.requests, r.latency, r.rate, r.charges, r.credits, r.leftOut, r.wording, r.scrapeErrors, build)
	if o.Frames != nil {
		r.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "frameindex_grid_frames",
			Help: "Frames of the grid the node serves.",
		}, func() float64 { return float64(o.Frames()) }))
	}
	if o.Ledger != nil {
		counter := func(name, help string, v func(bolt.LedgerStats) float64) prometheus.Collector {
			return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
				func() float64 { return v(o.Ledger()) })
		}
		r.reg.MustRegister(
			counter("frameindex_ledger_journal_records_total",
				"Journal records written by the ledger's group committer, one per group of ledger writes made durable together.",
				func(l bolt.LedgerStats) float64 { return float64(l.Groups) }),
			counter("frameindex_ledger_journal_writes_total",
				"Ledger writes (charges, answer reservations, refunds) carried by those records; divided by the records, the mean group.",
				func(l bolt.LedgerStats) float64 { return float64(l.Writes) }),
			counter("frameindex_ledger_journal_write_seconds_total",
				"Time spent writing those records to the disk, syncs included; divided by the records, the disk's latency.",
				func(l bolt.LedgerStats) float64 { return l.WriteTime.Seconds() }),
			counter("frameindex_ledger_folds_total",
				"Times the journaled ledger writes were committed into the data file.",
				func(l bolt.LedgerStats) float64 { return float64(l.Folds) }),
		)
	}
	if o.Datasets != nil {
		r.reg.MustRegister(&datasetCollector{list: o.Datasets, errors: r.scrapeErrors})
	}
	if !o.NoProcess {
		r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return r
}

// Request counts a finished request (handlers.Metrics).
func (r *Registry) Request(route string, status int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	r.requests.WithLabelValues(route, statusText(status)).Inc()
	r.latency.WithLabelValues(route).Observe(took.Seconds())
}

// RateLimit counts a rate-limit decision (handlers.Metrics).
func (r *Registry) RateLimit(kind, outcome string) { r.rate.WithLabelValues(kind, outcome).Inc() }

// Charges counts a request's settled per-query datasets (handlers.Metrics).
func (r *Registry) Charges(charged int, credits int64, leftOut int) {
	r.charges.Add(float64(charged))
	r.credits.Add(float64(credits))
	r.leftOut.Add(float64(leftOut))
}

// Wording counts the outcome of a wording step (handlers.Metrics).
func (r *Registry) Wording(outcome, reason string) { r.wording.WithLabelValues(outcome, reason).Inc() }

// Gatherer returns the registry, for tests and for adding collectors.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Register adds a collector (the shared state's or the limiter's own
// metrics). Errors: prometheus.AlreadyRegisteredError and the like.
func (r *Registry) Register(c prometheus.Collector) error { return r.reg.Register(c) }

// Handler serves the metrics in the Prometheus exposition formats.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{Registry: r.reg, Timeout: 10 * time.Second})
}

// statusText is the decimal text of an HTTP status, without allocating
// for the common ones.
func statusText(status int) string {
	switch status {
	case 200:
		return "200"
	case 400:
		return "400"
	case 401:
		return "401"
	case 403:
		return "403"
	case 404:
		return "404"
	case 429:
		return "429"
	case 500:
		return "500"
	case 503:
		return "503"
	}
	return strconv.Itoa(status)
}

// datasetCollector reads the datasets served at each scrape.
type datasetCollector struct {
	list   func() ([]handlers.DatasetVersion, error)
	errors prometheus.Counter
}

var datasetDesc = prometheus.NewDesc("frameindex_dataset_info",
	"A dataset the node serves, with its version; always 1. Nodes that disagree on a version serve different data.",
	[]string{"dataset", "version"}, nil)

func (c *datasetCollector) Describe(ch chan<- *prometheus.Desc) { ch <- datasetDesc }

func (c *datasetCollector) Collect(ch chan<- prometheus.Metric) {
	ds, err := c.list()
	if err != nil {
		c.errors.Inc()
		return
	}
	for _, d := range ds {
		ch <- prometheus.MustNewConstMetric(datasetDesc, prometheus.GaugeValue, 1, d.ID, strconv.Itoa(d.Version))
	}
}

// Server is the metrics listener.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Listen opens the metrics listener on addr and serves /metrics from r
// (everything else is 404) until Close. Errors: those of net.Listen, with
// the address.
func Listen(addr string, r *Registry, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errors.New("metrics listener on " + addr + ": " + err.Error())
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", r.Handler())
	s := &Server{ln: ln, done: make(chan error, 1), srv: &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the listener, letting scrapes in flight finish within ctx.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
