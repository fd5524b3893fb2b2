package report

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"frameindex/area"
	"frameindex/state"
)

// Request is what a caller asks of Make: one area for a report, 2 to
// MaxCompare for a comparison. It travels as JSON (the admin socket).
type Request struct {
	Areas      []area.Spec `json:"areas"`
	Measure    string      `json:"measure,omitempty"`
	Facilities string      `json:"facilities,omitempty"`
	// Format is "html" (default) or "csv" (a comparison only).
	Format string `json:"format,omitempty"`
}

// Make writes the report or the comparison req asks for, as key reads.
// Errors are Build's and Compare's, and *area.Error (invalid) for a
// request that asks for nothing or for CSV of a single area.
func (e *Engine) Make(ctx context.Context, key state.Key, req Request, w io.Writer) error {
	format := strings.ToLower(req.Format)
	switch {
	case len(req.Areas) == 0:
		return &area.Error{Code: area.CodeInvalid, Message: "name an area: a place, a box, a polygon or a ring"}
	case format != "" && format != "html" && format != "csv":
		return &area.Error{Code: area.CodeInvalid, Message: "a report is written as html (or a comparison as csv), not " + req.Format}
	case format == "csv" && len(req.Areas) < 2:
		return &area.Error{Code: area.CodeInvalid, Message: "CSV is for a comparison of 2 to 20 areas; a single area's report is HTML"}
	}
	// Each area is checked as the question call checks it (a geometry
	// is parsed there).
	for i, s := range req.Areas {
		if s.Frames != nil {
			continue // a selection by id, checked when it is resolved
		}
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if req.Areas[i], err = area.Decode(b); err != nil {
			if len(req.Areas) > 1 {
				return &area.Error{Code: area.CodeInvalid, Message: "area " + strconv.Itoa(i+1) + ": " + err.(*area.Error).Message}
			}
			return err
		}
	}
	r, err := e.Reader(key, Options{Facilities: req.Facilities})
	if err != nil {
		return err
	}
	if len(req.Areas) == 1 {
		rep, err := Build(ctx, r, req.Areas[0], BuildOptions{Measure: req.Measure, Now: time.Now()})
		if err != nil {
			return err
		}
		return rep.WriteHTML(w)
	}
	c, err := Compare(ctx, r, req.Areas, time.Now())
	if err != nil {
		return err
	}
	if format == "csv" {
		return c.WriteCSV(w)
	}
	return c.WriteHTML(w)
}
