package export

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"frameindex/grid"
)

// ColumnType is the type of an attribute column.
type ColumnType int

const (
	// Number columns hold float64 values (GeoPackage DOUBLE, FlatGeobuf
	// Double, JSON number).
	Number ColumnType = iota + 1
	// Text columns hold strings (TEXT, String, JSON string).
	Text
	// Integer columns hold int64 values (INTEGER, Long, JSON integer).
	Integer
)

func (t ColumnType) String() string {
	switch t {
	case Number:
		return "number"
	case Text:
		return "text"
	case Integer:
		return "integer"
	}
	return fmt.Sprintf("ColumnType(%d)", int(t))
}

// Column is an attribute column written after frame_id.
type Column struct {
	Name string
	Type ColumnType
}

// Frame is one feature to write.
type Frame struct {
	// ID is the frame id, written as the string of its decimal digits.
	ID uint64
	// Geom is the frame's shape for imported grids. Nil means the lattice
	// cell whose id is ID (a 5-point closed counter-clockwise square).
	Geom grid.MultiPolygon
	// Values holds one value per column, in column order: float64 (or
	// int64, int) for Number, string for Text, int64 (or int) for Integer,
	// or nil for no value; NaN and infinite numbers are written as no
	// value, invalid UTF-8 in text as U+FFFD. Nil or short Values leave
	// the rest empty.
	Values []any
}

// Options describes the file to write.
type Options struct {
	// Columns are the attribute columns, after frame_id. Names must be
	// non-empty valid UTF-8, unique ignoring case, and not fid, geom or
	// frame_id.
	Columns []Column
	// Layer names the GeoPackage table and the FlatGeobuf dataset;
	// "frames" when empty.
	Layer string
	// Multi declares the layer as MultiPolygon and writes every frame as a
	// MultiPolygon. Without it the layer is Polygon and a frame with more
	// than one polygon is an error: set it for imported grids whose
	// frames may have several parts.
	Multi bool
}

// Writer writes frames to one file. Write and Close (or Abort) must be
// called from one goroutine at a time; a Writer is not safe for concurrent
// use.
type Writer interface {
	// Write adds one frame. It fails, naming the frame, on a geometry
	// that is not finite or a value of the wrong type; after any error
	// the writer is unusable and Close only removes the temporary file.
	Write(Frame) error
	// Close completes the file (spatial index, extent, header) and
	// renames it into place; until then nothing exists at the path. It
	// returns the first error met, and then no file is left behind.
	Close() error
	// Abort drops everything written and removes the temporary file. It
	// is safe after Close and more than once.
	Abort() error
}

// Formats lists the file extensions Create understands.
var Formats = []string{".gpkg", ".fgb", ".geojsonl"}

