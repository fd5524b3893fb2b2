package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/ingest"
	"frameindex/state"
)

// Operation names.
const (
	OpOrgAdd     = "org.add"
	OpOrgList    = "org.list"
	OpOrgShow    = "org.show"
	OpOrgPlan    = "org.plan"
	OpOrgCredits = "org.credits"
	OpUsage      = "usage"
	OpKeyMint    = "key.mint"
	OpKeyList    = "key.list"
	OpKeyRevoke  = "key.revoke"
	OpGridBuild  = "grid.build"
	OpGridImport = "grid.import"
	OpGridInfo   = "grid.info"
	OpAsk        = "ask"
	OpReport     = "report"
)

// Change tells a server what an operation altered, so it can refresh what it
// serves.
type Change int

const (
	ChangeNone Change = iota
	ChangeKeys
	ChangeGrid
	// ChangeOrgs: an organisation's plan or credits changed. Requests read
	// organisations from the file as they need them, so nothing has to be
	// reloaded yet; it is there for a server that keeps a snapshot.
	ChangeOrgs
	// ChangeDatasets: a dataset was imported, re-priced or removed, or a
	// licence granted or revoked; what keys may read has changed.
	ChangeDatasets
)

// Progress reports how far a long step has got: done of total bytes read.
type Progress func(step string, done, total int64)

// Ops runs operations against an open store. Safe for concurrent use when
// Changed is.
type Ops struct {
	// Store is the node's data file: the grid, datasets, and the file
	// itself (backup, check, compact). It is also
	// the catalogue that licensing checks datasets against; nil is allowed
	// only when State is set and no operation run needs datasets or the
	// file (such an operation then fails with state.ErrInvalid saying so).
	Store *bolt.Store
	// State is what every node of a deployment shares: organisations,
	// keys, licences, prices, offers, credits, usage, the audit log, and
	// the web application's people and sessions.
	// nil means Store (one node, one file).
	State    state.Store
	Now      func() time.Time // nil = time.Now
	Changed  func(Change)     // called after a successful write; may be nil
	Progress Progress         // long steps report here; may be nil
	// AskFn answers a question body (POST /v1/frames/insight's) as the
	// operator, reading every dataset without charge: a running server's
	// API. nil makes Ask an error saying to run `frameindex ask` without a
	// server.
	AskFn func(ctx context.Context, body []byte) (status int, resp []byte)
	// ReportFn makes a place report or comparison (a report.Request as
	// JSON) as the operator: a running server's report engine, sharing
	// its caches. nil makes Report an error saying to run `frameindex
	// report` without a server.
	ReportFn func(ctx context.Context, req []byte) ([]byte, error)
	// Stdin is what an import input "-" reads: the command's standard
	// input when the command runs the import itself. nil (a server) makes
	// such an input an error that says to give a file.
	Stdin io.Reader
}

// OrgAdd adds an organisation.
type OrgAdd struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	Plan string `json:"plan,omitempty"`
}

// OrgShow shows an organisation with its newest Limit ledger entries
// (Limit <= 0: all of them).
type OrgShow struct {
	ID    string `json:"id"`
	Limit int    `json:"limit,omitempty"`
}

// OrgPlan moves an organisation to a plan: trial, pro or scale.
type OrgPlan struct {
	ID   string `json:"id"`
	Plan string `json:"plan"`
}

// OrgCredits grants credits (Add > 0) or takes them back (Add < 0), with a
// note saying why; the balance never goes below zero.
type OrgCredits struct {
	ID   string `json:"id"`
	Add  int64  `json:"add"`
	Note string `json:"note"`
}

// UsageReq asks for an organisation's usage this month and today (UTC).
type UsageReq struct {
	OrgID string `json:"org"`
}

// KeyMint mints a key; TTL is text such as "90d" (empty = the default).
type KeyMint struct {
	OrgID    string   `json:"org"`
	Preset   string   `json:"preset"`
	Name     string   `json:"name,omitempty"`
	Datasets []string `json:"datasets,omitempty"`
	TTL      string   `json:"ttl,omitempty"`
	// ForMember binds the key to the person minting it (the actor of the
	// call's context, a signed-in member; never a name given here), as the
	// key their Explore map runs on (state.Key.Member). The operator at
	// the command line cannot mint one.
	ForMember bool `json:"forMember,omitempty"`
}

// KeyList lists the keys of one organisation, or all when OrgID is empty.
type KeyList struct {
	OrgID string `json:"org,omitempty"`
}

// KeyRevoke revokes a key by its public id.
type KeyRevoke struct {
	ID string `json:"id"`
}

