package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"frameindex/admin"
	"frameindex/bolt"

	"github.com/spf13/cobra"
)

// The commands that keep the data file: backup, restore, check, compact.

// interrupted says so when err ended a command stopped by Ctrl-C or
// SIGTERM (ctx done); other errors pass unchanged.
func interrupted(ctx context.Context, what string, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("interrupted: %s stopped before finishing; nothing of it was written", what)
}

func newBackupCommand() *cobra.Command {
	var data, out string
	var opts admin.BackupOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "backup --out FILE",
		Short: "Write a consistent copy of the data file, also while serve runs",
		Long: `Write a consistent copy of the data file to --out: the file as one read
transaction sees it, written with bbolt's own copy. While "serve" runs on
the file the server streams the copy over its admin socket and keeps
serving (writes go on; the copy holds every write committed before it
began). With no server the command reads the file itself.

The copy is written beside --out, flushed to disk, opened to check its
header (with --check, checked in full, as "frameindex check" does) and only
then renamed to --out: an interrupted or failed backup leaves nothing
there. The copy is as large as the data file (free pages included; run
"frameindex compact" to give them back). Restore it with "frameindex
restore".`,
		Example: `  frameindex backup --out /var/backups/frameindex/frames-$(date +%F).db
  frameindex backup --out backup.db --check --data /var/lib/frameindex/frames.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required: the file to write the copy to")
			}
			ctx := cmd.Context()
			abs, err := absPath(out)
			if err != nil {
				return err
			}
			dataAbs, err := absPath(data)
			if err != nil {
				return err
			}
			opts.Progress = newProgress(cmd.ErrOrStderr())
			start := time.Now()
			v, err := admin.Backup(ctx, dataAbs, abs, opts)
			if err != nil {
				return interrupted(ctx, "the backup", err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			through := "read from the file (no server runs on it)"
			if v.Through == "server" {
				through = "taken through the running server"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "backup of %s written to %s: %s in %.1f s, %s\n",
				data, v.Out, sizeText(v.Bytes), time.Since(start).Seconds(), through)
			if v.Check != nil {
				printCheckSummary(cmd.OutOrStdout(), *v.Check)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "file to write the copy to (required)")
	f.BoolVar(&opts.Overwrite, "force", false, "replace --out when it exists")
	f.BoolVar(&opts.Check, "check", false, "check the copy in full before keeping it")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newRestoreCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the data file with a backup, after checking the backup",
		Long: `Replace the data file (--data) with the backup FILE. The server must be
stopped first: restore refuses a file a server runs on. The backup is
checked in full first ("frameindex check": bbolt's consistency check and
frameindex's own invariants), then copied beside the data file and the copy
compared with the backup; only then is the data file replaced. Nothing is
changed when any of this fails. The file it replaces is kept beside it as
DATA.pre-restore-<time>; delete it once the restored file serves well.`,
		Example: `  systemctl stop frameindex
  frameindex restore /var/backups/frameindex/frames-2026-01-31.db --data /var/lib/frameindex/frames.db
  systemctl start frameindex`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			from, err := absPath(args[0])
			if err != nil {
				return err
			}
			dataAbs, err := absPath(data)
			if err != nil {
				return err
			}
			v, err := admin.Restore(ctx, from, dataAbs)
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("interrupted: restore stopped before replacing anything; the data file is as it was")
				}
				if len(v.Check.Problems) > 0 {
					printProblems(cmd.ErrOrStderr(), v.Check)
				}
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "restored %s onto %s (%s, checked)\n", v.From, data, sizeText(v.Bytes))
			printCheckSummary(w, v.Check)
			if v.Previous != "" {
				fmt.Fprintf(w, "the replaced file is kept as %s: delete it once the restored file serves well\n", v.Previous)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newCheckCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Verify a data file or a backup: bbolt's check and frameindex's invariants",
		Long: `Verify a data file (--data, or FILE, such as a backup): bbolt's own
consistency check (every page reachable once or free), then frameindex's
invariants: every organisation's ledger numbered without gaps with each
balance the running sum and the last the organisation's balance; every
key's digest 64 hex digits and indexed back to its key; every dataset's
live version whole (as many frame records and features as its
description says, attributes valid against the declared ones); licences,
usage counters and reservations readable. Staging buckets left by crashed
imports are listed (harmless; "compact" drops them).

While "serve" runs on the file, the server writes a snapshot beside it and
checks that (it needs as much free room as the file). Exits with status 1
when a problem is found.`,
		Example: `  frameindex check --data /var/lib/frameindex/frames.db
  frameindex check /var/backups/frameindex/frames-2026-01-31.db --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			path := data
			if len(args) == 1 {
				path = args[0]
			}
			abs, err := absPath(path)
			if err != nil {
				return err
			}
			rep, err := admin.Call(ctx, abs, admin.CheckOp, admin.NoArgs{})
			if errors.Is(err, admin.ErrNoServer) {
				rep, err = bolt.CheckFile(ctx, abs)
			}
			if err != nil {
				return interrupted(ctx, "the check", err)
			}
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printCheckSummary(cmd.OutOrStdout(), rep)
				printProblems(cmd.OutOrStdout(), rep)
			}
			if !rep.OK() {
				return fmt.Errorf("%s: %d problems found", path, len(rep.Problems))
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func newCompactCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Rewrite the data file without free pages, reporting the size before and after",
		Long: `Rewrite the data file without its free pages, so that it shrinks after
datasets were removed or replaced: every record is copied, in order and with
pages filled, into DATA.compacting, which then replaces the data file.
Staging buckets left by crashed imports are dropped.

While "serve" runs on the file the server compacts it: reads go on, writes
(charges, administration) wait for the copy (seconds for a national file)
and then run on the new file; an import running at the time makes compact
refuse. Without a server the command opens the file itself. It needs free
room for the live data beside the file. Ctrl-C or SIGTERM stops it and
leaves the data file as it was.`,
		Example: `  frameindex compact --data /var/lib/frameindex/frames.db
  frameindex compact --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			abs, err := absPath(data)
			if err != nil {
				return err
			}
			start := time.Now()
			rep, err := runOp(cmd.Context(), cmd.ErrOrStderr(), abs, false, admin.CompactOp, admin.NoArgs{})
			if err != nil {
				return interrupted(cmd.Context(), "compact", err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), rep)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "compacted %s: %s before, %s after (%s given back) in %.1f s\n",
				data, sizeText(rep.Before), sizeText(rep.After), sizeText(rep.Before-rep.After), time.Since(start).Seconds())
			if len(rep.Dropped) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "dropped %d staging buckets of crashed imports: %s\n", len(rep.Dropped), strings.Join(rep.Dropped, ", "))
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printCheckSummary(w io.Writer, r bolt.CheckReport) {
	state := "sound"
	if !r.OK() {
		state = fmt.Sprintf("%d problems", len(r.Problems))
	}
	fmt.Fprintf(w, "%s: %s; %s (%s free: compact gives it back); schema %d; grid of %d frames; %d organisations, %d keys, %d ledger entries; %d datasets (%d frame records, %d features)\n",
		r.Path, state, sizeText(r.Size), sizeText(r.FreeBytes), r.Schema, r.Frames, r.Orgs, r.Keys, r.LedgerEntries, r.Datasets, r.Records, r.Features)
	if len(r.Staging) > 0 {
		fmt.Fprintf(w, "staging buckets left by crashed imports (compact drops them): %s\n", strings.Join(r.Staging, ", "))
	}
	if len(r.Unchecked) > 0 {
		fmt.Fprintf(w, "not verified beyond bbolt's check: %s\n", strings.Join(r.Unchecked, ", "))
	}
	if r.Journal > 0 {
		fmt.Fprintf(w, "%d groups of ledger writes wait in %s.journal (the server stopped without closing the file); the next start writes them in\n", r.Journal, r.Path)
	}
}

func printProblems(w io.Writer, r bolt.CheckReport) {
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}

// sizeText formats a byte count in MB (10^6 bytes) with one decimal, or
// in kB below a megabyte.
func sizeText(n int64) string {
	if n < 1_000_000 && n > -1_000_000 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
