package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"frameindex/admin"
	"frameindex/bolt"
)

// runOp carries out one admin operation on the data file at dataPath:
// through the running server when one answers on the file's admin socket,
// otherwise by opening the file itself (creating it only when create is
// set) and calling the operation's method. Both paths return the same
// result, so both print the same thing.
func runOp[A, R any](ctx context.Context, stderr io.Writer, dataPath string, create bool, op admin.Operation[A, R], args A) (res R, err error) {
	// Ctrl-C or SIGTERM: say so, rather than "context canceled".
	defer func() { err = interrupted(ctx, "the command", err) }()
	res, err = admin.Call(ctx, dataPath, op, args)
	if !errors.Is(err, admin.ErrNoServer) {
		return res, err
	}
	store, err := bolt.Open(dataPath, bolt.Options{Create: create})
	if err != nil {
		return res, err
	}
	res, err = op.Run(&admin.Ops{Store: store, Progress: newProgress(stderr)}, ctx, args)
	if cerr := store.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}

// absPath makes a path absolute, so a server started elsewhere finds it.
func absPath(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return a, nil
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
