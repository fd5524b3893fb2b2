// Package e2e holds the end-to-end tests: they build the real binary from
// the repository root, start `frameindex serve` on a free loopback port and
// drive it with the CLI and HTTP, as an operator and a client would. It has
// no non-test code but this comment.
package e2e
