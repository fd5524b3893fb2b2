package handlers

import (
	"math"
	"strings"

	"frameindex/insight"
	"frameindex/plan"
)

// engineCall is what a fake engine sees of one call at the handler's
// compute seam (a plan and a columnar Input), in a shape tests assert on:
// the plan's words, the options, the datasets, and per-frame maps.
type engineCall struct {
	Question, Format, Register, AreaBasis string
	Datasets                              []insight.Dataset
	Frames                                []engineFrame
}

// engineFrame is one frame of an engineCall: Known is false for an id the
// grid does not hold; Data is keyed by dataset id.
type engineFrame struct {
	ID      string
	Known   bool
	Data    map[string]engineFrameData
	AreaKm2 float64
}

// engineFrameData is what one dataset records on one frame.
type engineFrameData struct {
	Attrs        map[string]insight.Value
	FeatureCount int
}

// computeOf injects a fake engine at the handler's compute: the call is
// rebuilt from the plan's words and the columnar input, the frames the
// grid holds first, then the ids it does not.
func computeOf(engine func(engineCall) insight.Insight) func(*plan.Plan, *insight.Input) *insight.Answer {
	return func(p *plan.Plan, in *insight.Input) *insight.Answer {
		var q []string
		for _, w := range p.Words {
			q = append(q, w.Text)
		}
		req := engineCall{Question: strings.Join(q, " "), Format: in.Format, Register: in.Register,
			Datasets: in.Datasets, AreaBasis: in.AreaBasis}
		for i, id := range in.Frames.IDs {
			f := engineFrame{ID: itoa(id), Known: true, AreaKm2: in.Frames.AreaKm2[i]}
			for _, col := range in.Columns {
				df, had := f.Data[col.Dataset]
				switch {
				case col.Attr.Name == "":
					df.FeatureCount = int(col.Num[i])
				case col.Num != nil && !math.IsNaN(col.Num[i]):
					df.Attrs = setAttr(df.Attrs, col.Attr.Name, insight.Value{Num: col.Num[i], IsNum: true})
				case col.Codes != nil && col.Codes[i] >= 0:
					df.Attrs = setAttr(df.Attrs, col.Attr.Name, insight.Value{Str: col.Dict[col.Codes[i]]})
				}
				if had || df.FeatureCount > 0 || df.Attrs != nil {
					if f.Data == nil {
						f.Data = map[string]engineFrameData{}
					}
					f.Data[col.Dataset] = df
				}
			}
			req.Frames = append(req.Frames, f)
		}
		for _, id := range in.Missing {
			req.Frames = append(req.Frames, engineFrame{ID: id})
		}
		return &insight.Answer{Insight: engine(req)}
	}
}

func setAttr(m map[string]insight.Value, k string, v insight.Value) map[string]insight.Value {
	if m == nil {
		m = map[string]insight.Value{}
	}
	m[k] = v
	return m
}

func itoa(id uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + id%10)
		id /= 10
		if id == 0 {
			return string(b[i:])
		}
	}
}
