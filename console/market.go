package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"frameindex/admin"
	"frameindex/state"
)

// The marketplace: an organisation's owners and admins offer its datasets
// to the other organisations and license theirs; members see the
// catalogue and the licences but change nothing. Every change runs an
// admin operation (admin.OpDatasetOffer, OpDatasetWithdraw,
// OpLicenceAcquire), the code path of "frameindex dataset offer" and
// "dataset withdraw", audited under the person's name.

func (s *Server) marketRoutes() {
	m := s.mux
	m.HandleFunc("GET /console/market", s.authed(s.handleMarket, false))
	m.HandleFunc("POST /console/market/offers/{id}", s.authed(s.handleOffer, false))
	m.HandleFunc("GET /console/market/offers/{id}/withdraw", s.authed(s.handleWithdrawForm, false))
	m.HandleFunc("POST /console/market/offers/{id}/withdraw", s.authed(s.handleWithdraw, false))
	m.HandleFunc("GET /console/market/license/{id}", s.authed(s.handleLicenseForm, false))
	m.HandleFunc("POST /console/market/license/{id}", s.authed(s.handleLicense, false))
}

// canTrade reports whether role may offer, withdraw and license datasets:
// owners and admins.
func canTrade(role string) bool { return role == state.RoleOwner || role == state.RoleAdmin }

// listingRow is one offer of the catalogue.
type listingRow struct {
	ID, Name, Owner, Description, Source, LicenceText string
	Attributes                                        string // labels, comma separated
	Years                                             string
	Frames                                            int
	Mode                                              string // subscription | per_query
	Price                                             int64
	Held                                              string // mode of the licence the organisation holds, if any
}

// ownRow is one of the organisation's datasets with its offer.
type ownRow struct {
	ID, Name    string
	Frames      int
	Mode        string // private | subscription | per_query
	Price       int64
	LicenceText string
	Licensees   int
}

type marketData struct {
	CanTrade  bool
	Catalogue []listingRow
	Own       []ownRow
	Held      []state.Licence
	Given     []state.Licence
	Credits   int64
}

var marketMessages = map[string]string{
	"offered":   "Offer saved.",
	"withdrawn": "Offer withdrawn. Licences already granted keep their terms until revoked.",
	"licensed":  "Licence recorded. Your organisation's keys may read the dataset from their next request.",
}

func attrSummary(d state.Dataset) (labels, years string) {
	var ls, ys []string
	for _, a := range d.Attributes {
		l := a.Label
		if l == "" {
			l = a.Name
		}
		ls = append(ls, l)
		if a.Year != 0 {
			if y := strconv.Itoa(a.Year); !slices.Contains(ys, y) {
				ys = append(ys, y)
			}
		}
	}
	slices.Sort(ys)
	return strings.Join(ls, ", "), strings.Join(ys, ", ")
}

func (s *Server) handleMarket(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(r, "Marketplace", "market")
	p.Flash = marketMessages[r.URL.Query().Get("msg")]
	s.renderMarket(w, r, http.StatusOK, p)
}

