package ingest

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"frameindex/grid"
	"frameindex/state"
)

// csvInput is a CSV input whose header has been read.
type csvInput struct {
	im            *importer
	cr            *csv.Reader
	lim           *recordLimiter // counts each record's bytes
	path          string
	input         int
	skip          bool
	header        []string
	cols          []int
	idCol, latCol int
	lonCol        int
}

// openCSV reads the header of one CSV input (see Manifest) and marks the
// attributes its columns give.
func (im *importer) openCSV(r io.Reader, path string, input int, skip bool) (*csvInput, error) {
	im.register(path, input, inputCSV)
	// No line, nor record of several lines, may pass MaxRecordBytes (plus
	// what the buffer has read ahead).
	lim := &recordLimiter{r: r, maxLine: MaxRecordBytes, maxRecord: MaxRecordBytes + csvBuffer}
	cr := csv.NewReader(bufio.NewReaderSize(lim, csvBuffer))
	cr.ReuseRecord = true
	c := &csvInput{im: im, cr: cr, lim: lim, path: path, input: input, skip: skip}
	bad, csvErr := c.bad, c.csvErr
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: %s: the file is empty; want a header row (frame_id, or lat and lon, and attribute columns)", state.ErrInvalid, path)
	}
	if err != nil {
		return nil, csvErr(err)
	}
	header = slices.Clone(header) // the reader reuses its record
	cols := make([]int, len(header))
	idCol, latCol, lonCol := -1, -1, -1
	seen := map[string]int{}
	for i, h := range header {
		if !utf8.ValidString(h) {
			return nil, bad(1, "column %d: the header is not valid UTF-8 (the file must be UTF-8)", i+1)
		}
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, bad(1, "column %d has no name", i+1)
		}
		if j, dup := seen[h]; dup {
			return nil, bad(1, "column %q appears twice (columns %d and %d)", h, j+1, i+1)
		}
		seen[h] = i
		switch h {
		case "frame_id":
			cols[i], idCol = colID, i
		case "lat":
			cols[i], latCol = colLat, i
		case "lon":
			cols[i], lonCol = colLon, i
		default:
			k, ok := im.byName[h]
			if !ok {
				return nil, bad(1, "column %q is not a declared attribute (declared: %s)", h, im.declared())
			}
			cols[i] = k
			im.given[k] = true
		}
	}
	switch {
	case idCol >= 0 && (latCol >= 0 || lonCol >= 0):
		return nil, bad(1, "has frame_id and lat/lon columns; key the rows by one or the other")
	case idCol < 0 && latCol < 0 && lonCol < 0:
		return nil, bad(1, "has no frame_id column, nor lat and lon columns")
	case idCol < 0 && latCol < 0:
		return nil, bad(1, "has a lon column but no lat column")
	case idCol < 0 && lonCol < 0:
		return nil, bad(1, "has a lat column but no lon column")
	}
	c.header, c.cols, c.idCol, c.latCol, c.lonCol = header, cols, idCol, latCol, lonCol
	lim.reset()
	return c, nil
}

// bad reports bad input at a line of the file.
func (c *csvInput) bad(line int, format string, args ...any) error {
	return fmt.Errorf("%w: %s line %d: %s", state.ErrInvalid, c.path, line, fmt.Sprintf(format, args...))
}

// csvErr reports an error of the CSV reader, at its line when it has one.
func (c *csvInput) csvErr(err error) error {
	if e := tooLong(err); e != nil {
		return c.bad(e.line, "%v; a CSV record may be at most %d MiB", e, MaxRecordBytes>>20)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return c.bad(pe.Line, "%v", pe.Err)
	}
	return fmt.Errorf("%w: %s: %v", state.ErrInvalid, c.path, err)
}

// csvBuffer is the read buffer of a CSV input.
const csvBuffer = 256 << 10

// Column roles of csvInput.cols other than an attribute index.
const (
	colID  = -2
	colLat = -3
	colLon = -4
)

