package cli

import (
	"context"
	"errors"
	"fmt"
	"frameindex/origin"
	"frameindex/report"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/area"
	"frameindex/bolt"
	"frameindex/console"
	"frameindex/enrich"
	"frameindex/handlers"
	"frameindex/index"
	"frameindex/internal/gcfloor"
	"frameindex/limiter"
	"frameindex/logging"
	"frameindex/narrate"
	"frameindex/ogc"
	"frameindex/state"
	"frameindex/state/pgstate"

	"github.com/spf13/cobra"
)

type serveOptions struct {
	Data         string
	State        string        // PostgreSQL URL of the shared state; empty: the data file
	RecoverAfter time.Duration // age at which another node's unsettled worded answer is refunded
	Addr         string
	PublicURL    string // the address clients use, for links and Secure cookies; "" builds links from known hosts only
	LogFormat    string
	CPUProfile   string
	GCFloorMiB   int // heap floor of the garbage collector; 0: Go's default pacing
	Limits       limiter.Config
	Node         nodeOptions
	Limiter      string // where the buckets live: "memory" or a Redis URL

	OllamaHost    string
	Model         string
	EmbedModel    string
	AnswerCredits int64

	// Outline is the country's outline (GeoJSON) the web application's
	// Explore map draws; nil draws none. Not a flag: the binary carries it.
	Outline []byte
}

func (o *serveOptions) AddFlags(cmd *cobra.Command) {
	addDataFlag(cmd, &o.Data)
	o.addStateFlags(cmd)
	cmd.Flags().StringVar(&o.Addr, "addr", envOr(envAddr, "127.0.0.1:8080"), "listen address (env "+envAddr+")")
	cmd.Flags().StringVar(&o.PublicURL, "public-url", os.Getenv(envPublicURL),
		"the URL clients reach this server by, e.g. https://maps.example.gov.ng behind a TLS proxy (env "+envPublicURL+"): every link starts with it and cookies are Secure when it is https; without it links name the listen address or a loopback name")
	cmd.Flags().StringVar(&o.LogFormat, "log-format", "json", "log format on stderr: json or text")
	cmd.Flags().StringVar(&o.OllamaHost, "ollama-host", envOr(envOllamaHost, "127.0.0.1:11434"),
		"Ollama server that words answers (env "+envOllamaHost+"); the only network peer the binary calls")
	cmd.Flags().StringVar(&o.Model, "model", envOr(envModel, "llama3.2:3b"), "Ollama model that words answers (env "+envModel+"); empty: no wording")
	cmd.Flags().StringVar(&o.EmbedModel, "embed-model", os.Getenv(envEmbedModel),
		"Ollama embedding model for hybrid retrieval of measures, e.g. nomic-embed-text (env "+envEmbedModel+"); empty: lexical retrieval only")
	cmd.Flags().Int64Var(&o.AnswerCredits, "answer-credits", 1, "credits a worded answer beyond the plan's allowance costs")
	o.Limits = limiter.DefaultConfig()
	for _, b := range []struct {
		name, per string
		l         *limiter.Limit
	}{
		{"key", "per API key", &o.Limits.Key},
		{"org", "per organisation, shared by its keys", &o.Limits.Org},
		{"insight", "per API key on POST /v1/frames/insight, in addition", &o.Limits.Insight},
		{"invalid", "per presented secret that is not a valid key", &o.Limits.Invalid},
	} {
		cmd.Flags().Float64Var(&b.l.PerMinute, "limit-"+b.name+"-rate", b.l.PerMinute, "requests a minute "+b.per+" (sustained)")
		cmd.Flags().IntVar(&b.l.Burst, "limit-"+b.name+"-burst", b.l.Burst, "burst "+b.per+"; 0 switches this bucket off")
	}
	o.Node.addFlags(cmd)
	addLimiterFlag(cmd, &o.Limiter)
	cmd.Flags().IntVar(&o.GCFloorMiB, "gc-floor-mib", 64,
		"let the heap grow this many MiB above the live heap between garbage collections (or double, if more): fewer collections for a little memory; 0 keeps Go's default, as does GOGC or GOMEMLIMIT set in the environment")
	cmd.Flags().StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (for performance work)")
	cmd.Flags().MarkHidden("cpuprofile")
}

