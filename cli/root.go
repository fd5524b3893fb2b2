package cli

import (
	"os"

	"github.com/spf13/cobra"
)

// Environment variables that give flags their defaults; a flag always wins.
const (
	envData      = "FRAMEINDEX_DATA"
	envAddr      = "FRAMEINDEX_ADDR"
	envPublicURL = "FRAMEINDEX_PUBLIC_URL"

	envOllamaHost = "OLLAMA_HOST"
	envModel      = "FRAMEINDEX_MODEL"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Assets are the files the binary carries, embedded by package main (an
// embed pattern cannot reach the repository's top-level testdata/ from here).
type Assets struct {
	// Outline is Nigeria's outline as GeoJSON, from which `demo` builds its
	// grid on first run.
	Outline []byte
}

// NewRootCommand returns the frameindex command tree.
func NewRootCommand(a Assets) *cobra.Command {
	root := &cobra.Command{
		Use:   "frameindex",
		Short: "Serve and administer a spatial index of ~1 km frames",
		Long: `frameindex serves a read-only HTTP API over a national grid of ~1 km cells
called frames, and administers its data file: the grid, organisations and
API keys. Every administrative command works whether or not "serve" is
running on the file: while it runs, the command goes through the server's
owner-only admin socket (DATA.sock) and takes effect on the next request.

Several nodes share organisations, keys, licences, prices, offers, credits,
usage, the audit log and the web application's people and sessions in one
database: the commands on those take --state
URL (or FRAMEINDEX_STATE) and then act on it directly, with no server
involved (serving nodes pick the change up themselves); the data file is
then only read, for its datasets, by the commands that name one.`,
		Example: `  frameindex demo                       # build a national demo file, mint a key, serve it
  frameindex serve --data ./frames.db   # serve a data file on 127.0.0.1:8080`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newServeCommand(a.Outline), newDemoCommand(a.Outline), newGridCommand(), newOrgCommand(), newKeyCommand(), newUsageCommand(), newImportCommand(), newDatasetCommand(), newLicenceCommand(), newUserCommand(), newAuditCommand(), newStateCommand(), newAskCommand(), newReportCommand(), newEnrichCommand())
	root.AddCommand(newVersionCommand(root), newBackupCommand(), newRestoreCommand(), newCheckCommand(), newCompactCommand(), newServiceCommand(), newSyncCommand())
	return root
}

// addDataFlag adds --data, defaulting to $FRAMEINDEX_DATA or ./frames.db.
func addDataFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "data", envOr(envData, "./frames.db"), "data file (env "+envData+")")
}
