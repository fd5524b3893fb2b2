package admin

import (
	"context"
	"fmt"
	"strconv"

	"frameindex/ingest"
	"frameindex/state"
)

// Dataset and licence operation names.
const (
	OpDatasetImport = "dataset.import"
	OpDatasetList   = "dataset.list"
	OpDatasetShow   = "dataset.show"
	OpDatasetPrice  = "dataset.price"
	OpDatasetRemove = "dataset.remove"
	OpLicenceGrant  = "licence.grant"
	OpLicenceRevoke = "licence.revoke"
	OpLicenceList   = "licence.list"
)

// DatasetImport imports a new version of a dataset, replacing the old one.
type DatasetImport struct {
	Manifest ingest.Manifest `json:"manifest"`
}

// DatasetShow shows a dataset with its licences.
type DatasetShow struct {
	ID string `json:"id"`
}

// DatasetPrice sets what a per-query licensee pays per contributing request.
type DatasetPrice struct {
	ID      string `json:"id"`
	Credits int64  `json:"credits"`
}

// DatasetRemove deletes a dataset, its records and its licences. With the
// shared state apart from the data file (Ops.State), its licences, price
// and offer there stay: other nodes may hold the dataset too, and a
// licence of a dataset a node lacks reads nothing on that node.
type DatasetRemove struct {
	ID string `json:"id"`
}

// LicenceGrant lets an organisation read a dataset, in mode subscription or
// per_query (replacing an earlier licence of the pair).
type LicenceGrant struct {
	OrgID   string `json:"org"`
	Dataset string `json:"dataset"`
	Mode    string `json:"mode"`
}

// LicenceRevoke ends an organisation's licence to a dataset.
type LicenceRevoke struct {
	OrgID   string `json:"org"`
	Dataset string `json:"dataset"`
}

// LicenceList lists the licences of one organisation, or all when OrgID is
// empty.
type LicenceList struct {
	OrgID string `json:"org,omitempty"`
}

// DatasetView is the result of DatasetImport: the dataset as stored, and
// how many rows or features "outside": "skip" left out. It encodes as one
// flat JSON object.
type DatasetView struct {
	state.Dataset
	Skipped int `json:"skipped,omitempty"`
}

// DatasetDetail is the result of DatasetShow: the dataset and the licences
// granted on it (never nil).
type DatasetDetail struct {
	state.Dataset
	Licences []state.Licence `json:"licences"`
}

