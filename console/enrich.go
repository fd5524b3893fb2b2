package console

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"frameindex/access"
	"frameindex/enrich"
	"frameindex/state"
)

// Batch enrichment as a job of the organisation (issue 25, part 4): a
// person uploads a file of sites, the server enriches it as the
// organisation reads (package enrich, the command line's engine), quotes
// the per-query charges (access.Price of the frames each ring read, summed
// over the sites), and releases the result for download only once the
// person has accepted the quote and the charge went through, in one
// Charge call. Jobs live in memory: a bounded table, one running job per
// organisation, files deleted after the download or when they expire.

// Enricher builds an enrichment engine over the serving grid and its
// caches: cfg carries the job's radii, measures, features dataset,
// polygons, the organisation's readable datasets and whether per-query
// datasets may be read; the function adds the grid and the caches.
// cli/serve.go wires it; nil means no enrichment page.
type Enricher func(cfg enrich.Config) (*enrich.Engine, error)

// Limits of the jobs.
const (
	maxEnrichUpload = 32 << 20               // bytes of a site file
	maxEnrichJobs   = 32                     // jobs in the table, of all organisations
	enrichKeep      = time.Hour              // a finished job's files, undownloaded
	enrichInterval  = 250 * time.Millisecond // progress updates while running
)

// Job states.
const (
	jobRunning = "running" // enriching
	jobQuoted  = "quoted"  // enriched; waits for the quote to be accepted
	jobReady   = "ready"   // charged (or free): the result may be downloaded
	jobFailed  = "failed"
)

type enrichJob struct {
	id, org, user, name string
	dir                 string // holds the upload and the result
	out                 string
	created             time.Time

	mu       sync.Mutex
	state    string
	finished time.Time
	progress enrich.Progress
	perQuery []string
	errMsg   string
	charged  bool
}

// enrichJobs is the job table.
type enrichJobs struct {
	mu   sync.Mutex
	jobs map[string]*enrichJob
}

// jobStatus is a job as the page polls it.
type jobStatus struct {
	ID       string        `json:"id"`
	State    string        `json:"state"`
	Name     string        `json:"name"`
	Sites    int           `json:"sites"`
	Percent  int           `json:"percent,omitempty"`
	Elapsed  float64       `json:"elapsedSeconds"`
	Notes    int           `json:"rowsWithNotes,omitempty"`
	Quote    []quoteLine   `json:"quote,omitempty"`
	Total    int64         `json:"totalCredits"`
	Charged  bool          `json:"charged,omitempty"`
	Error    *enrichErrMsg `json:"error,omitempty"`
	Download string        `json:"download,omitempty"`
}

type quoteLine struct {
	Dataset string `json:"dataset"`
	Credits int64  `json:"credits"`
}

type enrichErrMsg struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (s *Server) enrichRoutes() {
	m := s.mux
	m.HandleFunc("GET /console/enrich", s.authed(s.handleEnrichPage, false))
	m.HandleFunc("POST /console/enrich/jobs", s.authed(s.handleEnrichUpload, false))
	m.HandleFunc("GET /console/enrich/jobs/{id}", s.authed(s.handleEnrichStatus, false))
	m.HandleFunc("POST /console/enrich/jobs/{id}/run", s.authed(s.handleEnrichRun, false))
	m.HandleFunc("GET /console/enrich/jobs/{id}/download", s.authed(s.handleEnrichDownload, false))
}

// enrichPage is the page's data.
type enrichPage struct {
	Available bool
	Measures  []string
	Defaults  string
	MaxMiB    int
}

func (s *Server) handleEnrichPage(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Enrich sites", "enrich")
	d := enrichPage{Available: s.enricher != nil, MaxMiB: maxEnrichUpload >> 20, Defaults: strings.Join(enrich.DefaultMeasures, ",")}
	if d.Available {
		readable, err := s.state.Readable(state.Key{OrgID: requestOf(r).org})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, a := range readable {
			for _, at := range a.Dataset.Attributes {
				if at.Type == state.TypeNumber {
					m := a.Dataset.ID + "." + at.Name
					if a.PerQuery {
						m += " (per query)"
					}
					d.Measures = append(d.Measures, m)
				}
			}
		}
	}
	p.Data = d
	s.render(w, r, http.StatusOK, "enrich", p)
}

