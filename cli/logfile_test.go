package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Windows service's log rotates by size and keeps keep old files.
func TestRotatingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frameindex.log")
	r, err := openRotating(path, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 39) + "\n" // 40 bytes: two fit in 100, a third does not
	for range 7 {
		if _, err := r.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	tests := []struct {
		name string
		size int64
	}{
		{"frameindex.log", 40},
		{"frameindex.log.1", 80},
		{"frameindex.log.2", 80},
		{"frameindex.log.3", -1}, // only two old files are kept
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := os.Stat(filepath.Join(filepath.Dir(path), tt.name))
			if tt.size < 0 {
				if err == nil {
					t.Fatal("kept")
				}
				return
			}
			if err != nil || fi.Size() != tt.size {
				t.Fatalf("size %v (%v), want %d", fi, err, tt.size)
			}
		})
	}
}
