package admin

import (
	"context"
	"encoding/json"
	"fmt"

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

// doDataset runs the dataset and licence operations; ok is false for an
// operation it does not know.
func (o *Ops) doDataset(ctx context.Context, op string, args json.RawMessage) (res any, ok bool, err error) {
	switch op {
	case OpDatasetImport:
		var a DatasetImport
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		v, err := o.ImportDataset(ctx, a.Manifest)
		if err != nil {
			return nil, true, err
		}
		return v, true, nil
	case OpDatasetList:
		ds, err := o.Store.Datasets()
		if err != nil {
			return nil, true, err
		}
		if ds == nil {
			ds = []state.Dataset{}
		}
		if err := o.sharedPrices(ds); err != nil {
			return nil, true, err
		}
		return ds, true, nil
	case OpDatasetShow:
		var a DatasetShow
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		d, err := o.Store.Dataset(a.ID)
		if err != nil {
			return nil, true, err
		}
		one := []state.Dataset{d}
		if err := o.sharedPrices(one); err != nil {
			return nil, true, err
		}
		d = one[0]
		all, err := o.state().Licences("")
		if err != nil {
			return nil, true, err
		}
		ls := []state.Licence{}
		for _, l := range all {
			if l.Dataset == d.ID {
				ls = append(ls, l)
			}
		}
		return DatasetDetail{Dataset: d, Licences: ls}, true, nil
	case OpDatasetPrice:
		var a DatasetPrice
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		if a.Credits < 0 {
			return nil, true, fmt.Errorf("%w: price of dataset %q: %d credits is negative", state.ErrInvalid, a.ID, a.Credits)
		}
		if err := o.inCatalogue(a.ID); err != nil {
			return nil, true, err
		}
		d, err := o.state().SetPrice(a.ID, a.Credits)
		if err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return d, true, nil
	case OpDatasetRemove:
		var a DatasetRemove
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		d, err := o.Store.Dataset(a.ID)
		if err != nil {
			return nil, true, err
		}
		if err := o.Store.RemoveDataset(a.ID); err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return d, true, nil
	case OpLicenceGrant:
		var a LicenceGrant
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		if a.Mode != state.LicenceSubscription && a.Mode != state.LicencePerQuery {
			return nil, true, fmt.Errorf("%w: licence mode %q: want %s or %s", state.ErrInvalid, a.Mode,
				state.LicenceSubscription, state.LicencePerQuery)
		}
		if err := o.inCatalogue(a.Dataset); err != nil {
			return nil, true, err
		}
		l, err := o.state().GrantLicence(a.OrgID, a.Dataset, a.Mode, o.now())
		if err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return l, true, nil
	case OpLicenceRevoke:
		var a LicenceRevoke
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		ls, err := o.state().Licences(a.OrgID)
		if err != nil {
			return nil, true, err
		}
		var found state.Licence
		for _, l := range ls {
			if l.OrgID == a.OrgID && l.Dataset == a.Dataset {
				found = l
			}
		}
		if err := o.state().RevokeLicence(a.OrgID, a.Dataset); err != nil {
			return nil, true, err
		}
		if found.OrgID == "" {
			found = state.Licence{OrgID: a.OrgID, Dataset: a.Dataset}
		}
		o.changed(ChangeDatasets)
		return found, true, nil
	case OpLicenceList:
		var a LicenceList
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		ls, err := o.state().Licences(a.OrgID)
		if err != nil {
			return nil, true, err
		}
		if ls == nil {
			ls = []state.Licence{}
		}
		return ls, true, nil
	}
	return nil, false, nil
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

// ImportDataset imports the dataset version m describes (see ingest.Import:
// inputs streamed, declarations and headers checked before any data is
// read, features sorted in bounded memory) and switches the dataset to it
// atomically. Reading is reported through o.Progress.
//
// Errors wrap state.ErrInvalid for bad input and name the file and the line
// (CSV, counted from 1, the header being line 1), the feature (counted
// from 0) or the raster's strip or tile, with the reason; state.ErrNotFound
// when the owner does not exist; bolt.ErrNoGrid when the file holds no
// grid; ctx's error when ctx ends. Safe for concurrent use (imports of one
// file run one after another).
func (o *Ops) ImportDataset(ctx context.Context, m ingest.Manifest) (DatasetView, error) {
	// Refuse a directory, a device, an unreadable file or a pipe that
	// cannot serve before any input is opened.
	if err := ingest.CheckInputs(m, o.Stdin != nil); err != nil {
		return DatasetView{}, err
	}
	if err := o.mirrorOrg(m.Owner); err != nil {
		return DatasetView{}, err
	}
	stored, skipped, err := ingest.Import(ctx, m, o.Store, o.opener(ctx), o.now())
	if err != nil {
		return DatasetView{}, err
	}
	o.changed(ChangeDatasets)
	return DatasetView{Dataset: stored, Skipped: skipped}, nil
}
