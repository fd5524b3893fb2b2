package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// SyncOptions control SyncDatasets.
type SyncOptions struct {
	// Keep keeps the datasets this file has and the snapshot lacks;
	// otherwise they are removed (with their licences and offers, as
	// RemoveDataset does).
	Keep bool
	// DryRun reports what would change and changes nothing.
	DryRun bool
	// KeepPrices keeps the price of every dataset this file holds, and
	// never takes the snapshot's: the node shares its state, where prices,
	// offers and licence terms have their one home (serve --state).
	KeepPrices bool
}

// DatasetSync is one dataset SyncDatasets changed, or would change.
type DatasetSync struct {
	ID       string `json:"id"`
	From     int    `json:"from,omitempty"`     // version before; 0 when the file lacked it
	To       int    `json:"to,omitempty"`       // version after; 0 when removed
	Frames   int    `json:"frames,omitempty"`   // frame records copied
	Features int    `json:"features,omitempty"` // features copied
}

// SyncReport is the outcome of SyncDatasets. Lists are never nil.
type SyncReport struct {
	Snapshot string `json:"snapshot"`
	DryRun   bool   `json:"dryRun,omitempty"`
	// Copied: description and records copied (a new or another version).
	Copied []DatasetSync `json:"copied"`
	// Updated: same version, description changed (name, price, ...).
	Updated []DatasetSync `json:"updated"`
	// Removed: in this file only, removed.
	Removed []DatasetSync `json:"removed"`
	// Kept: in this file only, kept (SyncOptions.Keep).
	Kept []string `json:"kept"`
	// Unchanged: the same in both.
	Unchanged []string `json:"unchanged"`
	// SharedTerms is set when SyncOptions.KeepPrices was: prices, offers
	// and licence terms are the shared state's, and none was taken from
	// the snapshot.
	SharedTerms bool `json:"sharedTerms,omitempty"`
	// PricesKept lists the datasets whose price in the snapshot differs
	// from this file's, which was kept (SyncOptions.KeepPrices).
	PricesKept []string `json:"pricesKept,omitempty"`
	// GridDiffers is set when the snapshot's grid is not this file's (kind,
	// frames or bounds): records are keyed by frame id, so the datasets
	// copied may name frames this grid lacks. The sync goes on; the
	// command warns.
	GridDiffers bool `json:"gridDiffers,omitempty"`
}

// Changed reports whether the sync changed (or, dry, would change) the
// datasets.
func (r SyncReport) Changed() bool {
	return len(r.Copied)+len(r.Updated)+len(r.Removed) > 0
}

// sameVersion reports whether two descriptions of a dataset describe the
// same records: the version counter alone is not enough, since two files
// that each imported once both hold version 1.
func sameVersion(a, b state.Dataset) bool {
	return a.Version == b.Version && a.ImportedAt.Equal(b.ImportedAt) && a.Frames == b.Frames && a.Features == b.Features
}

// syncStageName is the staging bucket, in dsv, that holds the copy of
// version v of dataset id while it is written: "<id>@<v>~sync", holding
// one bucket named as the live version will be ("<id>@<v>"), which the
// final transaction moves into dsv. The prefix "<id>@" makes it a staging
// bucket of the dataset to Check, Compact and the next import.
func syncStageName(id string, v int) []byte {
	return append(versionBucketName(id, v), "~sync"...)
}

// syncPlan is one dataset to copy or update, with its description as the
// snapshot stores it (bytes valid during the snapshot's transaction).
type syncPlan struct {
	d    state.Dataset
	raw  []byte
	from int
}