// GridBuild replaces the grid with the lattice cells touching the polygons
// of a GeoJSON boundary file. Path must be absolute when sent to a server.
type GridBuild struct {
	Boundary string `json:"boundary"`
}

// GridImport replaces the grid with the polygon frames of a GeoJSON file.
type GridImport struct {
	Path string `json:"path"`
}

// KeyView is what commands show of a key: never the secret, nor its digest.
type KeyView struct {
	ID       string             `json:"id"`
	OrgID    string             `json:"org"`
	Name     string             `json:"name,omitempty"`
	Preset   string             `json:"preset"`
	Caps     []state.Capability `json:"capabilities"`
	Datasets []string           `json:"datasets,omitempty"`
	Created  time.Time          `json:"created"`
	Expires  time.Time          `json:"expires"`
	Revoked  *time.Time         `json:"revoked,omitempty"`
}

// Minted is the result of KeyMint: the key and its secret, shown this once.
type Minted struct {
	Key    KeyView `json:"key"`
	Secret string  `json:"secret"`
}

// OrgDetail is the result of OrgShow: the organisation (its members
// inline), its plan's monthly allowance of worded answers, and its ledger,
// oldest first. The balance and the ledger are read together, so the
// balance is the one the last entry shows.
type OrgDetail struct {
	state.Org
	Allowance int                 `json:"allowance"`
	Ledger    []state.LedgerEntry `json:"ledger"` // never nil: [] when there are none
}

// Credited is the result of OrgCredits: the organisation with its new
// balance and the ledger entry that records the change.
type Credited struct {
	Org   state.Org         `json:"org"`
	Entry state.LedgerEntry `json:"entry"`
}

// GridView is what commands show of the stored grid.
type GridView struct {
	Kind    bolt.GridKind `json:"kind"`
	Frames  int           `json:"frames"`
	Bounds  [4]float64    `json:"bbox"`
	Source  string        `json:"source,omitempty"`
	BuiltAt time.Time     `json:"builtAt"`
}

func viewKey(k state.Key) KeyView {
	v := KeyView{ID: k.ID, OrgID: k.OrgID, Name: k.Name, Preset: k.Preset, Caps: k.Caps,
		Datasets: k.Datasets, Created: k.Created, Expires: k.Expires}
	if !k.Revoked.IsZero() {
		t := k.Revoked
		v.Revoked = &t
	}
	return v
}

func viewGrid(g bolt.GridInfo) GridView {
	b := g.Bounds
	return GridView{Kind: g.Kind, Frames: g.Frames, Bounds: [4]float64{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat},
		Source: g.Source, BuiltAt: g.BuiltAt}
}

func (o *Ops) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// state is where the shared state is kept: State, or Store without one.
func (o *Ops) state() state.Store {
	if o.State != nil {
		return o.State
	}
	return o.Store
}

// shared reports whether the shared state is kept apart from the data
// file, so that checks against the node's datasets must be made here.
func (o *Ops) shared() bool {
	return o.State != nil && o.State != state.Store(o.Store)
}

// errNoCatalogue is the error of an operation that needs the node's data
// file (its datasets above all) when Ops has none.
var errNoCatalogue = fmt.Errorf("%w: this operation needs the node's data file and its datasets: give the data file (--data)", state.ErrInvalid)

// catalogue returns the data file, or errNoCatalogue without one.
func (o *Ops) catalogue() (*bolt.Store, error) {
	if o.Store == nil {
		return nil, errNoCatalogue
	}
	return o.Store, nil
}

func (o *Ops) changed(c Change) {
	if o.Changed != nil {
		o.Changed(c)
	}
}

// The operations below, and those of the other files, are what the
// command line, the web application and the admin socket run. Errors wrap
// the bolt sentinels (state.ErrNotFound, state.ErrExists, state.ErrInvalid,
// ...) or describe bad input; one that needs the data file fails with
// errNoCatalogue (state.ErrInvalid) when Store is nil. Those that change
// something write an audit entry (to State) under the actor of ctx
// (WithActor; the operator otherwise): with the change, in its
// transaction, or alone when refused or failed.
//
// Organisations, credits, usage, keys, licences, prices, offers, the
// audit log and people are read and written in State; the grid, datasets
// and the file in Store. With State apart from Store, an operation naming a
// dataset (licence grant, price, offer, withdraw, licensing an offer)
// checks it is one of Store's first, and dataset list and show report the
// prices State holds.

// AddOrg adds an organisation.
func (o *Ops) AddOrg(ctx context.Context, a OrgAdd) (_ state.Org, err error) {
	au := o.audit(ctx, OpOrgAdd, a.ID, a.ID, planDetail(a.Plan)...)
	defer au.done(&err)
	return au.state().AddOrg(state.Org{ID: a.ID, Name: a.Name, Plan: a.Plan, Created: o.now()})
}

