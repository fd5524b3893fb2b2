package pgstate

import (
	"context"
	"errors"
	"time"

	"frameindex/state"

	"github.com/jackc/pgx/v5"
)

// errNoCatalogue: an operation that needs the node's datasets, in a Store
// opened without them.
var errNoCatalogue = errors.New("this operation needs the node's datasets: give --data with --state")

func (s *Store) catalogue() (Catalogue, error) {
	if s.cat == nil {
		return nil, errNoCatalogue
	}
	return s.cat, nil
}

// dataset reads a dataset's description from the node's file. Errors:
// ErrNotFound; errNoCatalogue; the file's.
func (s *Store) dataset(id string) (state.Dataset, error) {
	cat, err := s.catalogue()
	if err != nil {
		return state.Dataset{}, err
	}
	return cat.Dataset(id)
}

// priceOf applies the price kept in the database, when there is one, to a
// dataset described by the node's file.
func priceOf(ctx context.Context, tx pgx.Tx, d *state.Dataset) error {
	err := tx.QueryRow(ctx, "SELECT price FROM prices WHERE dataset = $1", d.ID).Scan(&d.Price)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}

// Licences is bolt.Store.Licences.
func (s *Store) Licences(orgID string) ([]state.Licence, error) {
	var out []state.Licence
	err := s.view(func(ctx context.Context, tx pgx.Tx) error {
		if orgID != "" {
			if _, err := getOrg(ctx, tx, orgID); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, "SELECT org, dataset, mode, granted, price FROM licences WHERE $1 = '' OR org = $1", orgID)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (state.Licence, error) {
			var l state.Licence
			var price *int64
			err := r.Scan(&l.OrgID, &l.Dataset, &l.Mode, &l.Granted, &price)
			l.Granted = l.Granted.UTC()
			if price != nil {
				l.Price, l.Priced = *price, true
			}
			return l, err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	state.SortLicences(out)
	if len(out) == 0 {
		out = nil
	}
	return out, nil
}

// GrantLicence is bolt.Store.GrantLicence; the dataset is looked up in the
// node's file.
func (s *Store) GrantLicence(orgID, dataset, mode string, now time.Time) (state.Licence, error) {
	if err := state.CheckLicenceMode(mode); err != nil {
		return state.Licence{}, err
	}
	l := state.Licence{OrgID: orgID, Dataset: dataset, Mode: mode, Granted: s.nowOr(now), Priced: true}
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		if _, err := getOrg(ctx, tx, orgID); err != nil {
			return err
		}
		d, err := s.dataset(dataset)
		if err != nil {
			return err
		}
		if err := state.CheckNotOwner(orgID, d); err != nil {
			return err
		}
		if mode == state.LicencePerQuery {
			// The dataset's price now: the prices table's, or the node's.
			l.Price = d.Price
			if err := tx.QueryRow(ctx, "SELECT price FROM prices WHERE dataset = $1", dataset).Scan(&l.Price); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO licences (org, dataset, mode, granted, price) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (org, dataset) DO UPDATE SET mode = excluded.mode, granted = excluded.granted, price = excluded.price`,
			l.OrgID, l.Dataset, l.Mode, l.Granted, l.Price)
		return err
	})
	if err != nil {
		return state.Licence{}, err
	}
	return l, nil
}

// RevokeLicence is bolt.Store.RevokeLicence.
func (s *Store) RevokeLicence(orgID, dataset string) error {
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM licences WHERE org = $1 AND dataset = $2", orgID, dataset)
		if err == nil && tag.RowsAffected() == 0 {
			return state.Errorf(state.ErrNotFound, "organisation %q holds no licence for dataset %q", orgID, dataset)
		}
		return err
	})
}

// SetPrice is bolt.Store.SetPrice: the dataset is looked up in the node's
// file and its price kept in the database, where it overrides the file's
// for every node.
func (s *Store) SetPrice(id string, credits int64) (state.Dataset, error) {
	if err := state.CheckPrice(id, credits); err != nil {
		return state.Dataset{}, err
	}
	d, err := s.dataset(id)
	if err != nil {
		return state.Dataset{}, err
	}
	err = s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO prices (dataset, price) VALUES ($1, $2)
			ON CONFLICT (dataset) DO UPDATE SET price = excluded.price`, id, credits)
		return err
	})
	if err != nil {
		return state.Dataset{}, err
	}
	d.Price = credits
	return d, nil
}

// Offers is bolt.Store.Offers: the node's datasets with the offers and
// prices in the database.
func (s *Store) Offers() ([]state.Listing, error) {
	cat, err := s.catalogue()
	if err != nil {
		return nil, err
	}
	all, err := cat.Datasets()
	if err != nil {
		return nil, err
	}
	offers := map[string]state.Offer{}
	prices := map[string]int64{}
	err = s.view(func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT dataset, mode, price, licence_text, updated FROM offers")
		if err != nil {
			return err
		}
		var o state.Offer
		if _, err := pgx.ForEachRow(rows, []any{&o.Dataset, &o.Mode, &o.Price, &o.LicenceText, &o.Updated}, func() error {
			o.Updated = o.Updated.UTC()
			offers[o.Dataset] = o
			return nil
		}); err != nil {
			return err
		}
		return readPrices(ctx, tx, prices)
	})
	if err != nil {
		return nil, err
	}
	var out []state.Listing
	for _, d := range all {
		if p, ok := prices[d.ID]; ok {
			d.Price = p
		}
		o, ok := offers[d.ID]
		if !ok {
			continue
		}
		if o.Mode == state.OfferPerQuery {
			o.Price = d.Price
		}
		out = append(out, state.Listing{Offer: o, Info: d})
	}
	return out, nil
}

