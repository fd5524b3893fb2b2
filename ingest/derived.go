package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"frameindex/grid"
	"frameindex/state"
)

// derivedAggs holds the attributes a features input derives per frame:
// the number of features (count) and a property aggregated by its
// attribute's declaration (take): summed, averaged, or the most frequent
// value. Memory grows with the frames that get a value, not with the
// features: one slot per frame, one aggVal per derived attribute.
type derivedAggs struct {
	specs  []derivedSpec
	slot   map[uint64]uint32
	frames []uint64
	vals   []aggVal // slot*len(specs) + spec

	// Modes: how many features gave each value, per frame and spec. Values
	// are interned, and all frames share one map: a map per frame would
	// cost several times as much for the few values a frame sees.
	modes    map[modeCount]int64
	valueIDs map[string]uint32
	values   []string
}

type modeCount struct {
	slot  uint32
	spec  uint16
	value uint32
}

type derivedSpec struct {
	input int
	attr  int
	agg   string // state.AggSum, AggMean or AggMode; count is a sum of ones
	num   bool   // the attribute is a number
}

type aggVal struct {
	sum   float64
	n     int64
	first int32            // the first feature that gave a value, for messages
	modes map[string]int64 // mode: value text -> features
}

// addSpec declares a derived attribute and returns its number. It must be
// called before any value is added.
func (d *derivedAggs) addSpec(s derivedSpec) int {
	d.specs = append(d.specs, s)
	return len(d.specs) - 1
}

// at returns the aggregate of spec on frame, making the frame's slot, and
// the slot.
func (d *derivedAggs) at(frame uint64, spec int) (*aggVal, uint32) {
	k, ok := d.slot[frame]
	if !ok {
		k = uint32(len(d.frames))
		d.slot[frame] = k
		d.frames = append(d.frames, frame)
		d.vals = append(d.vals, make([]aggVal, len(d.specs))...)
	}
	return &d.vals[int(k)*len(d.specs)+spec], k
}

// countMode counts one feature giving value (text) to spec on slot k.
func (d *derivedAggs) countMode(k uint32, spec int, value string) {
	id, ok := d.valueIDs[value]
	if !ok {
		if d.valueIDs == nil {
			d.valueIDs, d.modes = map[string]uint32{}, map[modeCount]int64{}
		}
		id = uint32(len(d.values))
		d.valueIDs[value] = id
		d.values = append(d.values, value)
	}
	d.modes[modeCount{slot: k, spec: uint16(spec), value: id}]++
}

// addNumber adds a number to spec's aggregate on frame.
func (d *derivedAggs) addNumber(frame uint64, spec int, v float64, text string, feature int) {
	a, k := d.at(frame, spec)
	if a.n == 0 {
		a.first = int32(min(feature, math.MaxInt32))
	}
	a.n++
	if d.specs[spec].agg == state.AggMode {
		d.countMode(k, spec, text)
		return
	}
	a.sum += v
}

// addText adds a string to spec's aggregate on frame (mode only).
func (d *derivedAggs) addText(frame uint64, spec int, v string, feature int) {
	a, k := d.at(frame, spec)
	if a.n == 0 {
		a.first = int32(min(feature, math.MaxInt32))
	}
	a.n++
	d.countMode(k, spec, v)
}

// finishDerived turns the derived aggregates into attribute entries, in
// frame order, so that they meet other inputs' values in emit (where a
// frame given an attribute twice is refused).
func (im *importer) finishDerived() error {
	d := &im.derived
	if len(d.specs) == 0 {
		return nil
	}
	// The most frequent value of every (slot, spec); ties go to the
	// smaller value text.
	type best struct {
		value uint32
		n     int64
	}
	modes := map[modeCount]best{}
	for mc, n := range d.modes {
		key := modeCount{slot: mc.slot, spec: mc.spec}
		b, ok := modes[key]
		if !ok || n > b.n || n == b.n && d.values[mc.value] < d.values[b.value] {
			modes[key] = best{mc.value, n}
		}
	}
	d.modes = nil
	order := make([]uint32, len(d.frames))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(d.frames[a], d.frames[b]) })
	var text []byte
	for _, k := range order {
		for si, s := range d.specs {
			a := &d.vals[int(k)*len(d.specs)+si]
			if a.n == 0 {
				continue
			}
			text = text[:0]
			switch s.agg {
			case state.AggSum:
				text = appendNumberValue(text, a.sum)
			case state.AggMean:
				text = appendNumberValue(text, a.sum/float64(a.n))
			default:
				v := d.values[modes[modeCount{slot: k, spec: uint16(si)}].value]
				if s.num {
					text = append(text, v...)
				} else {
					text = grid.AppendJSONString(text, v)
				}
			}
			if s.agg != state.AggMode && (math.IsInf(a.sum, 0) || math.IsNaN(a.sum)) {
				return fmt.Errorf("%w: %s: the %s of attribute %q on frame %d is not a finite number",
					state.ErrInvalid, im.paths[s.input], s.agg, im.attrs[s.attr].Name, d.frames[k])
			}
			if err := im.addEntry(d.frames[k], s.attr, s.input, int(a.first), text); err != nil {
				return fmt.Errorf("%w: %s: %v", state.ErrInvalid, im.paths[s.input], err)
			}
		}
	}
	d.slot, d.frames, d.vals, d.valueIDs, d.values = nil, nil, nil, nil, nil
	return nil
}

// modeKey is the text a number is counted by for a mode: its JSON text
// without surrounding space.
func modeKey(raw string) string { return strings.TrimSpace(raw) }