// planDetail is an org.add entry's detail: the plan when one is named.
func planDetail(plan string) []string {
	if plan == "" {
		return nil
	}
	return []string{"plan", plan}
}

// Orgs lists the organisations.
func (o *Ops) Orgs(context.Context) ([]state.Org, error) { return o.state().Orgs() }

// ShowOrg shows an organisation with its newest ledger entries.
func (o *Ops) ShowOrg(_ context.Context, a OrgShow) (OrgDetail, error) {
	org, ledger, err := o.state().OrgLedger(a.ID, a.Limit)
	if err != nil {
		return OrgDetail{}, err
	}
	if ledger == nil {
		ledger = []state.LedgerEntry{}
	}
	return OrgDetail{Org: org, Allowance: state.PlanAllowance[org.Plan], Ledger: ledger}, nil
}

// SetPlan moves an organisation to a plan.
func (o *Ops) SetPlan(ctx context.Context, a OrgPlan) (_ state.Org, err error) {
	au := o.audit(ctx, OpOrgPlan, a.ID, a.ID, "plan", text(a.Plan))
	defer au.done(&err)
	org, err := au.state().SetPlan(a.ID, a.Plan)
	if err != nil {
		return state.Org{}, err
	}
	o.changed(ChangeOrgs)
	return org, nil
}

// AddCredits grants or takes back credits.
func (o *Ops) AddCredits(ctx context.Context, a OrgCredits) (_ Credited, err error) {
	au := o.audit(ctx, OpOrgCredits, a.ID, a.ID, "add", strconv.FormatInt(a.Add, 10), "note", text(a.Note))
	defer au.done(&err)
	org, e, err := au.state().AddCredits(a.ID, a.Add, a.Note, o.now())
	if err != nil {
		return Credited{}, err
	}
	o.changed(ChangeOrgs)
	return Credited{Org: org, Entry: e}, nil
}

// Usage reports an organisation's usage this month and today (UTC).
func (o *Ops) Usage(_ context.Context, a UsageReq) (state.Usage, error) {
	return o.state().Usage(a.OrgID, o.now())
}

// MintKey mints a key; its secret is in the result, shown this once. The
// audit entry names the key by its public id.
func (o *Ops) MintKey(ctx context.Context, a KeyMint) (_ Minted, err error) {
	detail := []string{"preset", text(a.Preset)}
	if len(a.Datasets) > 0 {
		ds, _ := json.Marshal(a.Datasets)
		detail = append(detail, "datasets", string(ds))
	}
	if a.TTL != "" {
		detail = append(detail, "ttl", a.TTL)
	}
	au := o.audit(ctx, OpKeyMint, a.OrgID, a.Name, detail...)
	defer au.done(&err)
	var ttl time.Duration
	if a.TTL != "" {
		if ttl, err = state.ParseTTL(a.TTL); err != nil {
			return Minted{}, err
		}
	}
	var member string
	if a.ForMember {
		act := actorOf(ctx)
		if member = act.User; member == "" || member == Operator || act.Org != a.OrgID {
			return Minted{}, fmt.Errorf("%w: a member's Explore key is minted by the member, signed in to the web application in organisation %s", state.ErrInvalid, a.OrgID)
		}
	}
	k, secret, err := au.state().MintKey(state.MintRequest{OrgID: a.OrgID, Preset: a.Preset, Name: a.Name, Member: member,
		Datasets: a.Datasets, TTL: ttl, Now: o.now()})
	if err != nil {
		return Minted{}, err
	}
	o.changed(ChangeKeys)
	return Minted{Key: viewKey(k), Secret: secret}, nil
}

// Keys lists keys, never their secrets.
func (o *Ops) Keys(_ context.Context, a KeyList) ([]KeyView, error) {
	keys, err := o.state().Keys(a.OrgID)
	if err != nil {
		return nil, err
	}
	views := make([]KeyView, len(keys))
	for i, k := range keys {
		views[i] = viewKey(k)
	}
	return views, nil
}

// RevokeKey revokes a key. The audit entry is the key's organisation's
// when the key exists.
func (o *Ops) RevokeKey(ctx context.Context, a KeyRevoke) (_ KeyView, err error) {
	au := o.audit(ctx, OpKeyRevoke, "", a.ID)
	if k, err := o.state().Key(a.ID); err == nil {
		au.e.Org = k.OrgID // a key's organisation never changes
	}
	defer au.done(&err)
	k, err := au.state().RevokeKey(a.ID, o.now())
	if err != nil {
		return KeyView{}, err
	}
	o.changed(ChangeKeys)
	return viewKey(k), nil
}