func readPrices(ctx context.Context, tx pgx.Tx, into map[string]int64) error {
	rows, err := tx.Query(ctx, "SELECT dataset, price FROM prices")
	if err != nil {
		return err
	}
	var id string
	var p int64
	_, err = pgx.ForEachRow(rows, []any{&id, &p}, func() error { into[id] = p; return nil })
	return err
}

// SetOffer is bolt.Store.SetOffer.
func (s *Store) SetOffer(o state.Offer, now time.Time) (state.Offer, error) {
	if o.Mode == state.OfferPrivate {
		return state.Offer{Dataset: o.Dataset, Mode: state.OfferPrivate}, s.WithdrawOffer(o.Dataset)
	}
	if err := state.CheckOffer(o); err != nil {
		return state.Offer{}, err
	}
	o.Updated = s.nowOr(now)
	if _, err := s.dataset(o.Dataset); err != nil {
		return state.Offer{}, err
	}
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		var b pgx.Batch
		if o.Mode == state.OfferPerQuery {
			b.Queue(`INSERT INTO prices (dataset, price) VALUES ($1, $2)
				ON CONFLICT (dataset) DO UPDATE SET price = excluded.price`, o.Dataset, o.Price)
		}
		b.Queue(`INSERT INTO offers (dataset, mode, price, licence_text, updated) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (dataset) DO UPDATE SET mode = excluded.mode, price = excluded.price,
			licence_text = excluded.licence_text, updated = excluded.updated`,
			o.Dataset, o.Mode, o.Price, o.LicenceText, o.Updated)
		return run(ctx, tx, &b)
	})
	if err != nil {
		return state.Offer{}, err
	}
	return o, nil
}

// WithdrawOffer is bolt.Store.WithdrawOffer.
func (s *Store) WithdrawOffer(dataset string) error {
	if _, err := s.dataset(dataset); err != nil {
		return err
	}
	return s.tx(func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "DELETE FROM offers WHERE dataset = $1", dataset)
		return err
	})
}