// Datasets lists the node's datasets, priced as State prices them.
func (o *Ops) Datasets(context.Context) ([]state.Dataset, error) {
	c, err := o.catalogue()
	if err != nil {
		return nil, err
	}
	ds, err := c.Datasets()
	if err != nil {
		return nil, err
	}
	if ds == nil {
		ds = []state.Dataset{}
	}
	if err := o.sharedPrices(ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// ShowDataset shows a dataset with the licences granted on it.
func (o *Ops) ShowDataset(_ context.Context, a DatasetShow) (DatasetDetail, error) {
	c, err := o.catalogue()
	if err != nil {
		return DatasetDetail{}, err
	}
	d, err := c.Dataset(a.ID)
	if err != nil {
		return DatasetDetail{}, err
	}
	one := []state.Dataset{d}
	if err := o.sharedPrices(one); err != nil {
		return DatasetDetail{}, err
	}
	d = one[0]
	all, err := o.state().Licences("")
	if err != nil {
		return DatasetDetail{}, err
	}
	ls := []state.Licence{}
	for _, l := range all {
		if l.Dataset == d.ID {
			ls = append(ls, l)
		}
	}
	return DatasetDetail{Dataset: d, Licences: ls}, nil
}

// PriceDataset sets a dataset's per-query price.
func (o *Ops) PriceDataset(ctx context.Context, a DatasetPrice) (_ state.Dataset, err error) {
	au := o.audit(ctx, OpDatasetPrice, "", a.ID, "credits", strconv.FormatInt(a.Credits, 10))
	defer au.done(&err)
	if _, err := o.catalogue(); err != nil {
		return state.Dataset{}, err
	}
	if a.Credits < 0 {
		return state.Dataset{}, fmt.Errorf("%w: price of dataset %q: %d credits is negative", state.ErrInvalid, a.ID, a.Credits)
	}
	if err := o.inCatalogue(a.ID); err != nil {
		return state.Dataset{}, err
	}
	d, err := au.state().SetPrice(a.ID, a.Credits)
	if err != nil {
		return state.Dataset{}, err
	}
	o.changed(ChangeDatasets)
	return d, nil
}

// RemoveDataset deletes a dataset, its records and (in the data file) its
// licences, and returns it as it was.
func (o *Ops) RemoveDataset(ctx context.Context, a DatasetRemove) (_ state.Dataset, err error) {
	au := o.audit(ctx, OpDatasetRemove, "", a.ID)
	defer au.done(&err)
	f, err := au.file()
	if err != nil {
		return state.Dataset{}, err
	}
	d, err := f.Dataset(a.ID)
	if err != nil {
		return state.Dataset{}, err
	}
	if err := f.RemoveDataset(a.ID); err != nil {
		return state.Dataset{}, err
	}
	o.changed(ChangeDatasets)
	return d, nil
}

// GrantLicence lets an organisation read a dataset.
func (o *Ops) GrantLicence(ctx context.Context, a LicenceGrant) (_ state.Licence, err error) {
	au := o.audit(ctx, OpLicenceGrant, a.OrgID, a.Dataset, "mode", text(a.Mode))
	defer au.done(&err)
	if _, err := o.catalogue(); err != nil {
		return state.Licence{}, err
	}
	if a.Mode != state.LicenceSubscription && a.Mode != state.LicencePerQuery {
		return state.Licence{}, fmt.Errorf("%w: licence mode %q: want %s or %s", state.ErrInvalid, a.Mode,
			state.LicenceSubscription, state.LicencePerQuery)
	}
	if err := o.inCatalogue(a.Dataset); err != nil {
		return state.Licence{}, err
	}
	l, err := au.state().GrantLicence(a.OrgID, a.Dataset, a.Mode, o.now())
	if err != nil {
		return state.Licence{}, err
	}
	o.changed(ChangeDatasets)
	return l, nil
}

// RevokeLicence ends an organisation's licence to a dataset and returns
// it as it was (only the pair when there was none).
func (o *Ops) RevokeLicence(ctx context.Context, a LicenceRevoke) (_ state.Licence, err error) {
	au := o.audit(ctx, OpLicenceRevoke, a.OrgID, a.Dataset)
	defer au.done(&err)
	ls, err := o.state().Licences(a.OrgID)
	if err != nil {
		return state.Licence{}, err
	}
	found := state.Licence{OrgID: a.OrgID, Dataset: a.Dataset}
	for _, l := range ls {
		if l.OrgID == a.OrgID && l.Dataset == a.Dataset {
			found = l
		}
	}
	if err := au.state().RevokeLicence(a.OrgID, a.Dataset); err != nil {
		return state.Licence{}, err
	}
	o.changed(ChangeDatasets)
	return found, nil
}

// Licences lists licences.
func (o *Ops) Licences(_ context.Context, a LicenceList) ([]state.Licence, error) {
	ls, err := o.state().Licences(a.OrgID)
	if err != nil {
		return nil, err
	}
	if ls == nil {
		ls = []state.Licence{}
	}
	return ls, nil
}

// inCatalogue checks, when the shared state is kept apart from the data
// file, that dataset id is one of this node's: the state's own check may
// see datasets of other nodes, or none. Errors: state.ErrNotFound naming
// the dataset; errNoCatalogue without a data file.
func (o *Ops) inCatalogue(id string) error {
	if !o.shared() {
		return nil // the file's own transaction checks it
	}
	c, err := o.catalogue()
	if err != nil {
		return err
	}
	_, err = c.Dataset(id)
	return err
}

// sharedPrices replaces, when the shared state is kept apart from the data
// file, the per-query price of each dataset in ds with the one the shared
// state holds (the data file's copy is not updated by a price set there).
// The state has no price lookup of its own: Readable of a key of the
// owner, narrowed to the datasets, returns them as the state prices them.
func (o *Ops) sharedPrices(ds []state.Dataset) error {
	if !o.shared() || len(ds) == 0 {
		return nil
	}
	byOwner := map[string][]string{}
	for _, d := range ds {
		byOwner[d.Owner] = append(byOwner[d.Owner], d.ID)
	}
	price := map[string]int64{}
	for owner, ids := range byOwner {
		acc, err := o.State.Readable(state.Key{OrgID: owner, Datasets: ids})
		if err != nil {
			return err
		}
		for _, a := range acc {
			if a.Dataset.Owner == owner {
				price[a.Dataset.ID] = a.Dataset.Price
			}
		}
	}
	for i := range ds {
		if p, ok := price[ds[i].ID]; ok {
			ds[i].Price = p
		}
	}
	return nil
}

// ImportDataset imports the dataset version a.Manifest describes (see
// ingest.Import: inputs streamed, declarations and headers checked before
// any data is read, features sorted in bounded memory) and switches the
// dataset to it atomically, with its audit entry when the data file keeps
// the log. Reading is reported through o.Progress.
//
// Errors wrap state.ErrInvalid for bad input and name the file and the line
// (CSV, counted from 1, the header being line 1), the feature (counted
// from 0) or the raster's strip or tile, with the reason; state.ErrNotFound
// when the owner does not exist; bolt.ErrNoGrid when the file holds no
// grid; ctx's error when ctx ends. Safe for concurrent use (imports of one
// file run one after another).
func (o *Ops) ImportDataset(ctx context.Context, a DatasetImport) (_ DatasetView, err error) {
	m := a.Manifest
	au := o.audit(ctx, OpDatasetImport, m.Owner, m.ID)
	defer au.done(&err)
	f, err := au.file()
	if err != nil {
		return DatasetView{}, err
	}
	// Refuse a directory, a device, an unreadable file or a pipe that
	// cannot serve before any input is opened.
	if err := ingest.CheckInputs(m, o.Stdin != nil); err != nil {
		return DatasetView{}, err
	}
	if err := o.mirrorOrg(m.Owner); err != nil {
		return DatasetView{}, err
	}
	stored, skipped, err := ingest.Import(ctx, m, f, o.opener(ctx), o.now())
	if err != nil {
		return DatasetView{}, err
	}
	o.changed(ChangeDatasets)
	return DatasetView{Dataset: stored, Skipped: skipped}, nil
}
