package admin

import (
	"context"
	"fmt"
	"path/filepath"

	"frameindex/bolt"
	"frameindex/state"
)

// OpDatasetSync makes the file's datasets those of a snapshot of another
// node's file (bolt.Store.SyncDatasets).
const OpDatasetSync = "dataset.sync"

// DatasetSync asks for a sync from the snapshot at Snapshot, which must be
// an absolute path when sent to a server (the server opens it, read-only).
type DatasetSync struct {
	Snapshot string `json:"snapshot"`
	Keep     bool   `json:"keep,omitempty"`
	DryRun   bool   `json:"dryRun,omitempty"`
}

// SyncDatasets makes the file's datasets those of the snapshot. A sync
// that changed something tells the server (ChangeDatasets): requests read
// datasets from the file, so the new versions are served from the next
// request on, without a restart. A sync changes what every key reads:
// the audit log records it, with the switch when the file keeps the log.
func (o *Ops) SyncDatasets(ctx context.Context, a DatasetSync) (_ bolt.SyncReport, err error) {
	au := o.audit(ctx, OpDatasetSync, "", "")
	defer au.done(&err)
	f, err := au.file()
	if err != nil {
		return bolt.SyncReport{}, err
	}
	if a.Snapshot == "" {
		return bolt.SyncReport{}, fmt.Errorf("%w: no snapshot given: name a copy of another node's data file (frameindex backup writes one)", state.ErrInvalid)
	}
	if !filepath.IsAbs(a.Snapshot) {
		return bolt.SyncReport{}, fmt.Errorf("%w: the snapshot path %q must be absolute", state.ErrInvalid, a.Snapshot)
	}
	// With a shared state, prices, offers and licence terms are its own:
	// the sync takes none from the snapshot, and its report says so.
	rep, err := f.SyncDatasets(ctx, a.Snapshot, bolt.SyncOptions{Keep: a.Keep, DryRun: a.DryRun, KeepPrices: o.shared()})
	if err != nil {
		return rep, err
	}
	if rep.Changed() && !rep.DryRun {
		o.changed(ChangeDatasets)
	}
	return rep, nil
}
