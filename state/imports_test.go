package state_test

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAdaptersImportNoOther fails when a store of the shared state imports
// the other, in its code or in its tests (wtf's rule: adapters import the
// domain, never each other), or when the domain imports a store.
func TestAdaptersImportNoOther(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	deps := func(pkg string, tests bool) []string {
		t.Helper()
		out, err := exec.Command(goTool, "list", "-deps", "-test="+strconv.FormatBool(tests), pkg).Output()
		if err != nil {
			var msg []byte
			if ee, ok := err.(*exec.ExitError); ok {
				msg = ee.Stderr
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
		}
		return strings.Fields(string(out))
	}
	tests := []struct {
		pkg, mustNot string
	}{
		{"frameindex/state/pgstate", "frameindex/bolt"},
		{"frameindex/bolt", "frameindex/state/pgstate"},
	}
	for _, tt := range tests {
		if slices.Contains(deps(tt.pkg, false), tt.mustNot) {
			t.Errorf("%s imports %s (directly or through another package): a store imports package state, never the other store", tt.pkg, tt.mustNot)
		} else if slices.Contains(deps(tt.pkg, true), tt.mustNot) {
			t.Errorf("the tests of %s import %s (directly or through another package): test the two stores together where they are wired (package cli)", tt.pkg, tt.mustNot)
		}
	}
	for _, store := range []string{"frameindex/bolt", "frameindex/state/pgstate"} {
		if slices.Contains(deps("frameindex/state", false), store) {
			t.Errorf("frameindex/state imports %s: the domain imports no store", store)
		}
	}
}