// SyncDatasets makes this file's datasets those of the snapshot at path (a
// copy of another node's data file, as `frameindex backup` writes it):
// every dataset the snapshot holds in another version (another version
// counter, import time, or record count) or this file lacks is copied,
// description and records, keeping the snapshot's version number; a
// dataset whose version matches but whose description differs (name,
// price) gets the snapshot's description; a dataset only this file holds
// is removed unless opts.Keep; with opts.KeepPrices a dataset this file
// holds keeps its price. The grid, organisations, keys, ledgers,
// usage, users, licences and offers are not touched (except those of a
// removed dataset, as RemoveDataset does).
//
// It is all or nothing: the records are first written into staging
// buckets (invisible to readers, in transactions of bounded size so that
// the server's other writes run between them), then one transaction
// switches every dataset at once. Readers see the old datasets or the new
// ones, never a mix. When ctx ends or anything fails before that
// transaction, the staging buckets are removed (best effort; Check lists
// any left and the next import or Compact drops them) and the datasets are
// as they were. Imports of this file wait while it runs.
//
// Before anything is written, the snapshot's records of each dataset to
// copy are checked as Check checks a live version, and each dataset's
// owner must be an organisation of this file.
//
// Errors: ErrNotFound when there is no file at path; ErrInvalid when
// path is this file; those of Open for the snapshot (ErrLocked, ErrForeign, ErrCorrupt,
// ErrNewerSchema), with the snapshot's path; ErrCorrupt naming the
// snapshot, dataset and first problem of a version that does not check;
// ErrNotFound naming an owner this file lacks; ErrInvalid when a dataset
// changed in this file meanwhile; ctx's error; file errors. Safe for
// concurrent use with the Store's other methods.
func (s *Store) SyncDatasets(ctx context.Context, path string, opts SyncOptions) (SyncReport, error) {
	rep := SyncReport{Snapshot: path, DryRun: opts.DryRun, Copied: []DatasetSync{}, Updated: []DatasetSync{},
		Removed: []DatasetSync{}, Kept: []string{}, Unchanged: []string{}, SharedTerms: opts.KeepPrices}
	a, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return rep, state.Errorf(state.ErrNotFound, "snapshot %s does not exist: write one on the other node with `frameindex backup --out FILE`, ship it here and give its path", path)
	}
	if b, berr := os.Stat(s.path); err == nil && berr == nil && os.SameFile(a, b) {
		return rep, state.Errorf(state.ErrInvalid, "the snapshot %s is the data file itself: give a copy of another node's file", path)
	}
	src, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return rep, fmt.Errorf("snapshot: %w", err)
	}
	defer src.Close()

	mu := s.importLock()
	mu.Lock()
	defer mu.Unlock()
	err = src.view(func(stx *bbolt.Tx) error {
		copies, updates, removes, err := s.planSync(ctx, src, stx, opts, &rep)
		if err != nil || opts.DryRun {
			return err
		}
		return s.applySync(ctx, src, stx, copies, updates, removes, &rep)
	})
	if err != nil {
		return rep, err
	}
	return rep, nil
}

