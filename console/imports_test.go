package console

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports: the console reaches the vector-tile encoder through
// package mvt, never the OGC server (frameindex/ogc), whose handlers it
// has no business with.
func TestImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "frameindex/ogc" {
			t.Fatal("package console imports frameindex/ogc (go list -deps holds it); draw tiles with frameindex/mvt")
		}
	}
}
