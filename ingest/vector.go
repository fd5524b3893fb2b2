package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"frameindex/grid"
	"frameindex/internal/jsonscan"
	"frameindex/state"
)

// vectorSource streams the features of one vector input (GeoJSON, a
// GeoJSON text sequence, a shapefile or a GeoPackage) as GeoJSON in WGS 84
// longitude/latitude, with properties kept as text (RawProperties).
type vectorSource interface {
	// each calls fn for every feature with its number from 0. An error fn
	// returns stops the walk and is returned unchanged.
	each(ctx context.Context, fn func(i int, f grid.InFeature) error) error
	// fields names the properties every feature has, when the format
	// declares them (shapefile, GeoPackage); nil otherwise.
	fields() []string
	// describe says what the source is, for messages.
	describe() string
}

// Vector formats, chosen by extension and content.
const (
	vectorGeoJSON = iota
	vectorSeq
	vectorShapefile
	vectorGeoPackage
)

// sniffVector picks the reader of an input from its name and first bytes:
// .shp and .zip are shapefiles, .gpkg (or an SQLite file) a GeoPackage,
// .geojsonl/.geojsons/.ndjson/.jsonl (or text that starts with the record
// separator 0x1E, or a first line holding a whole Feature) a GeoJSON text
// sequence, anything else GeoJSON.
func sniffVector(path string, head []byte) int {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".shp"), strings.HasSuffix(lower, ".zip"):
		return vectorShapefile
	case strings.HasSuffix(lower, ".gpkg"), bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return vectorGeoPackage
	case strings.HasSuffix(lower, ".geojsonl"), strings.HasSuffix(lower, ".geojsons"),
		strings.HasSuffix(lower, ".ndjson"), strings.HasSuffix(lower, ".jsonl"):
		return vectorSeq
	}
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(h) > 0 && h[0] == 0x1e {
		return vectorSeq
	}
	// A whole Feature on the first line, with more text after it.
	if nl := bytes.IndexByte(h, '\n'); nl > 0 {
		line := bytes.TrimSpace(h[:nl])
		if gjson.ValidBytes(line) && gjson.GetBytes(line, "type").Str == "Feature" && len(bytes.TrimSpace(h[nl:])) > 0 {
			return vectorSeq
		}
	}
	return vectorGeoJSON
}

// geojsonSource reads GeoJSON: a FeatureCollection, a Feature or a bare
// geometry (see grid.ReadRawFeatures).
type geojsonSource struct {
	r    io.Reader
	path string
}

func (s *geojsonSource) each(ctx context.Context, fn func(int, grid.InFeature) error) error {
	// No feature may pass MaxRecordBytes (plus the read-ahead of the
	// buffers above): the count restarts at each feature.
	lim := &recordLimiter{r: s.r, maxRecord: MaxRecordBytes + 1<<20}
	next := 0
	err := grid.ReadRawFeatures(lim, func(i int, f grid.InFeature) error {
		lim.reset()
		next = i + 1
		return fn(i, f)
	})
	if e := tooLong(err); e != nil {
		return fmt.Errorf("%w: %s feature %d (by line %d): more than %d MiB of JSON; a feature may be at most %d MiB",
			state.ErrInvalid, s.path, next, e.line, MaxRecordBytes>>20, MaxRecordBytes>>20)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, state.ErrInvalid) {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, state.ErrInvalid) && ctx.Err() == nil {
		err = fmt.Errorf("%w: %s: %v", state.ErrInvalid, s.path, err)
	}
	return err
}
func (s *geojsonSource) fields() []string { return nil }
func (s *geojsonSource) describe() string { return "GeoJSON" }

// maxLineBytes bounds one line of a GeoJSON text sequence: one feature.
const maxLineBytes = MaxRecordBytes

// seqSource reads a GeoJSON text sequence: one Feature per line (RFC 8142's
// record separator 0x1E before each is allowed); blank lines are skipped.
// Features are counted from 0, lines from 1.
type seqSource struct {
	r    io.Reader
	path string
}

func (s *seqSource) each(ctx context.Context, fn func(int, grid.InFeature) error) error {
	br := bufio.NewReaderSize(s.r, 1<<20)
	var long []byte
	i := 0
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				if len(long) > maxLineBytes {
					return fmt.Errorf("%w: %s line %d: longer than %d MiB; one feature per line", state.ErrInvalid, s.path, line, maxLineBytes>>20)
				}
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%w: %s line %d: %v", state.ErrInvalid, s.path, line, err)
		}
		rec := bytes.TrimSpace(bytes.TrimLeft(b, "\x1e"))
		if line == 1 {
			rec = bytes.TrimPrefix(rec, []byte("\ufeff"))
		}
		if len(rec) > 0 {
			f, perr := parseFeature(rec)
			if perr != nil {
				return fmt.Errorf("%w: %s line %d (feature %d): %v", state.ErrInvalid, s.path, line, i, perr)
			}
			if i%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(i, f); err != nil {
				return err
			}
			i++
		}
		if err == io.EOF {
			return nil
		}
	}
}
func (s *seqSource) fields() []string { return nil }
func (s *seqSource) describe() string { return "GeoJSON text sequence" }

// parseFeature reads one GeoJSON Feature object's members, as
// grid.ReadRawFeatures does for the features of a collection.
func parseFeature(b []byte) (grid.InFeature, error) {
	if !gjson.ValidBytes(b) {
		return grid.InFeature{}, errors.New("not valid JSON")
	}
	res := gjson.ParseBytes(b)
	if !res.IsObject() {
		return grid.InFeature{}, fmt.Errorf("is %s, want a Feature object", jsonscan.KindOf(res.Raw).String())
	}
	var typ *string
	var id, geom, props json.RawMessage
	res.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			if v.Type == gjson.String {
				t := v.Str
				typ = &t
			} else {
				t := "(" + jsonscan.KindOf(v.Raw).String() + ")"
				typ = &t
			}
		case "id":
			id = json.RawMessage(v.Raw)
		case "geometry":
			geom = json.RawMessage(v.Raw)
		case "properties":
			props = json.RawMessage(v.Raw)
		}
		return true
	})
	return grid.ToInFeature(typ, id, geom, props, false)
}
