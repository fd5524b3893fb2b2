// Package cli is the frameindex command tree (cobra): one file per command
// group — serve, demo, grid, org, key, usage, dataset (import, dataset,
// licence) — plus the plumbing they share: running an admin operation
// through a serving process's socket or on the file itself (ops.go), and
// progress reporting for long steps.
//
// Flags take their defaults from the environment (FRAMEINDEX_DATA,
// FRAMEINDEX_ADDR, OLLAMA_HOST, FRAMEINDEX_MODEL); a flag always wins.
// Commands write to cmd.OutOrStdout and cmd.ErrOrStderr, so tests drive them
// with SetArgs/SetOut. Package main only wires the embedded assets in.
package cli
