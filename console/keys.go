package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"frameindex/admin"
	"frameindex/state"
)

// presetInfo describes the presets as a person picks them (spec,
// Authentication: Locality, Analyst, Full read).
var presetInfo = []struct{ ID, Label, Text string }{
	{"locality", "Locality", "Look up frames and read what datasets record on them, features included. No questions."},
	{"analyst", "Analyst", "Look up frames and ask questions about them. No features."},
	{"full", "Full read", "Everything a key can do: frames, features and questions."},
}

// capText says what each capability lets a key do.
var capText = map[state.Capability]string{
	state.CapFrameRead:   "find frames and read dataset values (/v1/frames, /v1/frames/at, /v1/frames/data)",
	state.CapFeatureRead: "receive features (points, lines, shapes) in the data call",
	state.CapAskQuery:    "ask questions about frames (/v1/frames/insight)",
}

func presetLabel(id string) string {
	for _, p := range presetInfo {
		if p.ID == id {
			return p.Label
		}
	}
	return id
}

// maxDays is the longest lifetime a key can be minted with, in days.
var maxDays = int(state.MaxTTL / (24 * time.Hour))

const defaultDays = 90

type capRow struct{ Name, Text string }

type presetRow struct {
	ID, Label, Text string
	Caps            []capRow
	Checked         bool
}

type datasetRow struct {
	ID, Name string
	Owner    string
	Licensed bool // another organisation's, read under a licence
	PerQuery bool
	Checked  bool
}

type keyRow struct {
	ID, Name, Preset string
	Caps             []string
	Datasets         []string
	Created, Expires string
	LastUsed         string
	State            string // "active", "expired" or "revoked"
}

type mintedView struct {
	ID, Name, Preset, Secret, Expires string
	Caps                              []string
	Datasets                          []string
}

type keysData struct {
	Keys     []keyRow
	Presets  []presetRow
	Datasets []datasetRow
	Name     string
	Days     string
	MaxDays  int
	Minted   *mintedView
	Base     string // this server's address as the browser reached it
}

// timeText formats a time for a page: minutes, UTC.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04") + " UTC"
}

func capsText(caps []state.Capability) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = string(c)
	}
	return out
}

// orgKeys returns the organisation's keys through the command line's
// operation, newest first.
func (s *Server) orgKeys(r *http.Request, org string) ([]admin.KeyView, error) {
	keys, err := s.ops.Keys(s.as(r), admin.KeyList{OrgID: org})
	if err != nil {
		return nil, err
	}
	slices.Reverse(keys)
	return keys, nil
}

// findKey returns the organisation's key with the given id; another
// organisation's key is not found.
func (s *Server) findKey(r *http.Request, org, id string) (admin.KeyView, bool, error) {
	keys, err := s.orgKeys(r, org)
	if err != nil {
		return admin.KeyView{}, false, err
	}
	for _, k := range keys {
		if k.ID == id {
			return k, true, nil
		}
	}
	return admin.KeyView{}, false, nil
}

func (s *Server) keyRows(r *http.Request, org string) ([]keyRow, error) {
	keys, err := s.orgKeys(r, org)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	used, err := s.state.KeysLastUsed(ids)
	if err != nil {
		return nil, err
	}
	now := s.now()
	rows := make([]keyRow, len(keys))
	for i, k := range keys {
		last := used[k.ID]
		if t, ok := s.uses.Last(k.ID); ok && t.After(last) {
			last = t
		}
		row := keyRow{ID: k.ID, Name: k.Name, Preset: presetLabel(k.Preset), Caps: capsText(k.Caps), Datasets: k.Datasets,
			Created: timeText(k.Created), Expires: timeText(k.Expires), LastUsed: timeText(last), State: "active"}
		switch {
		case k.Revoked != nil:
			row.State = "revoked"
		case !now.Before(k.Expires):
			row.State = "expired"
		}
		rows[i] = row
	}
	return rows, nil
}

// readable returns the datasets keys of org may be narrowed to: its own
// and those it holds a licence for.
func (s *Server) readable(org string) ([]datasetRow, error) {
	acc, err := s.state.Readable(state.Key{OrgID: org})
	if err != nil {
		return nil, err
	}
	rows := make([]datasetRow, len(acc))
	for i, a := range acc {
		rows[i] = datasetRow{ID: a.Dataset.ID, Name: a.Dataset.Name, Owner: a.Dataset.Owner,
			Licensed: a.Dataset.Owner != org, PerQuery: a.PerQuery}
	}
	return rows, nil
}

var keyMessages = map[string]string{
	"password": "Your password was changed.",
}

func (s *Server) handleKeys(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Developers", "keys")
	q := r.URL.Query()
	p.Flash = keyMessages[q.Get("msg")]
	if q.Get("msg") == "revoked" {
		p.Flash = "Key " + clip(q.Get("key"), 40) + " is revoked: requests with it are refused from now on."
	}
	s.renderKeys(w, r, http.StatusOK, p, keysData{Days: strconv.Itoa(defaultDays)}, "", nil)
}

