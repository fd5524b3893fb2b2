package state_test

import (
	"testing"

	"frameindex/state/statetest"
)

// TestBoltConformance runs the conformance suite against the one-node
// data file.
func TestBoltConformance(t *testing.T) {
	statetest.Run(t, statetest.BoltEnv)
}
