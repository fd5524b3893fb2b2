// Package statetest is the conformance suite of state.Store: one set of
// tests of every method's contract (results, sentinel errors, what is
// written and what is not, concurrency) that every implementation must
// pass. Package bolt runs it against *bolt.Store and package pgstate
// against the PostgreSQL store, so that the two are shown to behave
// alike; each gives Run a function that opens a fresh Env:
//
//	statetest.Run(t, func(t *testing.T) statetest.Env { ... })
//
// Each test opens a fresh Env; an implementation that keeps datasets
// elsewhere than its state (pgstate reads them from the node's data file)
// gives Env.AddDataset to put them there.
//
// Times in the suite are whole microseconds, the precision PostgreSQL
// keeps. The suite runs 1,000 reservations for the daily ceiling and 50
// concurrent charges and reservations: a few seconds per implementation.
package statetest
