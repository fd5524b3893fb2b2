// Command frameindex serves a read-only HTTP API over a national grid of
// ~1 km frames, and administers its data file. Run `frameindex --help`.
// The commands live in package cli.
package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"frameindex/cli"
)

// nigeriaOutline is Nigeria's outline from Natural Earth 1:10m (public
// domain), converted once from the npm package world-atlas@2.0.2 by
// scripts/outline.js; `frameindex demo` builds its grid from it.
//
//go:embed testdata/nigeria-outline.geojson
var nigeriaOutline []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := cli.NewRootCommand(cli.Assets{Outline: nigeriaOutline})
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "frameindex:", err)
		stop()
		os.Exit(1)
	}
}