// planSync compares the snapshot's datasets with this file's, fills rep's
// lists and checks what is to be copied.
func (s *Store) planSync(ctx context.Context, src *Store, stx *bbolt.Tx, opts SyncOptions, rep *SyncReport) (copies, updates []syncPlan, removes []string, err error) {
	theirs, err := src.allDatasets(stx)
	if err != nil {
		return nil, nil, nil, err
	}
	rep.GridDiffers = !sameGrid(s, src, stx)
	ours, err := s.Datasets()
	if err != nil {
		return nil, nil, nil, err
	}
	mine := make(map[string]state.Dataset, len(ours))
	for _, d := range ours {
		mine[d.ID] = d
	}
	srcDatasets := stx.Bucket(bucketDatasets)
	owners := map[string]bool{}
	for _, d := range theirs {
		old, have := mine[d.ID]
		delete(mine, d.ID)
		raw := srcDatasets.Get([]byte(d.ID))
		if opts.KeepPrices && have && d.Price != old.Price {
			rep.PricesKept = append(rep.PricesKept, d.ID)
			d.Price = old.Price
			if raw, err = json.Marshal(d); err != nil {
				return nil, nil, nil, err
			}
		}
		switch {
		case !have || !sameVersion(old, d):
			copies = append(copies, syncPlan{d: d, raw: raw, from: old.Version})
			rep.Copied = append(rep.Copied, DatasetSync{ID: d.ID, From: old.Version, To: d.Version, Frames: d.Frames, Features: d.Features})
		case !sameDescription(s, old, raw):
			updates = append(updates, syncPlan{d: d, raw: raw, from: old.Version})
			rep.Updated = append(rep.Updated, DatasetSync{ID: d.ID, From: old.Version, To: d.Version})
		default:
			rep.Unchanged = append(rep.Unchanged, d.ID)
			continue
		}
		owners[d.Owner] = true
	}
	for _, d := range ours {
		if _, only := mine[d.ID]; !only {
			continue
		}
		if opts.Keep {
			rep.Kept = append(rep.Kept, d.ID)
			continue
		}
		removes = append(removes, d.ID)
		rep.Removed = append(rep.Removed, DatasetSync{ID: d.ID, From: d.Version})
	}
	// Every owner must exist here, or the file would not pass Check.
	for _, p := range append(slices.Clone(copies), updates...) {
		if !owners[p.d.Owner] {
			continue
		}
		delete(owners, p.d.Owner)
		if _, err := s.Org(p.d.Owner); errors.Is(err, state.ErrNotFound) {
			return nil, nil, nil, state.Errorf(state.ErrNotFound, "snapshot %s: dataset %q is owned by organisation %q, which %s does not hold: add the organisation (frameindex org add %s) and sync again",
				src.path, p.d.ID, p.d.Owner, s.path, p.d.Owner)
		} else if err != nil {
			return nil, nil, nil, err
		}
	}
	// The records to copy must be whole and decodable, as Check wants a
	// live version.
	versions := stx.Bucket(bucketVersions)
	for _, p := range copies {
		c := &checker{r: &CheckReport{}, ctx: ctx}
		if err := src.checkVersion(versions, p.d, c); err != nil {
			return nil, nil, nil, err
		}
		if len(c.r.Problems) > 0 {
			more := ""
			if n := len(c.r.Problems) - 1 + c.more; n > 0 {
				more = fmt.Sprintf(" (and %d more problems)", n)
			}
			return nil, nil, nil, state.Errorf(state.ErrCorrupt, "snapshot %s: %s%s: nothing was synced; check the snapshot with `frameindex check --data %s`",
				src.path, c.r.Problems[0], more, src.path)
		}
	}
	return copies, updates, removes, nil
}

// sameGrid reports whether the snapshot (read in stx) has this file's
// grid: the same kind, number of frames and bounds. Two files without a
// grid have the same one.
func sameGrid(s, src *Store, stx *bbolt.Tx) bool {
	theirs, terr := src.readGridInfo(stx)
	mine, merr := s.GridInfo()
	if terr != nil || merr != nil {
		return errors.Is(terr, ErrNoGrid) && errors.Is(merr, ErrNoGrid)
	}
	return theirs.Kind == mine.Kind && theirs.Frames == mine.Frames && theirs.Bounds == mine.Bounds
}

// sameDescription reports whether this file's description of d is byte
// for byte the snapshot's raw one.
func sameDescription(s *Store, d state.Dataset, raw []byte) bool {
	var mine []byte
	_ = s.view(func(tx *bbolt.Tx) error {
		mine = bytes.Clone(lookup(tx, bucketDatasets, d.ID))
		return nil
	})
	return bytes.Equal(mine, raw)
}

