package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"frameindex/state"
)

// Stdin is the input path that stands for standard input: a csv,
// features or zones input streamed from another program
// (`ogr2ogr -f GeoJSONSeq /vsistdout/ … | frameindex import --features -`).
const Stdin = "-"

// UsesStdin reports whether an input of m reads standard input.
func UsesStdin(m Manifest) bool {
	for _, in := range m.Inputs {
		for _, p := range [...]string{in.CSV, in.Features, in.Zones, in.Raster} {
			if p == Stdin {
				return true
			}
		}
	}
	return false
}

// CheckInputs checks, before anything is read, that every input of m can
// be read: it exists and is readable; it is a regular file or a pipe
// (a named pipe, or standard input when stdin is set) — not a directory,
// a device or a socket; and a pipe or standard input feeds a CSV,
// GeoJSON or GeoJSON text sequence, since rasters, shapefiles and
// GeoPackages need to seek. Errors wrap state.ErrInvalid and name the input
// and the reason.
func CheckInputs(m Manifest, stdin bool) error {
	for i, in := range m.Inputs {
		kind, path := inputCSV, in.CSV
		switch {
		case in.Features != "":
			kind, path = inputFeatures, in.Features
		case in.Zones != "":
			kind, path = inputZones, in.Zones
		case in.Raster != "":
			kind, path = inputRaster, in.Raster
		}
		if path == "" || path != Stdin && !filepath.IsAbs(path) {
			continue // checkManifest says what is wrong
		}
		if _, err := checkSource(path, kind, stdin); err != nil {
			return fmt.Errorf("%w: input %d: %v", state.ErrInvalid, i, err)
		}
	}
	return nil
}

// CheckGeoJSONPath checks, as CheckInputs does, a GeoJSON file read by
// another command (a grid's boundary or frames): it must exist, be
// readable, and be a regular file or a named pipe. Errors wrap
// state.ErrInvalid and name the file and the reason.
func CheckGeoJSONPath(path string) error {
	if path == Stdin {
		return fmt.Errorf("%w: standard input (\"-\") is not read here: give a file", state.ErrInvalid)
	}
	if _, err := checkSource(path, inputFeatures, false); err != nil {
		return fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	return nil
}

// checkSource checks one input path (see CheckInputs); pipe reports a
// named pipe or standard input, which can be read once only.
func checkSource(path string, kind int, stdin bool) (pipe bool, err error) {
	what := inputKindNames[kind]
	if path == Stdin {
		if !stdin {
			return false, errors.New(`standard input ("-") can be read only by the command itself, with no server running on the data file: write the data to a file and give its path, or stop the server`)
		}
		if kind == inputRaster {
			return false, errors.New(`a raster cannot be read from standard input ("-"): it needs a file to seek in`)
		}
		return true, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("%s: no such file or directory", path)
	case errors.Is(err, fs.ErrPermission):
		return false, fmt.Errorf("%s: permission denied (the command, or the server, must be able to read it)", path)
	case err != nil:
		return false, fmt.Errorf("%s: %v", path, err)
	}
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return false, fmt.Errorf("%s is a directory, not a %s file", path, what)
	case mode&os.ModeNamedPipe != 0:
		if kind == inputRaster {
			return false, fmt.Errorf("%s is a named pipe: a raster cannot be read from a pipe, it needs a file to seek in", path)
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".shp", ".zip", ".gpkg":
			return false, fmt.Errorf("%s is a named pipe: shapefiles and GeoPackages cannot be read from a pipe (they need a file to seek in); convert to GeoJSON on the way (ogr2ogr -f GeoJSONSeq /vsistdout/ …)", path)
		}
		if err := readable(path); err != nil {
			return false, fmt.Errorf("%s: %v", path, err)
		}
		return true, nil
	case mode&(os.ModeDevice|os.ModeCharDevice) != 0:
		return false, fmt.Errorf("%s is a device, not a %s file", path, what)
	case mode&os.ModeSocket != 0:
		return false, fmt.Errorf("%s is a socket, not a %s file", path, what)
	case !mode.IsRegular():
		return false, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return false, fmt.Errorf("%s cannot be read: %v", path, err)
	}
	f.Close()
	return false, nil
}

// OpenInput opens the input at path for reading in a way ctx can stop: a
// named pipe is opened without holding up the caller (its open waits for
// a writer, which ctx cuts short), and reads from a pipe or from standard
// input (path Stdin, read from stdin) return ctx's error once ctx ends,
// even while no data comes. size is the file's size, or -1 for a pipe or
// standard input. The caller closes the reader (which does not close
// stdin). Errors wrap state.ErrInvalid and name the file, or are ctx's.
func OpenInput(ctx context.Context, path string, stdin io.Reader) (r io.ReadCloser, size int64, err error) {
	if path == Stdin {
		if stdin == nil {
			return nil, 0, fmt.Errorf("%w: standard input (\"-\") is not available here: give a file", state.ErrInvalid)
		}
		return newCtxReader(ctx, stdin, false), -1, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	if fi.IsDir() {
		return nil, 0, fmt.Errorf("%w: %s is a directory, not a file", state.ErrInvalid, path)
	}
	if fi.Mode()&os.ModeNamedPipe != 0 {
		f, err := openPipe(ctx, path)
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			return nil, 0, fmt.Errorf("%w: %v", state.ErrInvalid, err)
		}
		return newCtxReader(ctx, f, true), -1, nil
	}
	if fi.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeSocket) != 0 {
		return nil, 0, fmt.Errorf("%w: %s is a device or socket, not a file", state.ErrInvalid, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", state.ErrInvalid, err)
	}
	return f, fi.Size(), nil
}

// ctxReader reads r until ctx ends. A file that the runtime polls (a pipe)
// gets a read deadline when ctx ends, which wakes a read that waits for
// data; any other reader is read in a goroutine, so that a read that never
// returns (a terminal, a pipe opened blocking) does not hold up the
// caller: it is abandoned, and the process exits around it.
type ctxReader struct {
	ctx   context.Context
	r     io.Reader
	owned bool // close r on Close
	f     *os.File
	stop  func() bool
}

func newCtxReader(ctx context.Context, r io.Reader, owned bool) *ctxReader {
	c := &ctxReader{ctx: ctx, r: r, owned: owned}
	if f, ok := r.(*os.File); ok && f.SetReadDeadline(time.Time{}) == nil {
		c.f = f
		c.stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	}
	return c
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.f != nil {
		n, err := c.r.Read(p)
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && c.ctx.Err() != nil {
			err = c.ctx.Err()
		}
		return n, err
	}
	type result struct {
		n   int
		err error
	}
	buf := make([]byte, len(p))
	ch := make(chan result, 1)
	go func() {
		n, err := c.r.Read(buf)
		ch <- result{n, err}
	}()
	select {
	case res := <-ch:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

func (c *ctxReader) Close() error {
	if c.stop != nil {
		c.stop()
	}
	if c.owned {
		if cl, ok := c.r.(io.Closer); ok {
			return cl.Close()
		}
	}
	return nil
}
