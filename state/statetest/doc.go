// Package statetest is the conformance suite of state.Store: one set of
// tests of every method's contract (results, sentinel errors, what is
// written and what is not, concurrency) that every implementation must
// pass. Run it against *bolt.Store (BoltEnv) and against the PostgreSQL
// store (state/pgstate), so that the two are shown to behave alike:
//
//	statetest.Run(t, statetest.BoltEnv)
//
// Each test opens a fresh Env; an implementation that keeps datasets
// elsewhere than its state (pgstate reads them from the node's data file)
// gives Env.AddDataset to put them there.
//
// Times in the suite are whole microseconds, the precision PostgreSQL
// keeps. The suite runs 1,000 reservations for the daily ceiling and 50
// concurrent charges and reservations: a few seconds per implementation.
package statetest
