//go:build !windows

package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"frameindex/state"
)

func mkfifo(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("named pipes absent here: %v", err)
	}
	return p
}

func TestCheckInputs(t *testing.T) {
	dir := t.TempDir()
	file := write(t, "ok.csv", "frame_id,pop\n")
	tests := []struct {
		name  string
		in    Input
		stdin bool
		want  string // "" for no error
	}{
		{"regular file", Input{CSV: file}, false, ""},
		{"directory", Input{CSV: dir}, false, "is a directory, not a csv file"},
		{"device", Input{Features: "/dev/null"}, false, "/dev/null is a device, not a features file"},
		{"missing", Input{Zones: filepath.Join(dir, "nope.geojson")}, false, "no such file"},
		{"standard input without one", Input{CSV: Stdin}, false, "can be read only by the command itself"},
		{"standard input", Input{Features: Stdin}, true, ""},
		{"raster from standard input", Input{Raster: Stdin}, true, "a raster cannot be read from standard input"},
		{"named pipe", Input{Features: mkfifo(t, "in.geojsonl")}, false, ""},
		{"raster from a named pipe", Input{Raster: mkfifo(t, "in.tif")}, false, "a raster cannot be read from a pipe"},
		{"shapefile from a named pipe", Input{Features: mkfifo(t, "in.shp")}, false, "shapefiles and GeoPackages cannot be read from a pipe"},
		{"relative path left to the manifest check", Input{CSV: "rel.csv"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckInputs(Manifest{Inputs: []Input{tt.in}}, tt.stdin)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "input 0") {
				t.Fatalf("err = %v, want invalid: input 0 … %q", err, tt.want)
			}
		})
	}
}

// noReader waits until nothing has the named pipe open for reading.
func noReader(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		w.Close()
		if time.Now().After(deadline) {
			t.Fatal("the pipe is still open for reading")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOpenInput_PipeWithoutWriter(t *testing.T) {
	p := mkfifo(t, "late.csv")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	r, size, err := OpenInput(ctx, p, nil)
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Fatalf("OpenInput = %v, %d, %v; want context.Canceled", r, size, err)
	}
	noReader(t, p)
}

func TestOpenInput_PipeThatStalls(t *testing.T) {
	p := mkfifo(t, "stall.csv")
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("frame_id,pop\n"))
		time.Sleep(2 * time.Second)
		w.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, size, err := OpenInput(ctx, p, nil)
	if err != nil || size != -1 {
		t.Fatalf("OpenInput: %d, %v", size, err)
	}
	defer r.Close()
	buf := make([]byte, 64)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "frame_id,pop\n" {
		t.Fatalf("first read %q, %v", buf[:n], err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the read took %v to stop", d)
	}
}
