package state

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Attribute types and aggregations (docs/contract.md §7).
const (
	TypeNumber   = "number"
	TypeCategory = "category"
	TypeText     = "text"

	AggSum  = "sum"
	AggMean = "mean"
	AggMode = "mode"
)

// Attribute declares one attribute a dataset records per frame.
type Attribute struct {
	Name        string   `json:"name"`  // key in the frame's attributes object; ^[A-Za-z0-9_]{1,64}$
	Label       string   `json:"label"` // display text, e.g. "Estimated population"
	Unit        string   `json:"unit,omitempty"`
	Type        string   `json:"type"`        // number | category | text
	Aggregation string   `json:"aggregation"` // sum | mean | mode (sum and mean only for numbers)
	Year        int      `json:"year,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
}

// Dataset is a dataset's description: what a licence, an offer and a
// price are about. The datasets and their frame records live in each
// node's data file (package bolt), which checks and stores them.
type Dataset struct {
	ID          string      `json:"id"` // same rule as organisation ids
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Owner       string      `json:"owner"` // organisation id
	Attributes  []Attribute `json:"attributes,omitempty"`
	Price       int64       `json:"price"` // credits a per-query licensee pays per contributing request (0 = free; the CLI defaults to 1)
	Source      string      `json:"source,omitempty"`
	Version     int         `json:"version"`  // set by the import
	Frames      int         `json:"frames"`   // frames with a record, set by the import
	Features    int         `json:"features"` // features in all, set by the import
	ImportedAt  time.Time   `json:"importedAt"`
}

// Licence modes.
const (
	LicenceSubscription = "subscription"
	LicencePerQuery     = "per_query"
)

// Licence lets an organisation read another's dataset, on the terms it
// was granted on: later price changes apply to new licences only.
type Licence struct {
	OrgID   string    `json:"org"`
	Dataset string    `json:"dataset"`
	Mode    string    `json:"mode"`
	Granted time.Time `json:"granted"`
	// Price is the price agreed, when Priced: per query, the credits
	// charged per started 100 frames read (package access's Price);
	// subscription, the credits paid when licensed. A licence granted
	// before prices were recorded is not Priced and pays the dataset's
	// current price.
	Price  int64 `json:"price,omitempty"`
	Priced bool  `json:"priced,omitempty"`
}

// Terms are what a buyer agrees to when licensing an offer: its mode and
// price (per query, per started 100 frames read; subscription, paid once).
type Terms struct {
	Mode  string `json:"mode"`
	Price int64  `json:"price"`
}

// String says the terms in words, for a page or an error.
func (t Terms) String() string {
	if t.Mode == OfferPerQuery || t.Mode == LicencePerQuery {
		return CreditsText(t.Price) + " per query (per started 100 frames read)"
	}
	return "a subscription for " + CreditsText(t.Price) + ", paid once when licensed"
}

// CheckLicenceMode is GrantLicence's check of a mode. Errors: ErrInvalid.
func CheckLicenceMode(mode string) error {
	switch mode {
	case LicenceSubscription, LicencePerQuery:
		return nil
	}
	return Errorf(ErrInvalid, "invalid licence mode %q: must be subscription or per_query", mode)
}

// Access is a dataset a key may read, and whether reading it is charged
// per query.
type Access struct {
	Dataset  Dataset
	PerQuery bool
}

// DatasetPrice names a per-query dataset and what Charge debits for it
// (package access's Price), with the frames whose values were read, which
// the ledger entry records (0: not counted).
type DatasetPrice struct {
	ID     string
	Price  int64
	Frames int
}

// Offer modes: how an organisation offers one of its datasets to the
// others in the marketplace.
const (
	OfferPrivate      = "private"      // not offered; nobody may license it from the marketplace
	OfferSubscription = "subscription" // licensed for a flat price, debited once when licensed
	OfferPerQuery     = "per_query"    // licensed free; each contributing request pays the dataset's Price
)

// maxLicenceTextLen bounds an offer's licence text, in bytes.
const maxLicenceTextLen = 8000

// Offer is how a dataset is offered in the marketplace.
type Offer struct {
	Dataset     string    `json:"dataset"`
	Mode        string    `json:"mode"`                  // OfferSubscription or OfferPerQuery (private offers are not stored)
	Price       int64     `json:"price"`                 // subscription: credits debited once; per_query: the dataset's Price per contributing request
	LicenceText string    `json:"licenceText,omitempty"` // the terms a licensee accepts
	Updated     time.Time `json:"updated"`
}

// Terms returns the offer's terms.
func (o Offer) Terms() Terms { return Terms{Mode: o.Mode, Price: o.Price} }

// Listing is an offer with the dataset it offers, for the catalogue.
type Listing struct {
	Offer
	Info Dataset `json:"info"` // the dataset's description: name, owner, attributes, source, frames, year
}

// CheckPrice is SetPrice's check of the credits a per-query licensee pays
// per request. Errors: ErrInvalid.
func CheckPrice(dataset string, credits int64) error {
	if credits < 0 {
		return Errorf(ErrInvalid, "invalid price %d for dataset %s: must be 0 (free) or more credits", credits, dataset)
	}
	return nil
}

// CheckOffer is SetOffer's check of an offer: its mode and, when it is
// not private, its price and licence text. Errors: ErrInvalid.
func CheckOffer(o Offer) error {
	switch o.Mode {
	case OfferPrivate:
		return nil
	case OfferSubscription, OfferPerQuery:
	default:
		return Errorf(ErrInvalid, "invalid offer mode %q: must be private, subscription or per_query", o.Mode)
	}
	if err := CheckPrice(o.Dataset, o.Price); err != nil {
		return err
	}
	return CheckText("licence text of dataset "+o.Dataset, o.LicenceText, maxLicenceTextLen, true)
}

// maxRequestIDLen bounds a charged request's id or key id, in bytes.
const maxRequestIDLen = 200

// CheckRef is the check of a key id or request id that a charge or a
// reservation records: at most 200 bytes of printable text. Errors:
// ErrInvalid.
func CheckRef(what, ref string) error {
	return CheckText(what, ref, maxRequestIDLen, false)
}

// CheckCharge applies Charge's checks to its arguments and returns ds
// sorted by dataset id. Errors: ErrInvalid for a bad or repeated dataset
// id, a negative price or an over-long key or request id.
func CheckCharge(keyID, requestID string, ds []DatasetPrice) ([]DatasetPrice, error) {
	if err := CheckRef("key id", keyID); err != nil {
		return nil, err
	}
	if err := CheckRef("request id", requestID); err != nil {
		return nil, err
	}
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b DatasetPrice) int { return strings.Compare(a.ID, b.ID) })
	for i, d := range sorted {
		switch {
		case !ValidID(d.ID):
			return nil, Errorf(ErrInvalid, "invalid dataset id %q: must match %s", d.ID, IDRule)
		case i > 0 && sorted[i-1].ID == d.ID:
			return nil, Errorf(ErrInvalid, "dataset %s is charged twice in one request", d.ID)
		case d.Price < 0:
			return nil, Errorf(ErrInvalid, "invalid price %d for dataset %s: must be 0 or more credits", d.Price, d.ID)
		}
	}
	return sorted, nil
}

// SortLicences sorts licences as Licences returns them: by organisation,
// then dataset id.
func SortLicences(l []Licence) {
	slices.SortFunc(l, func(a, b Licence) int {
		return cmp.Or(strings.Compare(a.OrgID, b.OrgID), strings.Compare(a.Dataset, b.Dataset))
	})
}