// applySync stages the records of copies, then switches every dataset in
// one transaction.
func (s *Store) applySync(ctx context.Context, src *Store, stx *bbolt.Tx, copies, updates []syncPlan, removes []string, rep *SyncReport) (err error) {
	staged := 0
	defer func() {
		if err == nil {
			return
		}
		// Best effort: on failure a staging bucket left behind is harmless.
		_ = s.unaudited().update(func(tx *bbolt.Tx) error {
			for _, p := range copies[:staged] {
				_ = dropVersion(tx, syncStageName(p.d.ID, p.d.Version))
			}
			return nil
		})
	}()
	versions := stx.Bucket(bucketVersions)
	for _, p := range copies {
		name, stage := versionBucketName(p.d.ID, p.d.Version), syncStageName(p.d.ID, p.d.Version)
		err := s.unaudited().update(func(tx *bbolt.Tx) error {
			vs, err := tx.CreateBucketIfNotExists(bucketVersions)
			if err != nil {
				return err
			}
			// Anything of the dataset but its live version is left over
			// from a crash: imports wait for us.
			if err := deleteVersions(vs, p.d.ID, p.from); err != nil {
				return err
			}
			parent, err := vs.CreateBucket(stage)
			if err != nil {
				return err
			}
			return createVersion(parent, name)
		})
		if err != nil {
			return err
		}
		staged++
		from := versions.Bucket(name)
		for _, sub := range [][]byte{bucketVFrames, bucketVFeats} {
			if err := s.copyStaged(ctx, from.Bucket(sub), stage, name, sub); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = s.update(func(tx *bbolt.Tx) error {
		ds, err := tx.CreateBucketIfNotExists(bucketDatasets)
		if err != nil {
			return err
		}
		for _, p := range append(slices.Clone(copies), updates...) {
			cur, found, err := s.getDataset(tx, p.d.ID)
			if err != nil {
				return err
			}
			if (found && cur.Version != p.from) || (!found && p.from != 0) {
				return state.Errorf(state.ErrInvalid, "dataset %s changed in %s while it was being synced: nothing was synced; sync again", p.d.ID, s.path)
			}
			if _, err := s.getOrg(tx, p.d.Owner); err != nil {
				return err
			}
			if err := ds.Put([]byte(p.d.ID), p.raw); err != nil {
				return err
			}
		}
		vs := tx.Bucket(bucketVersions)
		for _, p := range copies {
			name, stage := versionBucketName(p.d.ID, p.d.Version), syncStageName(p.d.ID, p.d.Version)
			parent := vs.Bucket(stage)
			if parent == nil || parent.Bucket(name) == nil {
				return state.Errorf(state.ErrInvalid, "dataset %s: its staged copy is gone (a compaction or an import ran meanwhile): nothing was synced; sync again", p.d.ID)
			}
			if vs.Bucket(name) != nil {
				if err := vs.DeleteBucket(name); err != nil {
					return err
				}
			}
			if err := tx.MoveBucket(name, parent, vs); err != nil {
				return err
			}
			// The old version and the emptied staging bucket.
			if err := deleteVersions(vs, p.d.ID, p.d.Version); err != nil {
				return err
			}
		}
		for _, id := range removes {
			if _, found, err := s.getDataset(tx, id); err != nil || !found {
				if err != nil {
					return err
				}
				continue // removed meanwhile: the outcome wanted
			}
			if err := s.removeDataset(tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		staged = 0 // moved: nothing to clean up
	}
	return err
}

// copyStaged copies every record of src into the staging bucket
// dsv/stage/name/sub, in transactions of bounded size. The records stay
// in the snapshot's mapping until each transaction has written them.
func (s *Store) copyStaged(ctx context.Context, src *bbolt.Bucket, stage, name, sub []byte) error {
	type kv struct{ k, v []byte }
	batch := make([]kv, 0, 1024)
	c := src.Cursor()
	k, v := c.First()
	for k != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch = batch[:0]
		size := 0
		for ; k != nil && len(batch) < stageFrames && size < stageBytes; k, v = c.Next() {
			batch = append(batch, kv{k, v})
			size += len(k) + len(v)
		}
		err := s.unaudited().update(func(tx *bbolt.Tx) error {
			var b *bbolt.Bucket
			if parent := versionBucket(tx, stage); parent != nil {
				if v := parent.Bucket(name); v != nil {
					b = v.Bucket(sub)
				}
			}
			if b == nil {
				return state.Errorf(state.ErrInvalid, "the staging bucket %s is gone (a compaction or an import ran meanwhile): nothing was synced; sync again", stage)
			}
			b.FillPercent = 1 // keys arrive in order
			for _, p := range batch {
				if err := b.Put(p.k, p.v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if afterSyncBatch != nil {
			afterSyncBatch(string(stage))
		}
	}
	return nil
}

// afterSyncBatch, when set (by tests), runs after each staging transaction
// of a sync.
var afterSyncBatch func(stage string)