func (s *Server) renderMarket(w http.ResponseWriter, r *http.Request, status int, p *page) {
	rq := requestOf(r)
	d := marketData{CanTrade: canTrade(rq.role)}
	listings, err := s.ops.Market(s.as(r), admin.MarketList{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	offers := map[string]state.Listing{}
	for _, l := range listings {
		offers[l.Info.ID] = l
	}
	all, err := s.ops.Licences(s.as(r), admin.LicenceList{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	datasets, err := s.ops.Datasets(s.as(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	owned := map[string]bool{}
	licensees := map[string]int{}
	for _, l := range all {
		licensees[l.Dataset]++
	}
	for _, ds := range datasets {
		if ds.Owner != rq.org {
			continue
		}
		owned[ds.ID] = true
		row := ownRow{ID: ds.ID, Name: ds.Name, Frames: ds.Frames, Mode: state.OfferPrivate, Price: ds.Price, Licensees: licensees[ds.ID]}
		if o, ok := offers[ds.ID]; ok {
			row.Mode, row.Price, row.LicenceText = o.Mode, o.Price, o.LicenceText
		}
		d.Own = append(d.Own, row)
	}
	held := map[string]string{}
	for _, l := range all {
		switch {
		case l.OrgID == rq.org:
			d.Held = append(d.Held, l)
			held[l.Dataset] = l.Mode
		case owned[l.Dataset]:
			d.Given = append(d.Given, l)
		}
	}
	for _, l := range listings {
		if l.Info.Owner == rq.org {
			continue
		}
		attrs, years := attrSummary(l.Info)
		d.Catalogue = append(d.Catalogue, listingRow{ID: l.Info.ID, Name: l.Info.Name, Owner: l.Info.Owner,
			Description: l.Info.Description, Source: l.Info.Source, LicenceText: l.LicenceText, Attributes: attrs,
			Years: years, Frames: l.Info.Frames, Mode: l.Mode, Price: l.Price, Held: held[l.Info.ID]})
	}
	if o, err := s.state.Org(rq.org); err == nil {
		d.Credits = o.Credits
	}
	p.Data = d
	s.render(w, r, status, "market", p)
}

// marketError answers a refused marketplace change with what to do.
func (s *Server) marketError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, state.ErrNotFound):
		s.errorPage(w, r, http.StatusNotFound, "No such dataset",
			"There is no dataset with that id that this page can change or license: it may have been withdrawn or removed.")
	case errors.Is(err, state.ErrExists):
		s.errorPage(w, r, http.StatusConflict, "Already licensed",
			"Your organisation already holds a licence for this dataset. To change its terms, ask an operator to revoke it first.")
	case errors.Is(err, state.ErrInvalid):
		s.errorPage(w, r, http.StatusBadRequest, "Not done", personMessage(err))
	default:
		s.fail(w, r, err)
	}
}

func (s *Server) handleOffer(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !canTrade(rq.role) {
		s.deny(w, r, admin.OpDatasetOffer, id, "only admins and owners offer datasets")
		return
	}
	mode := r.PostFormValue("mode")
	var price int64
	if v := strings.TrimSpace(r.PostFormValue("price")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			s.errorPage(w, r, http.StatusBadRequest, "Not done", "The price must be a whole number of credits, 0 or more.")
			return
		}
		price = n
	}
	var err error
	if mode == state.OfferPrivate {
		_, err = s.ops.WithdrawOffer(s.as(r), admin.DatasetWithdraw{ID: id, Org: rq.org})
	} else {
		_, err = s.ops.OfferDataset(s.as(r), admin.DatasetOffer{ID: id, Mode: mode, Credits: price,
			LicenceText: strings.ReplaceAll(r.PostFormValue("licence"), "\r\n", "\n"), Org: rq.org})
	}
	if err != nil {
		s.marketError(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"market?msg=offered", http.StatusSeeOther)
}

func (s *Server) handleWithdrawForm(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !canTrade(rq.role) {
		s.deny(w, r, admin.OpDatasetWithdraw, id, "only admins and owners withdraw offers")
		return
	}
	d, err := s.store.Dataset(id)
	if err != nil || d.Owner != rq.org {
		s.marketError(w, r, state.ErrNotFound)
		return
	}
	p := s.newPage(r, "Withdraw offer", "market")
	p.Data = confirmData{Heading: "Withdraw the offer of " + id + "?",
		Text:   "No other organisation will be able to license it from the marketplace. Licences already granted keep their terms until revoked.",
		Action: Prefix + "market/offers/" + url.PathEscape(id) + "/withdraw", Button: "Withdraw offer", Cancel: Prefix + "market", Danger: true}
	s.render(w, r, http.StatusOK, "confirm", p)
}

func (s *Server) handleWithdraw(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !canTrade(rq.role) {
		s.deny(w, r, admin.OpDatasetWithdraw, id, "only admins and owners withdraw offers")
		return
	}
	if _, err := s.ops.WithdrawOffer(s.as(r), admin.DatasetWithdraw{ID: id, Org: rq.org}); err != nil {
		s.marketError(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"market?msg=withdrawn", http.StatusSeeOther)
}

// offerOf returns the marketplace offer of dataset id by another
// organisation than org.
func (s *Server) offerOf(r *http.Request, org, id string) (state.Listing, bool, error) {
	listings, err := s.ops.Market(s.as(r), admin.MarketList{Exclude: org})
	if err != nil {
		return state.Listing{}, false, err
	}
	for _, l := range listings {
		if l.Info.ID == id {
			return l, true, nil
		}
	}
	return state.Listing{}, false, nil
}

func (s *Server) handleLicenseForm(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !canTrade(rq.role) {
		s.deny(w, r, admin.OpLicenceAcquire, id, "only admins and owners license datasets")
		return
	}
	l, ok, err := s.offerOf(r, rq.org, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		s.marketError(w, r, state.ErrNotFound)
		return
	}
	s.licenseConfirm(w, r, http.StatusOK, "License "+id+" from "+l.Info.Owner+"?", "", l)
}

// licenseConfirm renders the confirmation of licensing l on its terms,
// which the form carries (mode and price): the licence is granted only on
// those (handleLicense). before, when not empty, opens the text.
func (s *Server) licenseConfirm(w http.ResponseWriter, r *http.Request, status int, heading, before string, l state.Listing) {
	rq := requestOf(r)
	text := "Your organisation's keys may then read it; each request costs " + creditText(l.Price) + " for every started 100 frames whose values it reads."
	if l.Mode == state.OfferSubscription {
		text = creditText(l.Price) + " will be taken from " + rq.org + "'s balance now; its keys may then read it with no charge per request."
	}
	if l.LicenceText != "" {
		text += " By licensing it you accept its terms: " + l.LicenceText
	}
	if before != "" {
		text = before + " " + text
	}
	p := s.newPage(r, "License dataset", "market")
	p.Data = confirmData{Heading: heading, Text: text,
		Action: Prefix + "market/license/" + url.PathEscape(l.Dataset), Button: "License dataset", Cancel: Prefix + "market",
		Hidden: []hiddenField{{"mode", l.Mode}, {"price", strconv.FormatInt(l.Price, 10)}}}
	s.render(w, r, status, "confirm", p)
}

// handleLicense licenses a dataset on the terms the confirmation showed
// (its form's mode and price). When the offer changed in between, nothing
// is licensed or charged: the page says the terms changed, shows the old
// and the new, and asks again.
func (s *Server) handleLicense(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	id := r.PathValue("id")
	if !canTrade(rq.role) {
		s.deny(w, r, admin.OpLicenceAcquire, id, "only admins and owners license datasets")
		return
	}
	price, err := strconv.ParseInt(r.PostFormValue("price"), 10, 64)
	mode := r.PostFormValue("mode")
	if err != nil || price < 0 || (mode != state.OfferPerQuery && mode != state.OfferSubscription) {
		s.errorPage(w, r, http.StatusBadRequest, "Not done",
			"The form did not say the terms you agreed to; nothing was licensed or charged. Open the dataset in the marketplace and license it from there.")
		return
	}
	seen := state.Terms{Mode: mode, Price: price}
	_, err = s.ops.AcquireLicence(s.as(r), admin.LicenceAcquire{OrgID: rq.org, Dataset: id, Terms: &seen})
	if errors.Is(err, state.ErrTermsChanged) {
		l, ok, lerr := s.offerOf(r, rq.org, id)
		if lerr != nil {
			s.fail(w, r, lerr)
			return
		}
		if !ok {
			s.errorPage(w, r, http.StatusConflict, "The terms changed",
				"You agreed to "+seen.String()+", but the dataset has since been withdrawn from the marketplace. Nothing was licensed or charged.")
			return
		}
		s.licenseConfirm(w, r, http.StatusConflict, "The terms changed",
			"You agreed to "+seen.String()+"; the seller has since changed the offer to "+l.Terms().String()+". Nothing was licensed or charged. License "+id+" on the new terms?", l)
		return
	}
	if err != nil {
		s.marketError(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"market?msg=licensed", http.StatusSeeOther)
}

// creditText formats n credits, "1 credit" or "5 credits".
func creditText(n int64) string {
	if n == 1 {
		return "1 credit"
	}
	return strconv.FormatInt(n, 10) + " credits"
}