// writeJobJSON answers the page's script.
func writeJobJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeJobError(w http.ResponseWriter, status int, code, msg string) {
	writeJobJSON(w, status, map[string]any{"error": enrichErrMsg{code, msg}})
}

// handleEnrichUpload takes a site file as the request body (the name, the
// radii, the measures and the features dataset in the query), checks the
// limits and the measures, and starts the job.
func (s *Server) handleEnrichUpload(w http.ResponseWriter, r *http.Request) {
	if s.enricher == nil {
		writeJobError(w, http.StatusNotFound, "not_found", "enrichment is not available on this server")
		return
	}
	rq := requestOf(r)
	q := r.URL.Query()
	name := filepath.Base(strings.TrimSpace(q.Get("name")))
	ext := strings.ToLower(filepath.Ext(name))
	if ext != ".csv" && ext != ".geojson" && ext != ".json" && ext != ".gpkg" {
		writeJobError(w, http.StatusBadRequest, enrich.CodeInvalid, "the site file must be .csv (lon and lat columns), .geojson or .gpkg")
		return
	}
	outExt := ".csv"
	switch q.Get("format") {
	case "geojson":
		outExt = ".geojson"
	case "gpkg":
		outExt = ".gpkg"
	}
	radii, err := parseJobRadii(q.Get("radius"))
	if err != nil {
		writeJobError(w, http.StatusBadRequest, enrich.CodeInvalid, err.Error())
		return
	}
	var measures []string
	for _, m := range strings.Split(q.Get("measures"), ",") {
		if m = strings.TrimSpace(m); m != "" {
			measures = append(measures, m)
		}
	}
	// One running job per organisation; a bounded table.
	job, err := s.enrichJobs.add(rq.org, rq.user, name, s.now())
	if err != nil {
		w.Header().Set("Retry-After", "10")
		writeJobError(w, http.StatusTooManyRequests, "rate_limited", err.Error())
		return
	}
	fail := func(status int, code, msg string) {
		s.enrichJobs.remove(job)
		writeJobError(w, status, code, msg)
	}
	in := filepath.Join(job.dir, "sites"+ext)
	f, err := os.Create(in)
	if err != nil {
		fail(http.StatusInternalServerError, "internal", "the upload could not be stored")
		s.log.Error("console: storing an enrichment upload failed", "err", err)
		return
	}
	n, err := io.Copy(f, http.MaxBytesReader(w, r.Body, maxEnrichUpload))
	f.Close()
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		fail(http.StatusRequestEntityTooLarge, enrich.CodeInvalid, fmt.Sprintf("the site file is over %d MiB: split it", maxEnrichUpload>>20))
		return
	case err != nil:
		fail(http.StatusBadRequest, enrich.CodeInvalid, "the upload was cut short: "+err.Error())
		return
	case n == 0:
		fail(http.StatusBadRequest, enrich.CodeInvalid, "the site file is empty")
		return
	}
	readable, err := s.state.Readable(state.Key{OrgID: rq.org})
	if err != nil {
		fail(http.StatusInternalServerError, "internal", "the organisation's datasets could not be read")
		return
	}
	rd, err := enrich.Open(in, enrich.Options{LonColumn: q.Get("lonColumn"), LatColumn: q.Get("latColumn")})
	if err != nil {
		fail(http.StatusBadRequest, enrich.CodeInvalid, strings.ReplaceAll(err.Error(), in, name))
		return
	}
	e, err := s.enricher(enrich.Config{Readable: readable, Radii: radii, Measures: measures, Near: q.Get("near"),
		PerQuery: true, Polygons: rd.Features()})
	var ee *enrich.Error
	if errors.As(err, &ee) {
		rd.Close()
		fail(http.StatusBadRequest, ee.Code, ee.Message)
		return
	}
	if err != nil {
		rd.Close()
		fail(http.StatusInternalServerError, "internal", "the enrichment could not start")
		s.log.Error("console: building an enrichment engine failed", "err", err)
		return
	}
	job.out = filepath.Join(job.dir, "enriched"+outExt)
	wr, abort, err := enrich.Create(job.out, enrich.Layout{Header: rd.Header(), Features: rd.Features(), Figures: e.Columns()})
	if err != nil {
		rd.Close()
		if errors.As(err, &ee) {
			fail(http.StatusBadRequest, ee.Code, ee.Message)
		} else {
			fail(http.StatusInternalServerError, "internal", "the result file could not be created")
		}
		return
	}
	job.perQuery = e.PerQuery()
	go s.runEnrichJob(job, rd, e, wr, abort)
	writeJobJSON(w, http.StatusAccepted, s.enrichJobs.status(job))
}

