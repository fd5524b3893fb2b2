package handlers

import (
	"math"
	"strings"

	"frameindex/insight"
	"frameindex/plan"
)

// requestEngine adapts a fake engine written against insight.Request (a
// question and per-frame maps) to the handler's compute: the request is
// rebuilt from the plan's words and the columnar input, the frames the
// grid holds first, then the ids it does not.
func requestEngine(engine func(insight.Request) insight.Insight) func(*plan.Plan, *insight.Input) *insight.Answer {
	return func(p *plan.Plan, in *insight.Input) *insight.Answer {
		var q []string
		for _, w := range p.Words {
			q = append(q, w.Text)
		}
		req := insight.Request{Question: strings.Join(q, " "), Format: in.Format, Register: in.Register,
			Datasets: in.Datasets, AreaBasis: in.AreaBasis}
		for i, id := range in.Frames.IDs {
			f := insight.Frame{ID: itoa(id), Known: true, AreaKm2: in.Frames.AreaKm2[i]}
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
						f.Data = map[string]insight.DatasetFrame{}
					}
					f.Data[col.Dataset] = df
				}
			}
			req.Frames = append(req.Frames, f)
		}
		for _, id := range in.Missing {
			req.Frames = append(req.Frames, insight.Frame{ID: id})
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
