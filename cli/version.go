package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"time"

	"frameindex/bolt"

	"github.com/spf13/cobra"
)

// Set at build time by scripts/release.sh:
//
//	go build -ldflags "-X frameindex/cli.version=v1.2.0 -X frameindex/cli.commit=… -X frameindex/cli.date=…"
//
// A plain `go build` in a git checkout leaves them empty and the build
// information Go records (module version, vcs.revision, vcs.time) fills
// them in.
var (
	version string
	commit  string
	date    string
)

// BuildInfo says which build of frameindex is running.
type BuildInfo struct {
	Version  string `json:"version"`  // v1.2.0, or "devel" for a build outside a release
	Commit   string `json:"commit"`   // the git commit, with "+dirty" for uncommitted changes; "unknown" when not recorded
	Date     string `json:"date"`     // when the commit was made (a reproducible build's time), RFC 3339 UTC; "unknown" when not recorded
	Go       string `json:"go"`       // the Go toolchain that built it
	Platform string `json:"platform"` // GOOS/GOARCH
	Schema   int    `json:"schema"`   // the newest data file schema this build reads and the one it writes
}

// Build returns the running build's information.
func Build() BuildInfo {
	b := BuildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Schema: bolt.Schema}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit == "" && b.Commit != "" {
			b.Commit += "+dirty"
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

// String is the one-line form: "frameindex v1.2.0 (commit abc1234, built
// 2026-01-02T03:04:05Z, go1.26.8 linux/amd64, data schema 1)".
func (b BuildInfo) String() string {
	c := b.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return fmt.Sprintf("frameindex %s (commit %s, built %s, %s %s, data schema %d)", b.Version, c, b.Date, b.Go, b.Platform, b.Schema)
}

func newVersionCommand(root *cobra.Command) *cobra.Command {
	b := Build()
	// `frameindex --version` and the top of `frameindex --help` say it too.
	root.Version = b.Version
	root.SetVersionTemplate(b.String() + "\n")
	root.Long += "\n\n" + b.String()

	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date and Go version of this build",
		Long: `Print which build this is: its version, the git commit it was built from,
the build date (the commit's time: release builds are reproducible), the
Go version and platform, and the data file schema it reads and writes.
With --data it also says whether this build can open that file: a file
written by a newer build (a higher schema) is refused, never misread.`,
		Example: `  frameindex version
  frameindex version --json
  frameindex version --data /var/lib/frameindex/frames.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			var file string
			if cmd.Flags().Changed("data") {
				file = fileState(data)
			}
			if asJSON {
				return printJSON(w, struct {
					BuildInfo
					File string `json:"file,omitempty"`
				}{b, file})
			}
			printBuild(w, b)
			if file != "" {
				fmt.Fprintf(w, "data:    %s: %s\n", data, file)
			}
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printBuild(w io.Writer, b BuildInfo) {
	fmt.Fprintf(w, "frameindex %s\ncommit:  %s\nbuilt:   %s\ngo:      %s %s\nschema:  %d (reads data files of schema 1 to %d, writes %d; a newer file is refused)\n",
		b.Version, b.Commit, b.Date, b.Go, b.Platform, b.Schema, b.Schema, b.Schema)
}

// fileState says whether this build can open the data file at path.
func fileState(path string) string {
	s, err := bolt.Open(path, bolt.Options{ReadOnly: true, Timeout: 200 * time.Millisecond})
	switch {
	case err == nil:
		s.Close()
		return "readable by this build"
	case errors.Is(err, bolt.ErrLocked):
		return "in use by a running server (the server opened it, so its build reads it)"
	}
	return err.Error()
}