// runEnrichJob enriches the upload; the job is then quoted (or ready when
// nothing is charged) or failed.
func (s *Server) runEnrichJob(job *enrichJob, rd enrich.Reader, e *enrich.Engine, wr enrich.Writer, abort func()) {
	defer rd.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	st, err := enrich.Run(ctx, rd, e, wr, 0, enrichInterval, func(p enrich.Progress) {
		job.mu.Lock()
		job.progress = p
		job.mu.Unlock()
	})
	if err == nil {
		err = wr.Close()
	}
	job.mu.Lock()
	defer job.mu.Unlock()
	job.finished = s.now()
	if err != nil {
		abort()
		job.state, job.errMsg = jobFailed, "the enrichment failed: "+strings.ReplaceAll(err.Error(), job.dir+string(os.PathSeparator), "")
		return
	}
	job.progress = st
	job.state = jobQuoted
	if total(st.Charges) == 0 {
		job.state = jobReady
	}
}

func total(v []int64) int64 {
	var t int64
	for _, x := range v {
		t += x
	}
	return t
}

// parseJobRadii reads "2,5,10" (km).
func parseJobRadii(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		s = "2,5,10"
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("radius %q is not a number of km; give radii such as 2,5,10", p)
		}
		out = append(out, v)
	}
	return out, nil
}

// job returns the organisation's job id, answering 404 otherwise.
func (s *Server) enrichJobOf(w http.ResponseWriter, r *http.Request) *enrichJob {
	job := s.enrichJobs.get(r.PathValue("id"), requestOf(r).org, s.now())
	if job == nil {
		writeJobError(w, http.StatusNotFound, "not_found", "no such enrichment job: it was downloaded, it expired, or it is another organisation's")
	}
	return job
}

func (s *Server) handleEnrichStatus(w http.ResponseWriter, r *http.Request) {
	if job := s.enrichJobOf(w, r); job != nil {
		writeJobJSON(w, http.StatusOK, s.enrichJobs.status(job))
	}
}

