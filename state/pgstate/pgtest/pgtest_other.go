//go:build !unix

package pgtest

import "testing"

// Cluster is a throwaway PostgreSQL server; on this platform there is none.
type Cluster struct{}

const absent = "PostgreSQL absent: pgtest runs clusters on Unix only"

// Bin returns "": pgtest finds no PostgreSQL on this platform.
func Bin() string { return "" }

// Start skips the test.
func Start(t testing.TB) *Cluster { t.Skip(absent); return nil }

// Shared skips the test.
func Shared(t testing.TB) *Cluster { t.Skip(absent); return nil }

// StopShared does nothing.
func StopShared() {}

// Port, URL, NewDatabase, Start, Stop and Log are never reached.
func (c *Cluster) Port() int                       { return 0 }
func (c *Cluster) URL() string                     { return "" }
func (c *Cluster) NewDatabase(t testing.TB) string { t.Skip(absent); return "" }
func (c *Cluster) Start()                          {}
func (c *Cluster) Stop()                           {}
func (c *Cluster) Log() string                     { return "" }
