package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"frameindex/bolt"
	"frameindex/state"
	"frameindex/state/pgstate"

	"github.com/spf13/cobra"
)

// envState names the default of --state: the URL of the PostgreSQL
// database that holds the shared state of several nodes.
const envState = "FRAMEINDEX_STATE"

// recoverEvery is how often a node serving shared state refunds the worded
// answers that a stopped node reserved and never settled: half the age at
// which they are refunded, between a second and a minute.
func recoverEvery(after time.Duration) time.Duration {
	return min(max(after/2, time.Second), time.Minute)
}

func (o *serveOptions) addStateFlags(cmd *cobra.Command) {
	addStateFlag(cmd, &o.State, "PostgreSQL URL of the state shared by several nodes; empty: the data file's")
	cmd.Flags().DurationVar(&o.RecoverAfter, "state-recover-after", pgstate.DefaultRecoverAfter,
		"with --state: refund a worded answer another node reserved and left unsettled this long (more than the request budget)")
	cmd.Flags().MarkHidden("state-recover-after")
}

func addStateFlag(cmd *cobra.Command, p *string, what string) {
	// No default of its own: $FRAMEINDEX_STATE is read when the command runs
	// (adminStateURL), so that --help never prints a password from it.
	cmd.Flags().StringVar(p, "state", "", what+" (env "+envState+")")
}

// nodeData is the dataset store of a node sharing state: what a key may
// read and the charges from PostgreSQL, the frames from the node's file.
type nodeData struct {
	shared *pgstate.Store
	file   *bolt.Store
}

func (d nodeData) Readable(k state.Key) ([]state.Access, error) { return d.shared.Readable(k) }

func (d nodeData) ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error) {
	return d.file.ReadFrames(ids, frames, withFeatures, featureCap)
}

func (d nodeData) ScanRecords(dataset string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error {
	return d.file.ScanRecords(dataset, ranges, fn)
}

func (d nodeData) ScanFeatures(dataset string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(k bolt.FeatureKey, feature []byte) bool) error {
	return d.file.ScanFeatures(dataset, ranges, from, fn)
}

func (d nodeData) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	return d.shared.Charge(orgID, keyID, requestID, ds, now)
}

// openState opens the shared state for serve, logging where it is (never
// the password).
func openState(ctx context.Context, o serveOptions, file *bolt.Store, log *slog.Logger) (*pgstate.Store, error) {
	st, err := pgstate.Open(ctx, o.State, pgstate.Options{Catalogue: file, RecoverAfter: o.RecoverAfter})
	if err != nil {
		return nil, err
	}
	log.Info("shared state in PostgreSQL: organisations, keys, licences, prices, offers, credits, usage, people, sessions and the sign-in throttle are the database's; the grid and datasets are this node's file",
		"state", st.Where(), "recover_after_s", o.RecoverAfter.Seconds(), "key_poll_s", pgstate.DefaultKeyPoll.Seconds())
	return st, nil
}

// keyring returns where serve loads its key snapshot from.
func (l *live) keyring() (*state.Keyring, error) {
	if l.shared != nil {
		return l.shared.Keyring()
	}
	return l.store.Keyring()
}

// watchState runs, until ctx is done, what a node sharing state does in
// the background: it reloads the key snapshot when any node changes a key
// (notification, or the key version polled every second), and every
// half of recoverAfter (at most a minute) refunds the worded answers
// reserved more than recoverAfter ago and never settled (a node that
// stopped). A revoked key is therefore refused
// by every node within about a second of the revocation while PostgreSQL
// is reachable.
func (l *live) watchState(ctx context.Context, recoverAfter time.Duration) {
	st := l.shared
	go func() {
		_, v, err := st.KeyringVersion()
		if err != nil {
			l.log.Error("shared state: reading the key version failed; watching from zero", "err", err)
		}
		st.WatchKeys(ctx, pgstate.DefaultKeyPoll, v, func(version int64) {
			if err := l.loadKeys(); err != nil {
				l.log.Error("shared state: reloading keys failed; serving the previous keys", "err", err)
				return
			}
			l.log.Info("keys reloaded from the shared state", "version", version, "keys", l.keys.Load().Len())
		})
	}()
	go func() {
		t := time.NewTicker(recoverEvery(recoverAfter))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				recoverPending(st, l.log)
			}
		}
	}()
}

