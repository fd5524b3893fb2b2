package cli

import (
	"fmt"
	"io"
	"strings"

	"frameindex/admin"
	"frameindex/bolt"

	"github.com/spf13/cobra"
)

func newSyncCommand() *cobra.Command {
	var data, from string
	var keep, dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "sync --from SNAPSHOT",
		Short: "Bring this node's datasets to those of another node's file",
		Long: `Make the datasets of --data those of SNAPSHOT, a consistent copy of
another node's data file (written there with "frameindex backup" and
shipped here). Every dataset SNAPSHOT holds in another version, or that
--data lacks, is copied (description and records, keeping its version
number); one whose version matches but whose description differs (name,
price) gets SNAPSHOT's description; one only --data holds is removed, with
its licences and offer, unless --keep. The grid, organisations, keys,
ledgers, usage, users, licences and offers are not touched. Each dataset's
owner must be an organisation of --data. When the server on --data
shares its state (serve --state), prices, offers and licence terms live
there alone: the sync keeps every dataset's price and says so.

All or nothing: records are staged unseen, then one transaction switches
every dataset at once; Ctrl-C or SIGTERM before then leaves --data as it
was. While "serve" runs on --data the sync goes through its admin socket
and the server serves the new versions from the next request, without a
restart. Compare nodes with GET /healthz.

The alternative is to import on every node from the same manifests
("frameindex import --manifest M.json" on each): same records, but each
node counts its own versions.`,
		Example: `  # on node A
  frameindex backup --out /tmp/a.db --data /var/lib/frameindex/frames.db
  # ship /tmp/a.db to node B, then on node B
  frameindex sync --from /tmp/a.db --data /var/lib/frameindex/frames.db --dry-run
  frameindex sync --from /tmp/a.db --data /var/lib/frameindex/frames.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" {
				return fmt.Errorf("--from is required: a copy of another node's data file (frameindex backup writes one)")
			}
			snap, err := absPath(from)
			if err != nil {
				return err
			}
			dataAbs, err := absPath(data)
			if err != nil {
				return err
			}
			rep, err := runOp(cmd.Context(), cmd.ErrOrStderr(), dataAbs, false, admin.SyncDatasetsOp,
				admin.DatasetSync{Snapshot: snap, Keep: keep, DryRun: dryRun})
			if err != nil {
				return interrupted(cmd.Context(), "the sync", err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), rep)
			}
			printSync(cmd.OutOrStdout(), data, rep)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().StringVar(&from, "from", "", "snapshot of another node's data file (required)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the datasets only --data holds (default: remove them)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would change; change nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// printSync writes a sync report for people.
func printSync(w io.Writer, data string, rep bolt.SyncReport) {
	verb := map[bool]string{false: "", true: "would be "}[rep.DryRun]
	if !rep.Changed() {
		fmt.Fprintf(w, "%s already holds the datasets of %s: nothing to sync\n", data, rep.Snapshot)
	}
	for _, d := range rep.Copied {
		from := "new"
		if d.From > 0 {
			from = fmt.Sprintf("version %d", d.From)
		}
		fmt.Fprintf(w, "%s: %scopied, %s -> version %d (%d frames, %d features)\n", d.ID, verb, from, d.To, d.Frames, d.Features)
	}
	for _, d := range rep.Updated {
		fmt.Fprintf(w, "%s: description %supdated (version %d)\n", d.ID, verb, d.To)
	}
	for _, d := range rep.Removed {
		fmt.Fprintf(w, "%s: %sremoved (version %d; not in the snapshot)\n", d.ID, verb, d.From)
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(w, "kept, not in the snapshot: %s\n", strings.Join(rep.Kept, ", "))
	}
	if len(rep.Unchanged) > 0 {
		fmt.Fprintf(w, "unchanged: %s\n", strings.Join(rep.Unchanged, ", "))
	}
	if rep.SharedTerms {
		fmt.Fprintln(w, "prices, offers and licence terms: the shared state's (this node serves with --state); none was taken from the snapshot")
		if len(rep.PricesKept) > 0 {
			fmt.Fprintf(w, "the snapshot's price differs for %s: not copied (set a price for every node with frameindex dataset price --state)\n", strings.Join(rep.PricesKept, ", "))
		}
	}
	if rep.GridDiffers && rep.Changed() {
		fmt.Fprintf(w, "warning: the snapshot's grid is not the grid of %s (kind, frames or bounds differ); the datasets name frames by id, so some records may fall outside this grid: build the same grid on every node\n", data)
	}
	if rep.DryRun && rep.Changed() {
		fmt.Fprintln(w, "dry run: nothing was changed")
	}
}
