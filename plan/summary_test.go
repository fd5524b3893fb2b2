package plan

import (
	"fmt"
	"strings"
)

// summary writes a plan compactly for table tests:
// "mean population_2020 | population_2020>1000 and facility_count=0 | by state | desc 3 | beyond 5 health | [Dala] | exact".
func summary(p *Plan) string {
	var parts []string
	var ms []string
	for _, m := range p.Measures {
		ms = append(ms, m.Attribute)
	}
	parts = append(parts, strings.TrimSpace(string(p.Agg)+" "+strings.Join(ms, ",")))
	if len(p.Filters) > 0 {
		var fs []string
		for _, f := range p.Filters {
			fs = append(fs, f.String())
		}
		parts = append(parts, strings.Join(fs, " "+p.join()+" "))
	}
	if p.Group != nil {
		parts = append(parts, "by "+p.Group.Measure.Attribute)
	}
	if p.Order != nil {
		d := "asc"
		if p.Order.Desc {
			d = "desc"
		}
		parts = append(parts, fmt.Sprintf("%s %d", d, p.Order.K))
	}
	if p.Distance != nil {
		km := num(p.Distance.Km)
		if p.Distance.Op == "between" {
			km += "-" + num(p.Distance.Km2)
		}
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s %s %s", p.Distance.Op, km, p.Distance.Feature)))
	}
	if p.Per != "" {
		parts = append(parts, "per "+p.Per)
	}
	if p.Scale != 0 {
		parts = append(parts, "scale "+num(p.Scale))
	}
	if len(p.Places) > 0 {
		parts = append(parts, fmt.Sprint(p.Places))
	}
	parts = append(parts, p.Confidence())
	return strings.Join(parts, " | ")
}

func num(v float64) string {
	if v == 0 {
		return ""
	}
	return formatNum(v)
}
