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
// set). The result is decoded into out either way, so both paths print the
// same thing.
func runOp(ctx context.Context, stderr io.Writer, dataPath string, create bool, op string, args, out any) (err error) {
	// Ctrl-C or SIGTERM: say so, rather than "context canceled".
	defer func() { err = interrupted(ctx, "the command", err) }()
	err = admin.Call(ctx, dataPath, op, args, out)
	if !errors.Is(err, admin.ErrNoServer) {
		return err
	}
	store, err := bolt.Open(dataPath, bolt.Options{Create: create})
	if err != nil {
		return err
	}
	ops := &admin.Ops{Store: store, Progress: newProgress(stderr)}
	raw, err := json.Marshal(args)
	if err != nil {
		store.Close()
		return err
	}
	res, err := ops.Do(ctx, op, raw)
	if cerr := store.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
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
