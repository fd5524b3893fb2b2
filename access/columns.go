package access

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"

	"frameindex/bolt"
	"frameindex/insight"
	"frameindex/state"
)

// RecordScanner scans a dataset's frame records; *bolt.Store implements
// it (see bolt.Store.ScanRecords).
type RecordScanner interface {
	ScanRecords(id string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error
}

// The column cache.
//
// A question about an area (tens of thousands of frames, or the whole
// country's 1.08 M) cannot read and parse each frame's JSON attributes per
// request. Columns keeps, per dataset version, every record decoded once
// into arrays: the ascending ids of the frames the dataset records
// something on, the feature count of each, each numeric attribute as
// float64 (NaN where the record lacks it) and each category attribute as
// int32 codes into a dictionary. Any frame set is then read by position
// (DatasetColumns.Positions, then Column). A version is built on first
// use, by one goroutine while others wait for it, and dropped when the
// dataset's version changes or, least recently used first, when the cache
// holds more than its byte bound.
//
// Memory: 12 bytes per record (id and feature count), plus 8 per record
// for each numeric attribute and 4 for each category attribute, plus the
// dictionaries. The national demo's six datasets take about 90 MB.

// DefaultColumnBytes bounds the column cache of a server.
const DefaultColumnBytes = 512 << 20

// Columns is the shared column cache. Safe for concurrent use.
type Columns struct {
	c *versionCache[*DatasetColumns]
}

// NewColumns returns an empty cache holding at most maxBytes of columns
// (the newest dataset version is always kept, whatever its size).
func NewColumns(maxBytes int64) *Columns {
	return &Columns{newVersionCache(maxBytes, (*DatasetColumns).Bytes)}
}

// Bytes is what the cache holds now.
func (c *Columns) Bytes() int64 {
	b, _ := c.c.held()
	return b
}

// Dataset returns the columns of dataset d at d.Version, building them
// from s on first use. Errors are the scan's (wrapped), or ErrStore for a
// record whose attributes do not parse; a failed build is not cached.
func (c *Columns) Dataset(s RecordScanner, d state.Dataset) (*DatasetColumns, error) {
	return c.c.get(d.ID, d.Version, func() (*DatasetColumns, error) { return buildColumns(s, d) })
}

// DatasetColumns is one dataset version's records, decoded.
type DatasetColumns struct {
	ID      string
	Version int
	// Frames are the ids of the frames the dataset records something on,
	// ascending; Features the feature count of each.
	Frames   []uint64
	Features []uint32
	attrs    map[string]state.Attribute
	num      map[string][]float64
	cat      map[string]*category
}

// category is a category attribute's codes (-1: not recorded) and
// dictionary.
type category struct {
	codes []int32
	dict  []string
}

// Bytes is the memory the columns hold, roughly.
func (dc *DatasetColumns) Bytes() int64 {
	n := int64(len(dc.Frames)) * 12
	for _, v := range dc.num {
		n += int64(len(v)) * 8
	}
	for _, c := range dc.cat {
		n += int64(len(c.codes)) * 4
		for _, s := range c.dict {
			n += int64(len(s)) + 16
		}
	}
	return n
}

// buildColumns scans every record of d.
func buildColumns(s RecordScanner, d state.Dataset) (*DatasetColumns, error) {
	dc := &DatasetColumns{ID: d.ID, Version: d.Version, attrs: map[string]state.Attribute{},
		num: map[string][]float64{}, cat: map[string]*category{}}
	type slot struct {
		num  *[]float64
		cat  *category
		dict map[string]int32
	}
	slots := map[string]*slot{}
	for _, at := range d.Attributes {
		dc.attrs[at.Name] = at
		if at.Type == state.TypeNumber {
			var v []float64
			dc.num[at.Name] = v
			slots[at.Name] = &slot{num: &v}
		} else {
			c := &category{}
			dc.cat[at.Name] = c
			slots[at.Name] = &slot{cat: c, dict: map[string]int32{}}
		}
	}
	var bad error
	n := 0
	err := s.ScanRecords(d.ID, []bolt.IDRange{bolt.AllFrames}, func(frame uint64, features int, attrs []byte) bool {
		dc.Frames = append(dc.Frames, frame)
		dc.Features = append(dc.Features, uint32(min(features, math.MaxUint32)))
		for _, sl := range slots {
			if sl.num != nil {
				*sl.num = append(*sl.num, math.NaN())
			} else {
				sl.cat.codes = append(sl.cat.codes, -1)
			}
		}
		if len(attrs) > 0 && len(slots) > 0 {
			if !gjson.ValidBytes(attrs) {
				bad = storeError("the attributes of dataset %q on frame %d do not parse", d.ID, frame)
				return false
			}
			gjson.ParseBytes(attrs).ForEach(func(k, v gjson.Result) bool {
				sl := slots[k.Str]
				if sl == nil {
					return true
				}
				switch {
				case sl.num != nil && v.Type == gjson.Number:
					if f, err := strconv.ParseFloat(v.Raw, 64); err == nil && !math.IsInf(f, 0) {
						(*sl.num)[n] = f
					}
				case sl.num != nil:
					(*sl.num)[n] = math.NaN() // a later non-number replaces an earlier value
				case v.Type == gjson.String:
					code, ok := sl.dict[v.Str]
					if !ok {
						code = int32(len(sl.cat.dict))
						sl.dict[v.Str] = code
						sl.cat.dict = append(sl.cat.dict, v.Str)
					}
					sl.cat.codes[n] = code
				default:
					sl.cat.codes[n] = -1
				}
				return true
			})
		}
		n++
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, fmt.Errorf("reading the records of dataset %s version %d: %w", d.ID, d.Version, err)
	}
	for name, sl := range slots {
		if sl.num != nil {
			dc.num[name] = *sl.num
		}
	}
	return dc, nil
}

// Positions maps frames to the positions of their records (-1 where the
// dataset records nothing), for Column and FeatureColumn: a merge when
// frames ascend, else a binary search per frame.
func (dc *DatasetColumns) Positions(frames []uint64) []int32 {
	pos, _ := dc.positionsInto(frames, nil)
	return pos
}

// positionsInto is Positions written into buf (grown when short), and
// whether the positions are 0, 1, 2, …, one per record: frames are every
// frame the dataset records, in order, so that a column is the cached
// one as it is (ColumnAll).
func (dc *DatasetColumns) positionsInto(frames []uint64, buf []int32) (pos []int32, all bool) {
	if cap(buf) < len(frames) {
		buf = make([]int32, len(frames))
	}
	pos = buf[:len(frames)]
	if slices.IsSorted(frames) {
		j, found := 0, 0
		for i, f := range frames {
			for j < len(dc.Frames) && dc.Frames[j] < f {
				j++
			}
			if j < len(dc.Frames) && dc.Frames[j] == f {
				pos[i] = int32(j)
				found++
			} else {
				pos[i] = -1
			}
		}
		// Both ascend without repeats: every frame found and as many as
		// the records means position i is record i.
		return pos, found == len(dc.Frames) && len(frames) == len(dc.Frames)
	}
	for i, f := range frames {
		if k, ok := slices.BinarySearch(dc.Frames, f); ok {
			pos[i] = int32(k)
		} else {
			pos[i] = -1
		}
	}
	return pos, false
}

// ColumnAll is attribute attr on every frame the dataset records, in
// order: the cached arrays themselves, not a copy, so it must not be
// modified (the engine only reads its columns).
func (dc *DatasetColumns) ColumnAll(attr string) (insight.Column, bool) {
	at, ok := dc.attrs[attr]
	if !ok {
		return insight.Column{}, false
	}
	col := insight.Column{Dataset: dc.ID, Attr: engineAttribute(at)}
	if v, ok := dc.num[attr]; ok {
		col.Num = v
		return col, true
	}
	c := dc.cat[attr]
	col.Dict, col.Codes = c.dict, c.codes
	return col, true
}

// Recorded counts the positions that hold a record, and the features on
// them.
func (dc *DatasetColumns) Recorded(pos []int32) (frames, features int) {
	for _, p := range pos {
		if p >= 0 {
			frames++
			features += int(dc.Features[p])
		}
	}
	return frames, features
}

// Column is attribute attr on the frames of pos, as the engine reads it;
// ok is false for an attribute the dataset does not declare.
func (dc *DatasetColumns) Column(attr string, pos []int32) (insight.Column, bool) {
	at, ok := dc.attrs[attr]
	if !ok {
		return insight.Column{}, false
	}
	col := insight.Column{Dataset: dc.ID, Attr: engineAttribute(at)}
	if v, ok := dc.num[attr]; ok {
		col.Num = make([]float64, len(pos))
		for i, p := range pos {
			if p >= 0 {
				col.Num[i] = v[p]
			} else {
				col.Num[i] = math.NaN()
			}
		}
		return col, true
	}
	c := dc.cat[attr]
	col.Dict = c.dict
	col.Codes = make([]int32, len(pos))
	for i, p := range pos {
		if p >= 0 {
			col.Codes[i] = c.codes[p]
		} else {
			col.Codes[i] = -1
		}
	}
	return col, true
}

// FeatureColumn is the dataset's feature count on the frames of pos (0
// where it holds none), as a Column with no attribute name.
func (dc *DatasetColumns) FeatureColumn(pos []int32) insight.Column {
	col := insight.Column{Dataset: dc.ID, Num: make([]float64, len(pos))}
	for i, p := range pos {
		if p >= 0 {
			col.Num[i] = float64(dc.Features[p])
		}
	}
	return col
}

// engineAttribute is a declared attribute as the engine describes it.
func engineAttribute(at state.Attribute) insight.Attribute {
	return insight.Attribute{Name: at.Name, Label: at.Label, Unit: at.Unit, Type: at.Type,
		Aggregation: at.Aggregation, Year: at.Year, Aliases: at.Aliases}
}
