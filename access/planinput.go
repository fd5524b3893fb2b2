package access

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"frameindex/insight"
	"frameindex/plan"
	"frameindex/state"
)

// The columnar engine's input (insight.Input) for a plan, read from what
// the key may read: the selection's records read by Read (SelectionInput),
// or any frame set through the column cache (FrameSetInput). Both leave
// out a dataset that was left out for want of credits, and both keep the
// charging rule of the data call: AskPlan charges the per-query datasets
// the answer used that recorded something on the frames.

// SelectionInput is the engine's input for p over the Answer's frames (from
// Read): the known frames in the order asked (centre, area on the WGS84
// ellipsoid), every attribute of every readable dataset as a column, the
// feature count of each dataset that holds features, and the ids that were
// not found. near holds the distance searches the plan needs (see Near).
// A record whose attributes do not parse is ErrStore.
func (a *Answer) SelectionInput(q Question, near map[string]insight.Nearness) (insight.Input, error) {
	in := a.baseInput(q, near)
	var known []int
	for i := range a.Frames {
		f := &a.Frames[i]
		if !f.Known {
			in.Missing = append(in.Missing, strconv.FormatUint(f.ID, 10))
			continue
		}
		known = append(known, i)
		b := f.Shape.Box
		in.Frames.IDs = append(in.Frames.IDs, f.ID)
		in.Frames.Lon = append(in.Frames.Lon, (b.MinLon+b.MaxLon)/2)
		in.Frames.Lat = append(in.Frames.Lat, (b.MinLat+b.MaxLat)/2)
		in.Frames.AreaKm2 = append(in.Frames.AreaKm2, ShapeAreaKm2(f.Shape))
	}
	n := len(known)
	for di := range a.Access {
		if a.State[di].LeftOut {
			continue
		}
		d := &a.Access[di].Dataset
		cols := make([]insight.Column, len(d.Attributes))
		dicts := make([]map[string]int32, len(d.Attributes))
		for k, at := range d.Attributes {
			cols[k] = insight.Column{Dataset: d.ID, DatasetName: d.Name, Attr: engineAttribute(at)}
			if at.Type == state.TypeNumber {
				cols[k].Num = nanColumn(n)
			} else {
				cols[k].Codes = make([]int32, n)
				for j := range cols[k].Codes {
					cols[k].Codes[j] = -1
				}
				dicts[k] = map[string]int32{}
			}
		}
		attrAt := make(map[string]int, len(d.Attributes))
		for k, at := range d.Attributes {
			attrAt[at.Name] = k
		}
		feats := insight.Column{Dataset: d.ID, DatasetName: d.Name, Num: make([]float64, n)}
		pr := insight.Presence{}
		for j, fi := range known {
			f := &a.Frames[fi]
			k, ok := slices.BinarySearchFunc(f.Entries, di, func(e Entry, di int) int { return e.Dataset - di })
			if !ok {
				continue
			}
			e := &f.Entries[k]
			pr.Frames++
			pr.Features += e.Count
			feats.Num[j] = float64(e.Count)
			if len(e.Attrs) == 0 {
				continue
			}
			// Each member straight into its column; a later duplicate
			// replaces an earlier value, a left-out one clears it.
			err := eachValue(e.Attrs, func(name string, v insight.Value, ok bool) {
				c, known := attrAt[name]
				if !known {
					return
				}
				if cols[c].Num != nil {
					cols[c].Num[j] = math.NaN()
				} else {
					cols[c].Codes[j] = -1
				}
				switch {
				case !ok:
				case cols[c].Num != nil && v.IsNum:
					cols[c].Num[j] = v.Num
				case cols[c].Codes != nil && !v.IsNum:
					code, seen := dicts[c][v.Str]
					if !seen {
						code = int32(len(cols[c].Dict))
						dicts[c][v.Str] = code
						cols[c].Dict = append(cols[c].Dict, v.Str)
					}
					cols[c].Codes[j] = code
				}
			})
			if err != nil {
				return in, storeError("the attributes of dataset %q on frame %d do not parse: %v", d.ID, f.ID, err)
			}
		}
		in.Presence[d.ID] = pr
		in.Columns = append(in.Columns, cols...)
		if d.Features > 0 || pr.Features > 0 {
			in.Columns = append(in.Columns, feats)
		}
	}
	return in, nil
}