// LicenseOffer is bolt.Store.LicenseOffer: the licence and the debit of a
// subscription's price in one transaction under the organisation's row
// lock.
func (s *Store) LicenseOffer(orgID, dataset string, seen *state.Terms, now time.Time) (state.Licence, *state.LedgerEntry, error) {
	at := s.nowOr(now)
	var l state.Licence
	var entry *state.LedgerEntry
	err := s.tx(func(ctx context.Context, tx pgx.Tx) error {
		entry = nil
		org, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return err
		}
		d, err := s.dataset(dataset)
		if err != nil {
			return err
		}
		if err := state.CheckNotOwner(orgID, d); err != nil {
			return err
		}
		var o state.Offer
		var price *int64
		err = tx.QueryRow(ctx, "SELECT mode, price, (SELECT price FROM prices WHERE dataset = $1) FROM offers WHERE dataset = $1 FOR SHARE", dataset).Scan(&o.Mode, &o.Price, &price)
		if errors.Is(err, pgx.ErrNoRows) {
			return state.Errorf(state.ErrNotFound, "dataset %s is not offered in the marketplace", dataset)
		}
		if err != nil {
			return err
		}
		if o.Mode == state.OfferPerQuery { // as Offers shows it
			if o.Price = d.Price; price != nil {
				o.Price = *price
			}
		}
		var held bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM licences WHERE org = $1 AND dataset = $2)", orgID, dataset).Scan(&held); err != nil {
			return err
		}
		if held {
			return state.Errorf(state.ErrExists, "organisation %s already holds a licence for dataset %s", orgID, dataset)
		}
		var paid state.Org
		var e *state.LedgerEntry
		if l, paid, e, err = state.DecideLicence(org.Org, dataset, o, seen, at); err != nil {
			return err
		}
		var b pgx.Batch
		if e != nil {
			org.settle(&b, paid, nil, nil)
			org.appendLedger(&b, e)
			org.save(&b)
			entry = e
		}
		b.Queue("INSERT INTO licences (org, dataset, mode, granted, price) VALUES ($1, $2, $3, $4, $5)", l.OrgID, l.Dataset, l.Mode, l.Granted, l.Price)
		return run(ctx, tx, &b)
	})
	if err != nil {
		return state.Licence{}, nil, err
	}
	return l, entry, nil
}

// Readable is bolt.Store.Readable: the node's datasets, the licences and
// prices in the database, read in one round trip.
func (s *Store) Readable(k state.Key) ([]state.Access, error) {
	if k.OrgID == "" {
		return nil, nil
	}
	cat, err := s.catalogue()
	if err != nil {
		return nil, err
	}
	all, err := cat.Datasets()
	if err != nil {
		return nil, err
	}
	mode := map[string]state.Licence{}
	prices := map[string]int64{}
	ctx, cancel := s.ctx()
	defer cancel()
	for attempt := 0; ; attempt++ {
		// One statement, outside a transaction: the licences and prices
		// it reads are one snapshot.
		rows, err := s.pool.Query(ctx, `SELECT true, dataset, mode, price FROM licences WHERE org = $1
			UNION ALL SELECT false, dataset, '', price FROM prices`, k.OrgID)
		if err == nil {
			var lic bool
			var id, m string
			var p *int64
			_, err = pgx.ForEachRow(rows, []any{&lic, &id, &m, &p}, func() error {
				switch {
				case lic && p != nil:
					mode[id] = state.Licence{Mode: m, Price: *p, Priced: true}
				case lic:
					mode[id] = state.Licence{Mode: m}
				case p != nil:
					prices[id] = *p
				}
				return nil
			})
		}
		if err == nil {
			break
		}
		if attempt < 3 && s.deadConn(ctx, err) {
			clear(mode)
			clear(prices)
			continue
		}
		return nil, s.wrap(err)
	}
	for i, d := range all {
		if pr, ok := prices[d.ID]; ok {
			all[i].Price = pr
		}
	}
	return state.ReadableBy(k, all, mode), nil
}

// AdoptPrices gives each of the node's datasets ds that has no price in
// the database the one ds holds, in one statement: the first node to
// serve or import a dataset sets its price, and from then on the
// database's is the one every node charges and shows, whatever a node's
// file says (admin.Ops.TermsDrift reports the difference).
func (s *Store) AdoptPrices(ds []state.Dataset) error {
	ids := make([]string, len(ds))
	prices := make([]int64, len(ds))
	for i, d := range ds {
		ids[i], prices[i] = d.ID, d.Price
	}
	return s.read(func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, `INSERT INTO prices (dataset, price) SELECT * FROM unnest($1::text[], $2::bigint[])
			ON CONFLICT (dataset) DO NOTHING`, ids, prices)
		return err
	})
}