// handleEnrichRun accepts the quote: the per-query charges are made in one
// Charge call and the result is released; credits that do not cover them
// release nothing.
func (s *Server) handleEnrichRun(w http.ResponseWriter, r *http.Request) {
	job := s.enrichJobOf(w, r)
	if job == nil {
		return
	}
	job.mu.Lock()
	defer job.mu.Unlock()
	switch job.state {
	case jobReady:
		writeJobJSON(w, http.StatusOK, statusLocked(job))
		return
	case jobQuoted:
	default:
		writeJobError(w, http.StatusBadRequest, enrich.CodeInvalid, "the job is "+job.state+": only a quoted job can be run")
		return
	}
	var asks []state.DatasetPrice
	for i, id := range job.perQuery {
		if c := job.progress.Charges[i]; c > 0 {
			asks = append(asks, state.DatasetPrice{ID: id, Price: c})
		}
	}
	rq := requestOf(r)
	_, leftOut, err := s.state.Charge(job.org, "console:"+rq.user, "enrich-"+job.id, asks, s.now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(leftOut) > 0 {
		writeJobError(w, http.StatusPaymentRequired, access.ReasonInsufficientCredits,
			fmt.Sprintf("the organisation's credits do not cover the reads of %s: nothing was charged for them; ask an operator for credits, or enrich without those measures", strings.Join(leftOut, ", ")))
		return
	}
	job.state, job.charged = jobReady, len(asks) > 0
	writeJobJSON(w, http.StatusOK, statusLocked(job))
}

// handleEnrichDownload sends the result once and deletes the job.
func (s *Server) handleEnrichDownload(w http.ResponseWriter, r *http.Request) {
	job := s.enrichJobOf(w, r)
	if job == nil {
		return
	}
	job.mu.Lock()
	st := job.state
	job.mu.Unlock()
	if st != jobReady {
		writeJobError(w, http.StatusBadRequest, enrich.CodeInvalid, "the result is not released: the job is "+st)
		return
	}
	f, err := os.Open(job.out)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer s.enrichJobs.remove(job)
	defer f.Close()
	base := strings.TrimSuffix(job.name, filepath.Ext(job.name))
	ct := "text/csv; charset=utf-8"
	switch filepath.Ext(job.out) {
	case ".geojson":
		ct = "application/geo+json"
	case ".gpkg":
		ct = "application/geopackage+sqlite3"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename=%q`, base+"-enriched"+filepath.Ext(job.out)))
	io.Copy(w, f)
}

// add starts a job for org: refused while the organisation has one
// running, or when the table is full of live jobs. Expired jobs are
// dropped first.
func (t *enrichJobs) add(org, user, name string, now time.Time) (*enrichJob, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.jobs == nil {
		t.jobs = map[string]*enrichJob{}
	}
	t.expireLocked(now)
	for _, j := range t.jobs {
		j.mu.Lock()
		running := j.org == org && j.state == jobRunning
		j.mu.Unlock()
		if running {
			return nil, errors.New("one enrichment runs at a time for an organisation: wait for the running one to finish")
		}
	}
	if len(t.jobs) >= maxEnrichJobs {
		return nil, fmt.Errorf("the server holds %d enrichment jobs, its most: try again when one is downloaded or expires (after %v)", maxEnrichJobs, enrichKeep)
	}
	var b [12]byte
	rand.Read(b[:])
	dir, err := os.MkdirTemp("", "frameindex-enrich-")
	if err != nil {
		return nil, err
	}
	j := &enrichJob{id: hex.EncodeToString(b[:]), org: org, user: user, name: name, dir: dir, created: now, state: jobRunning}
	t.jobs[j.id] = j
	return j, nil
}

// expireLocked drops finished jobs older than enrichKeep; t.mu held.
func (t *enrichJobs) expireLocked(now time.Time) {
	for id, j := range t.jobs {
		j.mu.Lock()
		old := j.state != jobRunning && !j.finished.IsZero() && now.Sub(j.finished) > enrichKeep
		j.mu.Unlock()
		if old {
			os.RemoveAll(j.dir)
			delete(t.jobs, id)
		}
	}
}

func (t *enrichJobs) get(id, org string, now time.Time) *enrichJob {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expireLocked(now)
	j := t.jobs[id]
	if j == nil || j.org != org {
		return nil
	}
	return j
}

// clear drops every job and its files (the server is closing; a running
// job's writer fails and its goroutine ends).
func (t *enrichJobs) clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, j := range t.jobs {
		os.RemoveAll(j.dir)
		delete(t.jobs, id)
	}
}

func (t *enrichJobs) remove(j *enrichJob) {
	t.mu.Lock()
	delete(t.jobs, j.id)
	t.mu.Unlock()
	os.RemoveAll(j.dir)
}

func (t *enrichJobs) status(j *enrichJob) jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	return statusLocked(j)
}

// statusLocked is j's status; j.mu held.
func statusLocked(j *enrichJob) jobStatus {
	p := j.progress
	st := jobStatus{ID: j.id, State: j.state, Name: j.name, Sites: p.Sites, Elapsed: p.Elapsed.Seconds(), Notes: p.WithNotes, Charged: j.charged}
	if p.Size > 0 {
		st.Percent = int(min(p.Read*100/p.Size, 100))
	}
	for i, id := range j.perQuery {
		if i < len(p.Charges) && j.state != jobRunning {
			st.Quote = append(st.Quote, quoteLine{id, p.Charges[i]})
			st.Total += p.Charges[i]
		}
	}
	slices.SortFunc(st.Quote, func(a, b quoteLine) int { return strings.Compare(a.Dataset, b.Dataset) })
	if j.errMsg != "" {
		st.Error = &enrichErrMsg{"internal", j.errMsg}
	}
	if j.state == jobReady {
		st.Download = Prefix + "enrich/jobs/" + j.id + "/download"
	}
	return st
}
