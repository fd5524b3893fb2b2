// Command frameindex serves a read-only HTTP API over a national grid of
// ~1 km frames, and administers its data file. Run `frameindex --help`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := NewRootCommand()
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "frameindex:", err)
		stop()
		os.Exit(1)
	}
}