func (o *serveOptions) logger(w io.Writer) (*slog.Logger, error) {
	switch o.LogFormat {
	case "json":
		return slog.New(logging.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format must be json or text, not %q", o.LogFormat)
}

func newServeCommand(outline []byte) *cobra.Command {
	o := serveOptions{Outline: outline}
	cmd := &cobra.Command{
		Use:   "serve --data ./frames.db",
		Short: "Serve the API over a data file",
		Long: `Serve the read-only HTTP API over a data file. At start-up the grid is
loaded into memory; organisations and keys are read from the same file.
Administrative commands run against the same --data while serve runs reach
it over its admin socket (DATA.sock, owner-only) and take effect at once.
SIGINT or SIGTERM stops it gracefully: requests in flight finish, then the
file is closed.`,
		Example: `  frameindex serve --data ./frames.db
  FRAMEINDEX_ADDR=0.0.0.0:8080 frameindex serve --data /srv/frames.db --log-format text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.State = adminStateURL(cmd, o.State)
			logw := logging.NewBuffer(cmd.ErrOrStderr())
			defer logw.Close()
			log, err := o.logger(logw)
			if err != nil {
				return err
			}
			return serve(cmd.Context(), o, log, func(addr string, frames int) {
				fmt.Fprintf(cmd.OutOrStdout(), "frameindex: serving %d frames on http://%s\n", frames, addr)
			})
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// live holds what the server serves and swaps it, whole, after an admin
// operation changes the file. Requests read a snapshot and never block.
type live struct {
	store  *bolt.Store
	shared *pgstate.Store // the shared state, when serving with --state
	log    *slog.Logger
	frames atomic.Pointer[index.Index]
	keys   atomic.Pointer[state.Keyring]
	places atomic.Pointer[[]string]
	// wording is set when a model words answers: only then are place
	// names needed.
	wording bool
	// ops runs the admin operations; set once, before serving.
	ops *admin.Ops
	// drifts are the disagreements of the file with the shared state
	// already logged (reportDrift), so each is logged once.
	driftMu sync.Mutex
	drifts  map[admin.Drift]bool
}

// reportDrift gives the shared state a price for each dataset it has
// none for and logs, once each, where this node's file disagrees with it
// on a dataset's price or offer: the shared state's is what every node
// charges and shows. Only with --state.
func (l *live) reportDrift() {
	if l.shared == nil || l.ops == nil {
		return
	}
	ds, err := l.ops.TermsDrift()
	if err != nil {
		l.log.Error("shared state: comparing this node's prices and offers with the shared state's failed", "err", err)
		return
	}
	l.driftMu.Lock()
	defer l.driftMu.Unlock()
	if l.drifts == nil {
		l.drifts = map[admin.Drift]bool{}
	}
	for _, d := range ds {
		if l.drifts[d] {
			continue
		}
		l.drifts[d] = true
		l.log.Warn("this node's data file disagrees with the shared state; the shared state's terms are used and the file's ignored",
			"dataset", d.Dataset, "what", d.What, "file", d.File, "shared", d.Shared)
	}
}

// placeAttributes are the attribute names whose values are place names.
var placeAttributes = []string{"state", "lga", "ward"}

// loadPlaces reads every known place name in the background: it takes
// about a second on a national dataset, too long to hold up start-up or an
// admin command. Until it is done the wording check skips place names.
func (l *live) loadPlaces() {
	if !l.wording {
		return
	}
	go func() {
		names, err := l.store.CategoryValues(placeAttributes)
		if err != nil {
			l.log.Error("reading place names failed; the wording check skips place names", "err", err)
			return
		}
		l.places.Store(&names)
		l.log.Info("place names loaded for the wording check", "count", len(names))
	}()
}

func (l *live) placeNames() []string {
	if p := l.places.Load(); p != nil {
		return *p
	}
	return nil
}

func (l *live) loadGrid() (*index.Index, error) {
	info, runs, frames, err := l.store.Grid()
	if err != nil {
		return nil, err
	}
	var ix *index.Index
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	} else {
		ix = index.NewPolygons(frames)
	}
	l.frames.Store(ix)
	return ix, nil
}

func (l *live) loadKeys() error {
	kr, err := l.keyring()
	if err != nil {
		return err
	}
	l.keys.Store(kr)
	return nil
}

// changed refreshes the snapshot an admin operation altered. A failure
// leaves the previous snapshot in service and is logged.
func (l *live) changed(c admin.Change) {
	var err error
	switch c {
	case admin.ChangeKeys:
		err = l.loadKeys()
	case admin.ChangeDatasets:
		l.loadPlaces()
		l.reportDrift()
	case admin.ChangeGrid:
		var ix *index.Index
		if ix, err = l.loadGrid(); err == nil {
			l.log.Info("grid reloaded", "frames", ix.Len())
		}
	}
	if err != nil {
		l.log.Error("reload after admin change failed; serving the previous state", "err", err)
	}
}

// serve runs the API on o.Data until ctx is done. ready is called once the
// listener is open, with its address.
func serve(ctx context.Context, o serveOptions, log *slog.Logger, ready func(addr string, frames int)) error {
	start := time.Now()
	if o.GCFloorMiB < 0 {
		return fmt.Errorf("--gc-floor-mib must be 0 or more, not %d", o.GCFloorMiB)
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if o.GCFloorMiB > 0 && !gcfloor.Overridden() {
		defer gcfloor.Start(uint64(o.GCFloorMiB) << 20).Stop()
	}
	store, err := bolt.Open(o.Data, bolt.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	l := &live{store: store, log: log}
	// The shared state: the data file's, or PostgreSQL's (--state).
	var shared state.Store = store
	var data handlers.DataStore = store
	var ogcData ogc.Store = store
	if o.State != "" {
		if l.shared, err = openState(ctx, o, store, log); err != nil {
			return err
		}
		defer l.shared.Close()
		shared = l.shared
		data, ogcData = nodeData{l.shared, store}, nodeData{l.shared, store}
		stateCtx, stopState := context.WithCancel(ctx)
		defer stopState()
		l.watchState(stateCtx, o.RecoverAfter)
	}
	ix, err := l.loadGrid()
	if err != nil {
		if errors.Is(err, bolt.ErrNoGrid) {
			return fmt.Errorf("%s holds no grid yet: build one with `frameindex grid build --boundary FILE --data %s`", o.Data, o.Data)
		}
		return err
	}
	if err := l.loadKeys(); err != nil {
		return err
	}

	adminLn, err := admin.Listen(o.Data)
	if err != nil {
		return err
	}
	defer os.Remove(admin.SocketPath(o.Data))
	adminCtx, stopAdmin := context.WithCancel(context.WithoutCancel(ctx))
	adminDone := make(chan error, 1)
	// The admin socket and the web application run the same operations.
	ops := &admin.Ops{Store: store, Changed: l.changed}
	if l.shared != nil {
		ops.State = l.shared
	}
	l.ops = ops
	l.reportDrift()
	caches := areaCaches{places: area.NewPlaces(store, 0), columns: access.NewColumns(access.DefaultColumnBytes),
		reach: access.NewReach(access.DefaultReachBytes)}
	// frameindex ask reaches the server through the admin socket and is
	// answered as the operator, by a second API server without limits
	// sharing the first's caches.
	ops.AskFn = operatorAsk(operatorServer(l.frames.Load, data, store, caches))
	// frameindex report likewise, through a report engine on the same
	// caches.
	ops.ReportFn = operatorReport(operatorReports(l.frames.Load, data, store, caches))
	go func() {
		adminDone <- admin.Serve(adminCtx, adminLn, ops, log)
	}()
	defer func() { stopAdmin(); <-adminDone }()

	if err := o.Limits.Validate(); err != nil {
		return err
	}
	// Listen now: links and cookies name the address actually bound
	// (--addr :0 picks a port).
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	defer ln.Close()
	base, err := origin.New(o.PublicURL, ln.Addr().String())
	if err != nil {
		return err
	}
	// Worded answers reserved before a crash were never delivered.
	if err := recoverPending(shared, log); err != nil {
		return err
	}
	narrator := connectModel(ctx, o, log)
	if narrator != nil {
		l.wording = true
		l.loadPlaces()
	}
	// The web application; the key lookup records each key's last use in
	// memory, written to the file every minute and when the server stops.
	// The console's reports read as each person's key, on the API's caches.
	reports := &report.Engine{Store: data, Scanner: store, Columns: caches.columns, Reach: caches.reach, Places: caches.places, Grid: l.frames.Load}
	con := console.New(console.Config{Ops: ops, Logger: log, Outline: o.Outline, Origin: base, Reports: reports,
		Enrich: func(c enrich.Config) (*enrich.Engine, error) {
			c.Index, c.Places, c.Columns, c.Reach, c.Records, c.Features = l.frames.Load(), caches.places, caches.columns, caches.reach, store, store
			return enrich.New(c)
		}})
	defer con.Close()
	keys := con.Keys(l.keys.Load)
	lim, closeLimiter, err := openLimiter(ctx, o.Limiter, o.Limits, log)
	if err != nil {
		return err
	}
	defer closeLimiter()
	cfg := handlers.Config{
		Areas:   caches.places,
		Columns: caches.columns,
		Reach:   caches.reach,
		Scanner: store,
		Frames:  func() handlers.FrameIndex { return l.frames.Load() },
		Keys:    func() handlers.KeyLookup { return keys },
		Logger:  log,
		Limiter: lim,
		Data:    data,

		Allowance:     shared,
		AnswerCredits: o.AnswerCredits,
		Places:        l.placeNames,

		// OGC API - Features and Tiles under /ogc, for QGIS, GDAL and maps.
		OGC: ogc.New(ogc.Config{Store: ogcData, Origin: base, Grid: func() ogc.Grid {
			if ix := l.frames.Load(); ix != nil {
				return ix
			}
			return nil
		}}),
	}
	if narrator != nil {
		cfg.Narrator = narrator
	}
	if embedder := connectEmbedder(ctx, o, log); embedder != nil {
		cfg.Embedder = embedder
	}
	cfg.Health = nodeHealth(o.Node, store)
	if l.shared != nil {
		// A node that cannot reach the shared state cannot check keys'
		// revocations nor charge: the load balancer should route around it.
		cfg.Health.Checks = append(cfg.Health.Checks, handlers.ReadyCheck{Name: "state", Check: l.shared.Ping})
	}
	ledger := store
	if l.shared != nil {
		ledger = nil // PostgreSQL keeps the ledger
	}
	reg, stopMetrics, err := startMetrics(o.Node, cfg.Health, func() int { return l.frames.Load().Len() }, ledger, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	if reg != nil {
		cfg.Metrics = reg
	}
	api := handlers.New(cfg)
	if narrator != nil {
		// Reports are worded as answers are: reserved, checked, refunded.
		reports.Word = api.WordReport
	}
	h := con.Wrap(api) // the web application under /console/, the API elsewhere
	srv := handlers.NewHTTPServer(o.Addr, h, log)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	b := Build()
	log.Info("serving", "version", b.Version, "commit", b.Commit, "built", b.Date, "go", b.Go, "addr", ln.Addr().String(), "data", o.Data, "frames", ix.Len(),
		"keys", l.keys.Load().Len(), "admin_socket", admin.SocketPath(o.Data),
		"startup_ms", float64(time.Since(start).Microseconds())/1000)
	if ready != nil {
		ready(ln.Addr().String(), ix.Len())
	}

	select {
	case err := <-served:
		return fmt.Errorf("server stopped: %w", err)
	case <-ctx.Done():
	}
	drainFirst(api, o.Node.DrainDelay, log)
	log.Info("shutting down: finishing requests in flight")
	shutCtx, cancel := context.WithTimeout(context.Background(), 35*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("shutdown", "err", err)
	}
	log.Info("stopped")
	return nil
}

// connectModel returns the client of the model that words answers, or nil
// (every answer deterministic) when none is configured or it cannot be
// reached with the model present; either way the log says so.
func connectModel(ctx context.Context, o serveOptions, log *slog.Logger) *narrate.Client {
	if o.Model == "" {
		log.Info("no model configured: answers are deterministic")
		return nil
	}
	client, err := narrate.NewClient(o.OllamaHost, o.Model, nil)
	if err != nil {
		log.Warn("no model: answers are deterministic", "error", err.Error())
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Check(cctx); err != nil {
		log.Warn("no model: answers are deterministic", "error", err.Error())
		return nil
	}
	log.Info("model ready: answers are worded and every number checked", "model", o.Model, "host", client.Host())
	return client
}

// envEmbedModel names the default of --embed-model.
const envEmbedModel = "FRAMEINDEX_EMBED_MODEL"

// connectEmbedder returns the client of the embedding model of hybrid
// retrieval, or nil (lexical retrieval) when none is configured or it
// cannot be reached with the model present; either way the log says so.
func connectEmbedder(ctx context.Context, o serveOptions, log *slog.Logger) *narrate.Client {
	if o.EmbedModel == "" {
		log.Info("no embedding model configured: measures are matched lexically")
		return nil
	}
	client, err := narrate.NewClient(o.OllamaHost, o.EmbedModel, nil)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err = client.Check(cctx)
		cancel()
	}
	if err != nil {
		log.Warn("no embedding model: measures are matched lexically", "error", err.Error())
		return nil
	}
	log.Info("embedding model ready: measures are matched by meaning and wording (hybrid retrieval)", "model", o.EmbedModel, "host", client.Host())
	return client
}