// BuildGrid replaces the grid with the lattice cells touching the
// polygons of a GeoJSON boundary file.
func (o *Ops) BuildGrid(ctx context.Context, a GridBuild) (_ GridView, err error) {
	au := o.audit(ctx, OpGridBuild, "", filepath.Base(a.Boundary))
	defer au.done(&err)
	f, err := au.file()
	if err != nil {
		return GridView{}, err
	}
	r, closeFn, err := o.openGeoJSON(ctx, a.Boundary, "reading boundary")
	if err != nil {
		return GridView{}, err
	}
	defer closeFn()
	info, err := o.buildGrid(ctx, f, r, "boundary "+baseName(a.Boundary))
	if err != nil {
		return GridView{}, fmt.Errorf("%s: %w", a.Boundary, err)
	}
	return viewGrid(info), nil
}

// ImportGrid replaces the grid with the polygon frames of a GeoJSON file.
func (o *Ops) ImportGrid(ctx context.Context, a GridImport) (_ GridView, err error) {
	au := o.audit(ctx, OpGridImport, "", filepath.Base(a.Path))
	defer au.done(&err)
	f, err := au.file()
	if err != nil {
		return GridView{}, err
	}
	info, err := o.importGrid(ctx, f, a.Path)
	if err != nil {
		return GridView{}, err
	}
	o.changed(ChangeGrid)
	return viewGrid(info), nil
}

// AskReq asks a question: Body is a POST /v1/frames/insight body.
type AskReq struct {
	Body json.RawMessage `json:"body"`
}

// AskResult is the API's answer to an AskReq: its status and envelope.
type AskResult struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// ReportReq asks for a place report or a comparison: Body is a
// report.Request as JSON.
type ReportReq struct {
	Body json.RawMessage `json:"body"`
}

// ReportResult is the report's page (HTML) or the comparison's CSV.
type ReportResult struct {
	Body []byte `json:"body"`
}

// Report makes a place report as the operator through the server's
// report engine (not audited: it changes nothing).
func (o *Ops) Report(ctx context.Context, a ReportReq) (ReportResult, error) {
	if o.ReportFn == nil {
		return ReportResult{}, errors.New("this process makes no reports: run `frameindex report` against the data file")
	}
	b, err := o.ReportFn(ctx, a.Body)
	return ReportResult{Body: b}, err
}

// Ask answers a question as the operator through the server's API (not
// audited: it changes nothing).
func (o *Ops) Ask(ctx context.Context, a AskReq) (AskResult, error) {
	if o.AskFn == nil {
		return AskResult{}, errors.New("this process answers no questions: run `frameindex ask` against the data file")
	}
	status, body := o.AskFn(ctx, a.Body)
	return AskResult{Status: status, Body: body}, nil
}

// GridInfo describes the stored grid.
func (o *Ops) GridInfo(context.Context) (GridView, error) {
	c, err := o.catalogue()
	if err != nil {
		return GridView{}, err
	}
	info, err := c.GridInfo()
	if err != nil {
		return GridView{}, err
	}
	return viewGrid(info), nil
}

// Compact rewrites the data file without free pages.
func (o *Ops) Compact(ctx context.Context) (bolt.CompactReport, error) {
	c, err := o.catalogue()
	if err != nil {
		return bolt.CompactReport{}, err
	}
	return c.Compact(ctx)
}

// decodeArgs decodes an operation's JSON arguments strictly: an unknown
// member, a wrong type or trailing data is state.ErrInvalid, naming what
// is wrong. No arguments decode as the zero value.
func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: arguments: %v", state.ErrInvalid, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: arguments: data after the JSON object", state.ErrInvalid)
	}
	return nil
}

// opener opens input files (see ingest.OpenInput: a named pipe or
// standard input is read in a way ctx stops, a directory or device is
// refused) and wraps them so that their reading reports progress.
func (o *Ops) opener(ctx context.Context) ingest.Opener {
	return func(path, step string) (io.Reader, func() error, error) {
		f, size, err := ingest.OpenInput(ctx, path, o.Stdin)
		if err != nil {
			return nil, nil, err
		}
		var r io.Reader = f
		if o.Progress != nil && size > 0 {
			r = &progressReader{r: f, total: size, step: step, report: o.Progress}
		}
		return r, f.Close, nil
	}
}

// openInput is the Opener of an import without a context to stop it.
func (o *Ops) openInput(path, step string) (io.Reader, func() error, error) {
	return o.opener(context.Background())(path, step)
}

