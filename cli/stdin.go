package cli

import (
	"errors"
	"fmt"
	"os"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/ingest"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// stdinRefusal says why an import from standard input cannot run while a
// server holds the data file.
const stdinRefusal = `standard input ("-") cannot be handed to the server running on %s: ` +
	`write the data to a file and give its path (the server reads it, and serving goes on), ` +
	`or stop the server and import from standard input`

// importStdin imports a dataset one of whose inputs is standard input
// ("-"). The admin socket carries requests, not a stream, so a running
// server cannot read this process's standard input: the command opens the
// data file itself, which it can only while no server runs, and refuses
// with a message that says what to do otherwise. A terminal is refused too:
// the data must be piped in.
func importStdin(cmd *cobra.Command, data string, m ingest.Manifest) (admin.DatasetView, error) {
	ctx := cmd.Context()
	if admin.ServerRunning(ctx, data) {
		return admin.DatasetView{}, fmt.Errorf(stdinRefusal, data)
	}
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok {
		if term.IsTerminal(int(f.Fd())) {
			return admin.DatasetView{}, errors.New(`standard input ("-") is a terminal: pipe the data in, e.g. ogr2ogr -f GeoJSONSeq /vsistdout/ roads.shp | frameindex import --features - …`)
		}
		p, restore, err := ingest.PollableStdin(f)
		if err != nil {
			return admin.DatasetView{}, fmt.Errorf("standard input: %w", err)
		}
		defer restore()
		in = p
	}
	store, err := bolt.Open(data, bolt.Options{})
	if errors.Is(err, bolt.ErrLocked) {
		return admin.DatasetView{}, fmt.Errorf(stdinRefusal, data)
	}
	if err != nil {
		return admin.DatasetView{}, err
	}
	ops := &admin.Ops{Store: store, Progress: newProgress(cmd.ErrOrStderr()), Stdin: in}
	v, err := ops.ImportDataset(ctx, admin.DatasetImport{Manifest: m})
	if cerr := store.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return v, interrupted(ctx, "the import", err)
}