// recoverPending refunds worded answers never settled, logging what it did.
func recoverPending(st state.Store, log *slog.Logger) error {
	n, err := st.RecoverPending(time.Now().UTC())
	if err != nil {
		log.Error("refunding worded answers never delivered failed; trying again later", "err", err)
		return err
	}
	if n > 0 {
		log.Warn("refunded worded answers reserved and never delivered (a node stopped)", "count", n)
	}
	return nil
}

func newStateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Keep the shared state of several nodes in PostgreSQL",
		Long: `Several nodes can serve one deployment when they share their state in
PostgreSQL (serve --state URL): organisations, credits, ledgers, usage, API
keys (digests only), licences, prices, offers, reservations of worded
answers, the audit log, and the web application's people, sessions and
sign-in throttle. Each node keeps its own data file for the grid and the
datasets (give every node a copy of the same file).`,
		Example: `  frameindex state migrate --state postgres://frameindex@db.internal/frameindex
  frameindex state import --data ./frames.db --state postgres://frameindex@db.internal/frameindex`,
	}
	cmd.AddCommand(newStateMigrateCommand(), newStateImportCommand())
	return cmd
}

func requireState(url string) error {
	if url == "" {
		return fmt.Errorf("--state is required: the URL of the PostgreSQL database (postgres://user@host/db), or set %s", envState)
	}
	return nil
}

func newStateMigrateCommand() *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "migrate --state URL",
		Short: "Bring the database's schema up to this build's",
		Long: `Apply the schema migrations the database lacks, in order, each in one
transaction. Several nodes may run it at once: they take turns. serve
refuses a database whose schema is behind or ahead of its own.`,
		Example: `  frameindex state migrate --state postgres://frameindex@db.internal/frameindex
  FRAMEINDEX_STATE=postgres://frameindex@db.internal/frameindex?sslmode=verify-full frameindex state migrate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url = adminStateURL(cmd, url)
			if err := requireState(url); err != nil {
				return err
			}
			applied, err := pgstate.Migrate(cmd.Context(), url)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(applied) == 0 {
				fmt.Fprintf(out, "schema is current (version %d): nothing to do\n", pgstate.SchemaVersion())
				return nil
			}
			for _, v := range applied {
				fmt.Fprintf(out, "applied migration %04d\n", v)
			}
			fmt.Fprintf(out, "schema is at version %d\n", pgstate.SchemaVersion())
			return nil
		},
	}
	addStateFlag(cmd, &url, "PostgreSQL URL of the shared state")
	return cmd
}

func newStateImportCommand() *cobra.Command {
	var url, data string
	cmd := &cobra.Command{
		Use:   "import --data FILE --state URL",
		Short: "Copy a data file's shared state into an empty database",
		Long: `Copy a data file's organisations, credits and ledgers, usage, keys
(digests only) and their last uses, licences, dataset prices, offers,
pending worded answers, audit log and the web application's people (with
their password hashes and roles) into the database, migrating its schema
first, in one transaction. A database that already holds shared state is
refused. Stop serve on the file first (the file is opened read-only).
Console sessions are not copied: people sign in again. The grid and the
datasets stay in the file: give every node a copy of it.`,
		Example: `  frameindex state import --data ./frames.db --state postgres://frameindex@db.internal/frameindex`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url = adminStateURL(cmd, url)
			if err := requireState(url); err != nil {
				return err
			}
			file, err := bolt.Open(data, bolt.Options{ReadOnly: true})
			if err != nil {
				return err
			}
			defer file.Close()
			if _, err := pgstate.Migrate(cmd.Context(), url); err != nil {
				return err
			}
			st, err := pgstate.Open(cmd.Context(), url, pgstate.Options{Catalogue: file})
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := st.Import(file)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported into %s: %v\n", st.Where(), n)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addStateFlag(cmd, &url, "PostgreSQL URL of the shared state")
	return cmd
}