// read reads the rows.
func (c *csvInput) read(ctx context.Context) error {
	im, cr, path, input, skip, header, cols := c.im, c.cr, c.path, c.input, c.skip, c.header, c.cols
	idCol, latCol, lonCol := c.idCol, c.latCol, c.lonCol
	bad, csvErr := c.bad, c.csvErr
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return csvErr(err)
		}
		c.lim.reset()
		line, _ := cr.FieldPos(0)
		rows++
		if rows%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for i, f := range rec {
			if !utf8.ValidString(f) {
				return bad(line, "column %q: not valid UTF-8 (the file must be UTF-8)", strings.TrimSpace(header[i]))
			}
		}
		var frame uint64
		if idCol >= 0 {
			s := strings.TrimSpace(rec[idCol])
			if s == "" {
				return bad(line, "frame_id is empty")
			}
			id, err := parseFrameID(s)
			if err != nil {
				return bad(line, "frame_id %q %v", clip(s), err)
			}
			if _, ok := im.ix.Shape(id); !ok {
				if skip {
					im.skipped++
					continue
				}
				return bad(line, "frame %d is not in the grid", id)
			}
			frame = id
		} else {
			lat, err := parseCoord(rec[latCol], "lat", 90)
			if err != nil {
				return bad(line, "%v", err)
			}
			lon, err := parseCoord(rec[lonCol], "lon", 180)
			if err != nil {
				return bad(line, "%v", err)
			}
			sh, ok := im.ix.At(lat, lon)
			if !ok {
				if skip {
					im.skipped++
					continue
				}
				return bad(line, "lat %s, lon %s is on no frame of the grid", strings.TrimSpace(rec[latCol]), strings.TrimSpace(rec[lonCol]))
			}
			frame = sh.ID
		}
		for i, f := range rec {
			k := cols[i]
			if k < 0 || strings.TrimSpace(f) == "" {
				continue
			}
			a := im.attrs[k]
			v := im.scratch[:0]
			if a.Type == state.TypeNumber {
				var ok bool
				if v, ok = appendNumber(v, f); !ok {
					if strings.TrimSpace(f) == "" {
						continue
					}
					return bad(line, "column %q: %q is not a finite decimal number", a.Name, clip(f))
				}
			} else {
				v = grid.AppendJSONString(v, f)
			}
			im.scratch = v
			off, n, err := im.addValue(v)
			if err != nil {
				return bad(line, "%v", err)
			}
			im.entries = append(im.entries, attrEntry{frame: frame, attr: uint16(k), input: uint16(input),
				pos: int32(min(line, math.MaxInt32)), off: off, n: n})
		}
	}
	if rows == 0 {
		return fmt.Errorf("%w: %s: the file has a header but no rows", state.ErrInvalid, path)
	}
	return nil
}

func (im *importer) declared() string {
	if len(im.attrs) == 0 {
		return "none"
	}
	names := make([]string, len(im.attrs))
	for i, a := range im.attrs {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "..."
	}
	return s
}

// parseFrameID parses 1-20 ASCII digits.
func parseFrameID(s string) (uint64, error) {
	if len(s) > 20 {
		return 0, errors.New("has more than 20 digits")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("is not a frame id (want decimal digits)")
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("is too large for a frame id")
	}
	return v, nil
}

// parseCoord parses a decimal coordinate in [-limit, limit].
func parseCoord(s, name string, limit float64) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%s is empty", name)
	}
	if !isDecimal(t) {
		return 0, fmt.Errorf("%s %q is not a decimal number", name, clip(t))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || v < -limit || v > limit {
		return 0, fmt.Errorf("%s %s is outside -%v..%v", name, clip(t), limit, limit)
	}
	return v, nil
}

// isDecimal reports whether s is a decimal number: an optional sign,
// digits with an optional fraction (at least one digit), an optional
// exponent. No spaces, hex, underscores, Inf or NaN.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendNumber appends the JSON number text of the decimal cell s (spaces
// around it ignored) and reports whether s was a finite decimal number.
// Integers keep every digit, without a plus sign or leading zeros ("-0"
// becomes 0); other numbers are written in their shortest round-trip form,
// in plain notation from 1e-6 up to 1e21 and in exponent form outside.
func appendNumber(dst []byte, s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if !isDecimal(s) {
		return dst, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return dst, false // out of float64 range, too large or too small
	}
	if strings.IndexAny(s, ".eE") < 0 {
		neg := s[0] == '-'
		s = strings.TrimLeft(strings.TrimLeft(s, "+-"), "0")
		if s == "" {
			return append(dst, '0'), true
		}
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, s...), true
	}
	if v == 0 {
		return append(dst, '0'), true
	}
	if a := math.Abs(v); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, 64), true
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64), true
}