// nanColumn is n NaNs.
func nanColumn(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// baseInput holds what every input shares: the readable datasets (not
// left out) and the question's options.
func (a *Answer) baseInput(q Question, near map[string]insight.Nearness) insight.Input {
	in := insight.Input{Register: q.Register, Format: q.Format, AreaBasis: AreaBasis, Near: near,
		Presence: map[string]insight.Presence{}}
	for i := range a.Access {
		if a.State[i].LeftOut {
			continue
		}
		d := &a.Access[i].Dataset
		attrs := make([]insight.Attribute, len(d.Attributes))
		for k, at := range d.Attributes {
			attrs[k] = engineAttribute(at)
		}
		in.Datasets = append(in.Datasets, insight.Dataset{ID: d.ID, Name: d.Name, Description: d.Description,
			Attributes: attrs, Frames: d.Frames, Features: d.Features})
	}
	return in
}

// Readable returns an Answer with the datasets key may read and no
// frames, for questions about a frame set read through the column cache
// (FrameSetInput) and charged by AskPlan.
func Readable(store Store, key state.Key) (*Answer, error) {
	readable, err := store.Readable(key)
	if err != nil {
		return nil, err
	}
	readable = sortedAccess(readable)
	return &Answer{Access: readable, State: make([]State, len(readable))}, nil
}

// FrameSetInput is the engine's input for p over the frames fs (any
// number, in any order; the caller fills their ids, centres, areas and
// weights) read through the column cache: for every readable dataset not
// left out, the columns p names (every attribute for a profile), the
// feature count of a dataset p counts features of, and what the dataset
// records on the frames (Presence). A dataset that records something on
// fs is marked as contributing, for AskPlan. near holds the distance
// searches the plan needs (see Near). Errors are the cache's.
func (a *Answer) FrameSetInput(p *plan.Plan, q Question, fs insight.FrameSet, cols *Columns, scan RecordScanner,
	near map[string]insight.Nearness) (insight.Input, error) {
	in := a.baseInput(q, near)
	in.Frames = fs
	want := planAttributes(p)
	// One buffer of positions serves every dataset, and the next request:
	// the columns are copied out of the cache through it (or, for every
	// frame a dataset records, are the cache's own arrays), so a question
	// about the whole country allocates its columns and nothing per
	// dataset besides.
	bp := positionBuffers.Get().(*[]int32)
	defer positionBuffers.Put(bp)
	for di := range a.Access {
		if a.State[di].LeftOut {
			continue
		}
		d := a.Access[di].Dataset
		dc, err := cols.Dataset(scan, d)
		if err != nil {
			return in, err
		}
		pos, all := dc.positionsInto(fs.IDs, *bp)
		*bp = pos
		frames, features := dc.Recorded(pos)
		in.Presence[d.ID] = insight.Presence{Frames: frames, Features: features}
		if frames > 0 {
			a.State[di].Contributed = true
			// The price rule (Price) counts the frames read, whichever door.
			a.State[di].Frames = frames
		}
		for _, at := range d.Attributes {
			if p.Agg == plan.AggProfile || want[d.ID+"."+at.Name] {
				var col insight.Column
				if all {
					col, _ = dc.ColumnAll(at.Name)
				} else {
					col, _ = dc.Column(at.Name, pos)
				}
				col.DatasetName = d.Name
				in.Columns = append(in.Columns, col)
			}
		}
		if want[d.ID+"."] || (p.Agg == plan.AggProfile && d.Features > 0) {
			col := dc.FeatureColumn(pos)
			col.DatasetName = d.Name
			in.Columns = append(in.Columns, col)
		}
	}
	return in, nil
}

// positionBuffers are FrameSetInput's buffers of record positions.
var positionBuffers = sync.Pool{New: func() any { return new([]int32) }}

// planAttributes are the "dataset.attribute" names p reads ("dataset." for
// a feature count).
func planAttributes(p *plan.Plan) map[string]bool {
	out := map[string]bool{}
	for _, m := range p.Measures {
		out[m.Dataset+"."+m.Attribute] = true
	}
	for _, f := range p.Filters {
		out[f.Measure.Dataset+"."+f.Measure.Attribute] = true
		if f.Of != nil {
			out[f.Of.Dataset+"."+f.Of.Attribute] = true
		}
	}
	if p.Group != nil {
		out[p.Group.Measure.Dataset+"."+p.Group.Measure.Attribute] = true
	}
	if p.Agg == plan.AggFeatureCount && p.Distance != nil {
		out[p.Distance.Feature+"."] = true
	}
	return out
}

// Near returns the distance searches p needs: the shared point index of
// its features dataset (reach.Index through the cache r), when the key may
// read it and it was not left out. The dataset is marked as contributing
// (the features anywhere in the country answer a distance question); the
// engine lists it as used only when a feature lay within its search.
// Errors are the cache's.
func (a *Answer) Near(p *plan.Plan, r *Reach, s FeatureScanner) (map[string]insight.Nearness, error) {
	if p.Distance == nil || p.Distance.Feature == "" {
		return nil, nil
	}
	switch p.Agg {
	case plan.AggFeatureCount:
		if p.Distance.Op == "" {
			return nil, nil
		}
	}
	i, ok := a.find(p.Distance.Feature)
	if !ok || a.State[i].LeftOut {
		return nil, nil
	}
	ix, err := r.Index(s, a.Access[i].Dataset)
	if err != nil {
		return nil, err
	}
	a.State[i].Contributed = true
	return map[string]insight.Nearness{p.Distance.Feature: ix}, nil
}

// AskPlan answers with compute and charges the per-query datasets the
// answer used (Answer.Used) that contributed, in one Charge call, as Ask
// does; those the credits do not cover are removed from the input (columns,
// presence, distance searches, readable datasets) and the plan is
// computed again without them, until every dataset used is settled.
func (a *Answer) AskPlan(ctx context.Context, store Store, key state.Key, requestID string, now time.Time,
	in insight.Input, compute func(*insight.Input) *insight.Answer) (*insight.Answer, error) {
	res := compute(&in)
	err := a.settleUsed(ctx, store, key, requestID, now, func() []string { return res.Used }, func(leftOut []string) {
		in = inputWithout(in, leftOut)
		res = compute(&in)
	})
	return res, err
}

// inputWithout returns in without the datasets ids.
func inputWithout(in insight.Input, ids []string) insight.Input {
	in.Columns = slices.DeleteFunc(slices.Clone(in.Columns), func(c insight.Column) bool { return slices.Contains(ids, c.Dataset) })
	in.Datasets = slices.DeleteFunc(slices.Clone(in.Datasets), func(d insight.Dataset) bool { return slices.Contains(ids, d.ID) })
	pres := make(map[string]insight.Presence, len(in.Presence))
	for id, p := range in.Presence {
		if !slices.Contains(ids, id) {
			pres[id] = p
		}
	}
	in.Presence = pres
	if in.Near != nil {
		near := map[string]insight.Nearness{}
		for id, n := range in.Near {
			if !slices.Contains(ids, id) {
				near[id] = n
			}
		}
		in.Near = near
	}
	if in.Nearest != nil && slices.Contains(ids, in.Nearest.Dataset) {
		in.Nearest = nil
	}
	return in
}
