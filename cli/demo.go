package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/logging"
	"frameindex/state"

	"github.com/spf13/cobra"
)

const demoSource = "Natural Earth 1:10m outline of Nigeria (public domain, via npm world-atlas@2.0.2)"

func newDemoCommand(outline []byte) *cobra.Command {
	o := serveOptions{Outline: outline}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build a national demo file on first run, mint a demo key, and serve it",
		Long: `Run the service on embedded defaults. On first run it builds --data (default
./frames.db) from Nigeria's outline (Natural Earth, public domain, embedded
in the binary: nothing is downloaded): about 1.1 million frames of the
30-arc-second lattice, and six SYNTHETIC national datasets (administrative
areas, population, buildings, settlement class, health facilities, and a
per-query night-lights dataset of a second organisation "geodata" licensed
to "demo"). Every run mints a fresh demo key (full preset, 90 days) for the
organisation "demo", prints it with example calls, and serves until SIGINT
or SIGTERM.`,
		Example: `  go run . demo
  frameindex demo --data /tmp/demo.db --addr 127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.State = adminStateURL(cmd, o.State)
			logw := logging.NewBuffer(cmd.ErrOrStderr())
			defer logw.Close()
			log, err := o.logger(logw)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			creds, err := prepareDemo(cmd.Context(), outline, o.Data, out, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return serve(cmd.Context(), o, log, func(addr string, frames int) {
				printDemoBanner(out, addr, frames, creds)
			})
		},
	}
	o.AddFlags(cmd)
	return cmd
}

// demoUser is the demo organisation's owner in the web application.
const demoUser = "demo"

// demoCreds are what a demo run prints: a fresh API key and a fresh
// one-time password of the demo owner.
type demoCreds struct {
	Secret   string // the API key
	Password string // the demo owner's one-time password
}

// prepareDemo builds the demo file when it is missing, makes sure the demo
// organisation exists, mints a demo key and issues the demo owner (made on
// the first run) a one-time password, returning both.
func prepareDemo(ctx context.Context, outline []byte, data string, out, stderr io.Writer) (demoCreds, error) {
	_, statErr := os.Stat(data)
	fresh := errors.Is(statErr, os.ErrNotExist)
	store, err := bolt.Open(data, bolt.Options{Create: fresh})
	if err != nil {
		return demoCreds{}, err
	}
	defer store.Close()
	ops := &admin.Ops{Store: store, Progress: newProgress(stderr)}
	if _, err := store.GridInfo(); errors.Is(err, bolt.ErrNoGrid) {
		fmt.Fprintf(out, "Building the national grid of Nigeria in %s (first run only)...\n", data)
		t := time.Now()
		info, err := ops.BuildGridFrom(ctx, bytes.NewReader(outline), demoSource)
		if err != nil {
			return demoCreds{}, fmt.Errorf("build demo grid: %w", err)
		}
		fmt.Fprintf(out, "Built %d frames in %.1f s.\n", info.Frames, time.Since(t).Seconds())
	} else if err != nil {
		return demoCreds{}, err
	}
	if _, err := store.Dataset(demo.DatasetAdmin); errors.Is(err, state.ErrNotFound) {
		fmt.Fprintln(out, "Building the synthetic national demo datasets (first run only)...")
		t := time.Now()
		sum, err := demo.Build(ctx, store, time.Now().UTC(), func(step string, done, total int64) {
			if step != "done" {
				fmt.Fprintf(out, "  %s (%d of %d)\n", step, done+1, total)
			}
		})
		if err != nil {
			return demoCreds{}, fmt.Errorf("build demo datasets: %w", err)
		}
		fmt.Fprintf(out, "Built %d datasets in %.1f s.\n", len(sum.Datasets), time.Since(t).Seconds())
	} else if err != nil {
		return demoCreds{}, err
	}
	_, secret, err := store.MintKey(state.MintRequest{OrgID: demo.OrgDemo, Preset: "full", Name: "demo", Now: time.Now().UTC()})
	if err != nil {
		return demoCreds{}, err
	}
	// The demo owner signs in to the web application with a one-time
	// password, new on every run like the key (and chooses their own).
	var issued admin.UserIssued
	if _, uerr := store.User(demoUser); uerr == nil {
		issued, err = ops.ResetPassword(ctx, admin.UserReset{Name: demoUser})
	} else {
		issued, err = ops.AddUser(ctx, admin.UserAdd{Name: demoUser, OrgID: demo.OrgDemo, Role: state.RoleOwner})
	}
	if err != nil {
		return demoCreds{}, fmt.Errorf("demo owner %q: %w", demoUser, err)
	}
	return demoCreds{Secret: secret, Password: issued.Password}, nil
}

func printDemoBanner(w io.Writer, addr string, frames int, creds demoCreds) {
	base := "http://" + addr
	secret := creds.Secret
	fmt.Fprintf(w, `
frameindex demo: serving %d frames on %s (the 30-arc-second lattice over Nigeria)

Demo API key (organisation "demo", full preset, valid 90 days; shown once):
  %s

Web application (members, keys, usage and credits): %s/console/
  sign in as "%s" with the one-time password  %s
  (shown once; you choose your own password at first sign-in, and each demo run issues a new one)

Try:
  curl -H "Authorization: Bearer %s" "%s/v1/frames/at?lat=6.4541&lon=3.3947"
  curl -H "Authorization: Bearer %s" "%s/v1/frames?bbox=7.45,9.05,7.50,9.08&limit=5"
  curl -H "Authorization: Bearer %s" "%s/v1/frames/data?ids=433102007,433102008"
  curl -H "Authorization: Bearer %s" -H "Content-Type: application/json" \
    -d '{"frameIds":["433102007","433102008"],"question":"How many people live here?"}' %s/v1/frames/insight
  curl "%s/openapi.json"

The demo datasets are SYNTHETIC (see the README). The night-lights dataset
belongs to "geodata" and is licensed to "demo" per query: each data call it
contributes to costs 1 of the 50 demo credits, then it is left out.

Stop with Ctrl-C.
`, frames, base, secret, base, demoUser, creds.Password, secret, base, secret, base, secret, base, secret, base, base)
}