// Create starts writing a file at path, the format chosen by its extension
// (see Formats, case-insensitive). The data go to a hidden temporary file
// in the same directory (.NAME.*.tmp) that Close renames to path,
// replacing a file already there; a failed, aborted or interrupted export
// leaves no half-written file at path (an interrupted process can leave
// the temporary file). Errors: an unknown extension (naming the supported
// ones), invalid columns or layer name, and a directory that cannot be
// written.
func Create(path string, opts Options) (Writer, error) {
	if opts.Layer == "" {
		opts.Layer = "frames"
	}
	if err := checkOptions(opts); err != nil {
		return nil, fmt.Errorf("export %s: %w", path, err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".gpkg":
		return newGPKG(path, opts)
	case ".fgb":
		return newFGB(path, opts)
	case ".geojsonl":
		return newGeoJSONL(path, opts)
	}
	return nil, fmt.Errorf("export %s: unknown format %q: the file name must end in %s", path, ext, strings.Join(Formats, ", "))
}

var reservedNames = []string{"fid", "geom", "frame_id"}

func checkOptions(o Options) error {
	if !utf8.ValidString(o.Layer) || strings.ContainsRune(o.Layer, 0) {
		return fmt.Errorf("layer name %q is not valid UTF-8 text", o.Layer)
	}
	if strings.HasPrefix(strings.ToLower(o.Layer), "gpkg_") || strings.HasPrefix(strings.ToLower(o.Layer), "rtree_") || strings.HasPrefix(strings.ToLower(o.Layer), "sqlite_") {
		return fmt.Errorf("layer name %q uses a prefix reserved by GeoPackage or SQLite", o.Layer)
	}
	seen := map[string]bool{}
	for i, c := range o.Columns {
		switch {
		case c.Name == "":
			return fmt.Errorf("column %d has no name", i+1)
		case !utf8.ValidString(c.Name) || strings.ContainsRune(c.Name, 0):
			return fmt.Errorf("column %d: name %q is not valid UTF-8 text", i+1, c.Name)
		case c.Type < Number || c.Type > Integer:
			return fmt.Errorf("column %q has unknown type %v", c.Name, c.Type)
		}
		low := strings.ToLower(c.Name)
		for _, r := range reservedNames {
			if low == r {
				return fmt.Errorf("column name %q is reserved (fid, geom and frame_id are written by the exporter)", c.Name)
			}
		}
		if seen[low] {
			return fmt.Errorf("column name %q appears twice (names are compared ignoring case)", c.Name)
		}
		seen[low] = true
	}
	if len(o.Columns) > 65534 {
		return fmt.Errorf("%d columns; at most 65534 fit", len(o.Columns))
	}
	return nil
}

// value is one checked attribute value.
type value struct {
	kind ColumnType // 0: null
	f    float64
	i    int64
	s    string
}

// checkValues converts f.Values to typed values in vals (reused), or
// reports the first value of the wrong type.
func checkValues(cols []Column, f *Frame, vals []value) ([]value, error) {
	vals = vals[:0]
	if len(f.Values) > len(cols) {
		return vals, fmt.Errorf("frame %d: %d values for %d columns", f.ID, len(f.Values), len(cols))
	}
	for i, c := range cols {
		var v any
		if i < len(f.Values) {
			v = f.Values[i]
		}
		var out value
		switch x := v.(type) {
		case nil:
		case float64:
			if c.Type == Number && !math.IsNaN(x) && !math.IsInf(x, 0) {
				out = value{kind: Number, f: x}
			} else if c.Type != Number {
				return vals, typeError(f.ID, c, v)
			}
		case int64:
			switch c.Type {
			case Integer:
				out = value{kind: Integer, i: x}
			case Number:
				out = value{kind: Number, f: float64(x)}
			default:
				return vals, typeError(f.ID, c, v)
			}
		case int:
			switch c.Type {
			case Integer:
				out = value{kind: Integer, i: int64(x)}
			case Number:
				out = value{kind: Number, f: float64(x)}
			default:
				return vals, typeError(f.ID, c, v)
			}
		case string:
			if c.Type != Text {
				return vals, typeError(f.ID, c, v)
			}
			if !utf8.ValidString(x) {
				// GeoPackage, FlatGeobuf and JSON text are all UTF-8.
				x = strings.ToValidUTF8(x, "\uFFFD")
			}
			out = value{kind: Text, s: x}
		default:
			return vals, typeError(f.ID, c, v)
		}
		vals = append(vals, out)
	}
	return vals, nil
}

func typeError(id uint64, c Column, v any) error {
	return fmt.Errorf("frame %d: column %q (%v) cannot hold %T value %v", id, c.Name, c.Type, v, v)
}

// shape is a frame's geometry in the form the binary writers need: the
// polygons, the bounding box, and whether it came from the lattice.
type shape struct {
	polys                  grid.MultiPolygon
	minX, minY, maxX, maxY float64
	cell                   [1]grid.Polygon // backing store for a lattice cell
	ring                   [5]grid.Point
}

// load fills s from f: a lattice cell's counter-clockwise square, or the
// frame's polygons, checked for finiteness and emptiness.
func (s *shape) load(f *Frame, multi bool) error {
	if f.Geom == nil {
		row, col, ok := grid.RowCol(f.ID)
		if !ok {
			return fmt.Errorf("frame %d: no geometry given and the id is not a lattice cell (largest is %d)", f.ID, grid.MaxID)
		}
		w, e := grid.Lon(col), grid.Lon(col+1)
		n, so := grid.Lat(row), grid.Lat(row+1)
		s.ring = [5]grid.Point{{w, so}, {e, so}, {e, n}, {w, n}, {w, so}}
		s.cell[0] = grid.Polygon{grid.Ring(s.ring[:])}
		s.polys = s.cell[:]
		s.minX, s.minY, s.maxX, s.maxY = w, so, e, n
		return nil
	}
	if len(f.Geom) == 0 {
		return fmt.Errorf("frame %d: empty geometry (no polygons)", f.ID)
	}
	if len(f.Geom) > 1 && !multi {
		return fmt.Errorf("frame %d: %d polygons, but the layer was created for single Polygons (set Options.Multi)", f.ID, len(f.Geom))
	}
	s.polys = f.Geom
	s.minX, s.minY = math.Inf(1), math.Inf(1)
	s.maxX, s.maxY = math.Inf(-1), math.Inf(-1)
	for pi, p := range f.Geom {
		if len(p) == 0 || len(p[0]) == 0 {
			return fmt.Errorf("frame %d: polygon %d has no outer ring", f.ID, pi+1)
		}
		for ri, r := range p {
			if len(r) < 4 {
				return fmt.Errorf("frame %d: polygon %d ring %d has %d points, want at least 4", f.ID, pi+1, ri+1, len(r))
			}
			for _, pt := range r {
				if math.IsNaN(pt[0]) || math.IsInf(pt[0], 0) || math.IsNaN(pt[1]) || math.IsInf(pt[1], 0) {
					return fmt.Errorf("frame %d: polygon %d ring %d has a point that is not finite", f.ID, pi+1, ri+1)
				}
				s.minX, s.maxX = min(s.minX, pt[0]), max(s.maxX, pt[0])
				s.minY, s.maxY = min(s.minY, pt[1]), max(s.maxY, pt[1])
			}
		}
	}
	return nil
}

// extent accumulates the bounding box of everything written.
type extent struct {
	minX, minY, maxX, maxY float64
	n                      int64
}

func (e *extent) add(s *shape) {
	if e.n == 0 {
		e.minX, e.minY, e.maxX, e.maxY = s.minX, s.minY, s.maxX, s.maxY
	} else {
		e.minX, e.minY = min(e.minX, s.minX), min(e.minY, s.minY)
		e.maxX, e.maxY = max(e.maxX, s.maxX), max(e.maxY, s.maxY)
	}
	e.n++
}

// tempFor creates the hidden temporary file beside path.
func tempFor(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Mode 0666 less the process's umask, as os.Create would make the
	// file (os.CreateTemp's 0600 would then have to be widened by hand:
	// exports used to become 0644 whatever the umask said).
	for range 10000 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", path, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("export %s: no free temporary name in %s", path, dir)
}

// finish syncs the temporary file and renames it to path.
func finish(tmp, path string) error {
	f, err := os.OpenFile(tmp, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// A file replaced keeps its mode (an operator who made it private
	// keeps it private); a new one has the umask's.
	if fi, err := os.Stat(path); err == nil {
		if err := os.Chmod(tmp, fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return os.Rename(tmp, path)
}

// errClosed is returned by Write after Close or Abort.
var errClosed = errors.New("the writer is closed")

// state is what every writer keeps of its course: the file it makes, the
// first error (it sticks: every later call returns it) and whether Close or
// Abort has run.
type state struct {
	path string
	err  error
	done bool
}

// writable returns the error a Write must return before writing anything:
// the one that stuck, or errClosed after Close or Abort.
func (s *state) writable() error {
	if s.err != nil {
		return s.err
	}
	if s.done {
		return errClosed
	}
	return nil
}

// fail makes err stick, naming the file, and returns it.
func (s *state) fail(err error) error {
	s.err = fmt.Errorf("export %s: %w", s.path, err)
	return s.err
}

// close is Close: the first call runs complete unless an error stuck, and
// cleanup when either failed; every later call returns the first's result.
func (s *state) close(complete func() error, cleanup func()) error {
	if s.done {
		return s.err
	}
	s.done = true
	if s.err == nil {
		err := complete()
		if err == nil {
			return nil
		}
		s.fail(err)
	}
	cleanup()
	return s.err
}

// abort starts Abort: it reports whether this is the first Close or Abort
// (the caller then removes what it made), and makes Write fail from now on.
func (s *state) abort() bool {
	if s.done {
		return false
	}
	s.done = true
	if s.err == nil {
		s.err = errClosed
	}
	return true
}
