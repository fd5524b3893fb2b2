package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"frameindex/grid"
	"frameindex/internal/jsonscan"
	"frameindex/state"
)

// featuresInput is a features input: each feature is stored, compact, on
// the frame holding its representative point, and gives the attributes
// its input derives (count, take).
type featuresInput struct {
	im    *importer
	src   vectorSource
	path  string
	input int
	skip  bool
	only  bool       // attributesOnly: derive, do not store
	count int        // derived spec of count, or -1
	takes []takeSpec // sorted by property
	buf   []byte
}

type takeSpec struct {
	property string
	attr     int
	spec     int
}

// openFeatures declares what a features input derives and checks its
// properties against the fields its format declares.
func (im *importer) openFeatures(src vectorSource, in checkedInput, input int) (*featuresInput, error) {
	im.register(in.path, input, inputFeatures)
	fi := &featuresInput{im: im, src: src, path: in.path, input: input, skip: in.skip, only: in.only, count: -1}
	if in.count >= 0 {
		im.given[in.count] = true
		fi.count = im.derived.addSpec(derivedSpec{input: input, attr: in.count, agg: state.AggSum, num: true})
	}
	if err := checkFields(src, in); err != nil {
		return nil, err
	}
	for _, p := range in.props {
		a := im.attrs[p.attr]
		im.given[p.attr] = true
		spec := im.derived.addSpec(derivedSpec{input: input, attr: p.attr, agg: a.Aggregation, num: a.Type == state.TypeNumber})
		fi.takes = append(fi.takes, takeSpec{property: p.property, attr: p.attr, spec: spec})
	}
	return fi, nil
}

// checkFields refuses a property the format's declared fields lack, before
// any feature is read.
func checkFields(src vectorSource, in checkedInput) error {
	fields := src.fields()
	if fields == nil {
		return nil
	}
	for _, p := range in.props {
		found := false
		for _, f := range fields {
			found = found || f == p.property
		}
		if !found {
			return fmt.Errorf("%w: %s: property %q is not a field of this %s (fields: %s)", state.ErrInvalid, in.path, p.property, src.describe(), clip(fmt.Sprint(fields)))
		}
	}
	return nil
}

func (fi *featuresInput) read(ctx context.Context) error {
	im, path := fi.im, fi.path
	n := 0
	err := fi.src.each(ctx, func(i int, f grid.InFeature) error {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n++
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s feature %d: %s", state.ErrInvalid, path, i, fmt.Sprintf(format, args...))
		}
		pt, err := RepresentativePoint(f.Geometry)
		if err != nil {
			return bad("%v", err)
		}
		sh, ok := im.ix.At(pt[1], pt[0])
		if !ok {
			if fi.skip {
				im.skipped++
				return nil
			}
			return bad("its point (lon %v, lat %v) is on no frame of the grid (\"outside\": \"skip\" skips such features)", pt[0], pt[1])
		}
		if !fi.only {
			fi.buf, err = appendFeature(fi.buf[:0], f)
			if err != nil {
				return bad("%v", err)
			}
			if err := im.feats.add(sh.ID, fi.buf); err != nil {
				return bad("%v", err)
			}
		}
		if fi.count >= 0 {
			im.derived.addNumber(sh.ID, fi.count, 1, "", i)
		}
		if len(fi.takes) > 0 {
			return fi.take(sh.ID, i, f.RawProperties, bad)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: no features", state.ErrInvalid, path)
	}
	return nil
}

// take adds the feature's taken properties to their frame's aggregates. A
// property that is absent or null gives nothing; one of the wrong kind is
// refused.
func (fi *featuresInput) take(frame uint64, i int, props []byte, bad func(string, ...any) error) error {
	if len(props) == 0 {
		return nil
	}
	var err error
	gjson.ParseBytes(props).ForEach(func(k, v gjson.Result) bool {
		for _, t := range fi.takes {
			if t.property != k.Str {
				continue
			}
			a := fi.im.attrs[t.attr]
			switch v.Type {
			case gjson.Null:
			case gjson.Number:
				if a.Type != state.TypeNumber {
					err = bad("property %q is the number %s, but attribute %q is a %s (want a string)", t.property, clip(v.Raw), a.Name, a.Type)
					return false
				}
				x, perr := strconv.ParseFloat(v.Raw, 64)
				if perr != nil {
					err = bad("property %q: %s is not a finite number", t.property, clip(v.Raw))
					return false
				}
				fi.im.derived.addNumber(frame, t.spec, x, modeKey(v.Raw), i)
			case gjson.String:
				if a.Type == state.TypeNumber {
					err = bad("property %q is the string %q, but attribute %q is a number (%s); a %s needs numbers", t.property, clip(v.Str), a.Name, a.Aggregation, a.Aggregation)
					return false
				}
				fi.im.derived.addText(frame, t.spec, v.Str, i)
			default:
				err = bad("property %q is %s; attribute %q takes a %s", t.property, jsonscan.KindOf(v.Raw).String(), a.Name,
					map[bool]string{true: "number", false: "string"}[a.Type == state.TypeNumber])
				return false
			}
		}
		return true
	})
	return err
}

// appendFeature appends f as one compact GeoJSON Feature:
// {"type":"Feature","id":…,"geometry":…,"properties":…}, each member the
// input's JSON compacted: properties keep their order and numbers their
// text, and HTML characters are not escaped.
func appendFeature(dst []byte, f grid.InFeature) ([]byte, error) {
	dst = append(dst, `{"type":"Feature"`...)
	var err error
	if f.ID != nil {
		dst = append(dst, `,"id":`...)
		if dst, err = appendCompact(dst, f.ID); err != nil {
			return dst, fmt.Errorf("id: %v", err)
		}
	}
	dst = append(dst, `,"geometry":`...)
	if dst, err = appendCompact(dst, f.Geometry); err != nil {
		return dst, fmt.Errorf("geometry: %v", err)
	}
	dst = append(dst, `,"properties":`...)
	if f.RawProperties == nil && f.Properties == nil {
		dst = append(dst, "null"...)
	} else if f.RawProperties != nil {
		if dst, err = appendCompact(dst, f.RawProperties); err != nil {
			return dst, fmt.Errorf("properties: %v", err)
		}
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f.Properties); err != nil {
			return dst, fmt.Errorf("properties: %v", err)
		}
		dst = append(dst, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	return append(dst, '}'), nil
}

// appendCompact appends raw JSON without insignificant space.
func appendCompact(dst []byte, raw []byte) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	if err := json.Compact(b, raw); err != nil {
		return dst, err
	}
	return b.Bytes(), nil
}
