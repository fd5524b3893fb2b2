package access

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"frameindex/bolt"
	"frameindex/insight"
)

// Question is a checked question: what the engine is asked about the
// frames of an Answer.
type Question struct {
	Text     string
	Format   string // "answer" or "report"
	Register string // "", "plain" or "gis"
}

// Request returns the question engine's input for q over a: the readable
// datasets in ascending id, and the frames in the order asked with what
// each dataset records there. A record whose attributes do not parse is
// ErrStore.
func (a *Answer) Request(q Question) (insight.Request, error) {
	req := insight.Request{
		Question: q.Text,
		Format:   q.Format,
		Register: q.Register,
		Datasets: make([]insight.Dataset, len(a.Access)),
		Frames:   make([]insight.Frame, len(a.Frames)),
	}
	for i := range a.Access {
		d := &a.Access[i].Dataset
		attrs := make([]insight.Attribute, len(d.Attributes))
		for k, at := range d.Attributes {
			attrs[k] = insight.Attribute{Name: at.Name, Label: at.Label, Unit: at.Unit, Type: at.Type,
				Aggregation: at.Aggregation, Year: at.Year, Aliases: at.Aliases}
		}
		req.Datasets[i] = insight.Dataset{ID: d.ID, Name: d.Name, Attributes: attrs, Frames: d.Frames, Features: d.Features}
	}
	for i := range a.Frames {
		f := &a.Frames[i]
		fr := insight.Frame{ID: strconv.FormatUint(f.ID, 10), Known: f.Known}
		if len(f.Entries) > 0 {
			fr.Data = make(map[string]insight.DatasetFrame, len(f.Entries))
		}
		for _, e := range f.Entries {
			id := a.Access[e.Dataset].Dataset.ID
			attrs, err := Values(e.Attrs)
			if err != nil {
				return req, storeError("the attributes of dataset %q on frame %d do not parse: %v", id, f.ID, err)
			}
			fr.Data[id] = insight.DatasetFrame{Attrs: attrs, FeatureCount: e.Count}
		}
		req.Frames[i] = fr
	}
	return req, nil
}

// Ask answers req (from Request) with answer and charges the per-query
// datasets its figures used (Insight.Used) that recorded something on the
// frames, in one Charge call, as the data call does. Those the credits do
// not cover are removed from the inputs (from the datasets and from every
// frame) and the question is answered again without them; should the new
// answer use per-query datasets not yet settled, they are charged in turn.
// Each round settles at least one dataset, so this ends. Errors are
// Charge's.
func (a *Answer) Ask(ctx context.Context, store Store, key bolt.Key, requestID string, now time.Time,
	req insight.Request, answer func(insight.Request) insight.Insight) (insight.Insight, error) {
	res := answer(req)
	for {
		asks := a.UsedPerQuery(res.Used)
		if len(asks) == 0 {
			return res, nil
		}
		leftOut, err := a.Charge(ctx, store, key, requestID, asks, now)
		if err != nil {
			return res, err
		}
		if len(leftOut) == 0 {
			return res, nil
		}
		req = withoutDatasets(req, leftOut)
		res = answer(req)
	}
}

// withoutDatasets returns req without the datasets ids: neither among the
// datasets nor on any frame. The frames' maps are changed in place (the
// engine keeps nothing of a request it answered).
func withoutDatasets(req insight.Request, ids []string) insight.Request {
	req.Datasets = slices.DeleteFunc(slices.Clone(req.Datasets), func(d insight.Dataset) bool {
		return slices.Contains(ids, d.ID)
	})
	for _, f := range req.Frames {
		for _, id := range ids {
			delete(f.Data, id)
		}
	}
	return req
}

// Values parses a stored attributes object for the question engine: numbers
// become Num (IsNum), strings Str; a member given twice keeps its last
// value, as encoding/json does. Other values (booleans, null, arrays,
// objects) and numbers beyond float64 are left out: no figure is computed
// from them. An empty record is nil. Strings with invalid UTF-8 are decoded
// as json.Unmarshal does (U+FFFD for each bad byte). It runs on every record
// of every question: gjson walks the object without building a tree.
func Values(b []byte) (map[string]insight.Value, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if !gjson.ValidBytes(b) {
		return nil, errors.New("not valid JSON")
	}
	obj := gjson.ParseBytes(b)
	if !obj.IsObject() {
		return nil, errors.New("not a JSON object")
	}
	out := make(map[string]insight.Value, 8)
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		name := k.Str
		if !utf8.ValidString(name) {
			if name, err = unmarshalString(k.Raw); err != nil {
				return false
			}
		}
		switch v.Type {
		case gjson.String:
			s := v.Str
			if !utf8.ValidString(s) {
				if s, err = unmarshalString(v.Raw); err != nil {
					return false
				}
			}
			out[name] = insight.Value{Str: s}
		case gjson.Number:
			n, perr := strconv.ParseFloat(v.Raw, 64)
			if perr != nil || math.IsInf(n, 0) {
				delete(out, name) // a later duplicate replaces an earlier value
				break
			}
			out[name] = insight.Value{Num: n, IsNum: true}
		default: // true, false, null, an array or an object: skipped
			delete(out, name)
		}
		return true
	})
	return out, err
}

// unmarshalString decodes a JSON string's text the way encoding/json does,
// for the rare string that is not valid UTF-8.
func unmarshalString(raw string) (string, error) {
	var s string
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}