// openGeoJSON opens a GeoJSON input of the grid: a file or a named pipe
// (not a directory, a device or standard input).
func (o *Ops) openGeoJSON(ctx context.Context, path, step string) (io.Reader, func() error, error) {
	if err := ingest.CheckGeoJSONPath(path); err != nil {
		return nil, nil, err
	}
	return o.opener(ctx)(path, step)
}

type progressReader struct {
	r      io.Reader
	done   int64
	total  int64
	step   string
	report Progress
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.report(p.step, p.done, p.total)
	return n, err
}

// BuildGridFrom replaces the grid with the lattice cells that touch the
// polygons of the GeoJSON read from r, and records source as its origin.
// It is not audited (the demo builds its grid so). Errors as BuildGrid.
func (o *Ops) BuildGridFrom(ctx context.Context, r io.Reader, source string) (bolt.GridInfo, error) {
	c, err := o.catalogue()
	if err != nil {
		return bolt.GridInfo{}, err
	}
	return o.buildGrid(ctx, c, r, source)
}

// buildGrid builds f's grid from the GeoJSON read from r. Each feature is
// rasterised on its own and the cells are united, so overlapping features
// cannot cancel each other out as one even-odd fill would. Nothing is
// written unless every feature is valid.
func (o *Ops) buildGrid(ctx context.Context, f *bolt.Store, r io.Reader, source string) (bolt.GridInfo, error) {
	var runs []grid.Run
	polygons := 0
	err := grid.ReadFeatures(r, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := grid.ParseGeometry(f.Geometry)
		if err != nil {
			return fmt.Errorf("feature %d: %w", i, err)
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("feature %d: %w", i, err)
		}
		polygons += len(m)
		runs = grid.MergeRuns(append(runs, grid.Rasterize(m)...))
		return nil
	})
	if err != nil {
		return bolt.GridInfo{}, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	if polygons == 0 {
		return bolt.GridInfo{}, fmt.Errorf("%w: no Polygon or MultiPolygon found", state.ErrInvalid)
	}
	info, err := f.PutLattice(runs, source)
	if err == nil {
		o.changed(ChangeGrid)
	}
	return info, err
}

// importGrid reads arbitrary polygon frames with numeric ids. Every feature
// is checked before anything is written; a grid that turns out to be the
// regular lattice is stored as runs.
func (o *Ops) importGrid(ctx context.Context, f *bolt.Store, path string) (bolt.GridInfo, error) {
	r, closeFn, err := o.openGeoJSON(ctx, path, "reading frames")
	if err != nil {
		return bolt.GridInfo{}, err
	}
	defer closeFn()
	var frames []grid.Frame
	firstSeen := map[uint64]int{}
	err = grid.ReadFeatures(r, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		id, err := grid.ParseFrameID(f.ID, f.Properties)
		if err != nil {
			return fmt.Errorf("feature %d: %w", i, err)
		}
		if j, dup := firstSeen[id]; dup {
			return fmt.Errorf("feature %d: duplicate id %d (also feature %d)", i, id, j)
		}
		firstSeen[id] = i
		m, err := grid.ParseGeometry(f.Geometry)
		if err != nil {
			return fmt.Errorf("feature %d (id %d): %w", i, id, err)
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("feature %d (id %d): %w", i, id, err)
		}
		frames = append(frames, grid.Frame{ID: id, Geom: m})
		return nil
	})
	if err != nil {
		return bolt.GridInfo{}, fmt.Errorf("%w: %s: %v", state.ErrInvalid, path, err)
	}
	if len(frames) == 0 {
		return bolt.GridInfo{}, fmt.Errorf("%w: %s holds no frames", state.ErrInvalid, path)
	}
	sort.Slice(frames, func(i, j int) bool { return frames[i].ID < frames[j].ID })
	if runs, ok := grid.DetectLattice(frames); ok {
		return f.PutLattice(runs, "frames "+baseName(path)+" (detected as the 30\" lattice)")
	}
	return f.PutPolygons(frames, "frames "+baseName(path))
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// ErrorKind names the class of an error for the socket protocol, so a remote
// caller sees the same kind of error as a local one.
func ErrorKind(err error) string {
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "failed"
}

var errorKinds = []struct {
	kind string
	err  error
}{
	{"not_found", state.ErrNotFound},
	{"exists", state.ErrExists},
	{"invalid", state.ErrInvalid},
	{"no_grid", bolt.ErrNoGrid},
	{"corrupt", state.ErrCorrupt},
}

func kindError(kind string) error {
	for _, k := range errorKinds {
		if k.kind == kind {
			return k.err
		}
	}
	return nil
}
