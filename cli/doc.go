// Package cli is the frameindex command tree (cobra): one file per command
// group — serve, demo, grid, org, key, usage, dataset (import, dataset,
// licence), keeping the file (keep.go: backup, restore, check, compact),
// version, service (the Windows service; service_windows.go) — plus the
// plumbing they share: running an admin operation through a serving
// process's socket or on the file itself (ops.go; an import from standard
// input runs on the file itself, stdin.go) or, given --state
// (FRAMEINDEX_STATE), directly on the shared state of several nodes
// (stateflag.go: the data file is then opened read-only, and only for the
// operations that need its datasets; a server holding it is an error that
// says what to do), and progress reporting for
// long steps. Ctrl-C and SIGTERM cancel the command's context; a command
// stopped by them says so ("interrupted: ...") and has written nothing.
//
// The build's version, commit and date are set by the linker
// (scripts/release.sh: -X frameindex/cli.version=...), or read from Go's
// build information; `frameindex version`, --help and serve's start-up
// log show them.
//
// Flags take their defaults from the environment (FRAMEINDEX_DATA,
// FRAMEINDEX_ADDR, OLLAMA_HOST, FRAMEINDEX_MODEL); a flag always wins.
// Commands write to cmd.OutOrStdout and cmd.ErrOrStderr, so tests drive them
// with SetArgs/SetOut. Package main only wires the embedded assets in.
package cli