// renderKeys shows the Developers area: the mint form (filled from d, with
// preset and the datasets chosen) and the organisation's keys.
func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, status int, p *page, d keysData, preset string, chosen []string) {
	rq := requestOf(r)
	rows, err := s.keyRows(r, rq.org)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ds, err := s.readable(rq.org)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if preset == "" {
		preset = "analyst"
	}
	for _, pi := range presetInfo {
		row := presetRow{ID: pi.ID, Label: pi.Label, Text: pi.Text, Checked: pi.ID == preset}
		for _, c := range state.Presets[pi.ID] {
			row.Caps = append(row.Caps, capRow{Name: string(c), Text: capText[c]})
		}
		d.Presets = append(d.Presets, row)
	}
	for i := range ds {
		ds[i].Checked = slices.Contains(chosen, ds[i].ID)
	}
	d.Keys, d.Datasets, d.MaxDays = rows, ds, maxDays
	d.Base = s.origin.URL(r)
	p.Data = d
	s.render(w, r, status, "keys", p)
}

func (s *Server) handleMint(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if !can(rq.role, actMint) {
		s.deny(w, r, admin.OpKeyMint, "", "only admins and owners mint keys")
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	preset := r.PostFormValue("preset")
	days := strings.TrimSpace(r.PostFormValue("days"))
	chosen := r.PostForm["datasets"]
	d := keysData{Name: name, Days: days}
	p := s.newPage(r, "Developers", "keys")
	refuse := func(msg string) {
		p.Error = msg
		s.renderKeys(w, r, http.StatusBadRequest, p, d, preset, chosen)
	}
	if _, ok := state.Presets[preset]; !ok {
		refuse("Choose a preset: Locality, Analyst or Full read.")
		return
	}
	n, err := strconv.Atoi(days)
	if err != nil || n < 1 || n > maxDays {
		refuse("The lifetime must be a whole number of days from 1 to " + strconv.Itoa(maxDays) + ".")
		return
	}
	ds, err := s.readable(rq.org)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, c := range chosen {
		if !slices.ContainsFunc(ds, func(d datasetRow) bool { return d.ID == c }) {
			refuse("The key can be narrowed only to datasets your organisation can read.")
			return
		}
	}
	m, err := s.ops.MintKey(s.as(r), admin.KeyMint{OrgID: rq.org, Preset: preset, Name: name,
		Datasets: chosen, TTL: strconv.Itoa(n) + "d"})
	if errors.Is(err, state.ErrInvalid) {
		refuse(personMessage(err))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d = keysData{Days: strconv.Itoa(defaultDays), Minted: &mintedView{ID: m.Key.ID, Name: m.Key.Name,
		Preset: presetLabel(m.Key.Preset), Secret: m.Secret, Expires: timeText(m.Key.Expires),
		Caps: capsText(m.Key.Caps), Datasets: m.Key.Datasets}}
	s.renderKeys(w, r, http.StatusCreated, p, d, "", nil)
}

// confirmData is what a confirmation page shows.
type confirmData struct {
	Heading, Text string
	Action        string // where the confirming form posts
	Button        string
	Cancel        string // where cancelling goes
	Danger        bool
	Hidden        []hiddenField // carried by the confirming form
}

// hiddenField is a hidden input of a confirming form.
type hiddenField struct{ Name, Value string }

func (s *Server) handleRevokeForm(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if !can(rq.role, actMint) {
		s.deny(w, r, admin.OpKeyRevoke, r.PathValue("id"), "only admins and owners revoke keys")
		return
	}
	k, ok, err := s.findKey(r, rq.org, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "No such key", "Your organisation has no key with that id.")
		return
	}
	label := k.ID
	if k.Name != "" {
		label += " (" + k.Name + ")"
	}
	p := s.newPage(r, "Revoke key", "keys")
	p.Data = confirmData{Heading: "Revoke key " + label + "?",
		Text:   "Every request made with this key will be refused from now on. This cannot be undone: to give access again, mint a new key.",
		Action: Prefix + "keys/" + url.PathEscape(k.ID) + "/revoke", Button: "Revoke key", Cancel: Prefix + "keys", Danger: true}
	s.render(w, r, http.StatusOK, "confirm", p)
}

func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !can(rq.role, actMint) {
		s.deny(w, r, admin.OpKeyRevoke, id, "only admins and owners revoke keys")
		return
	}
	if _, ok, err := s.findKey(r, rq.org, id); err != nil {
		s.fail(w, r, err)
		return
	} else if !ok {
		s.errorPage(w, r, http.StatusNotFound, "No such key", "Your organisation has no key with that id.")
		return
	}
	if _, err := s.ops.RevokeKey(s.as(r), admin.KeyRevoke{ID: id}); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"keys?msg=revoked&key="+url.QueryEscape(id), http.StatusSeeOther)
}
