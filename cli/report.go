package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/area"
	"frameindex/index"
	"frameindex/report"
	"frameindex/state"
)

// reportFlags are report's flags besides the area's.
type reportFlags struct {
	area                   askFlags
	compare, compareAround string
	out, measure           string
	facilities             string
}

func newReportCommand() *cobra.Command {
	var data string
	var f reportFlags
	cmd := &cobra.Command{
		Use:   `report (--place NAME [--kind K] | --bbox W,S,E,N | --geometry FILE | --around LON,LAT --radius KM | --compare "A,B,C") --out FILE.html|FILE.pdf|FILE.csv`,
		Short: "Write a place report (or a comparison of areas) as HTML, PDF or CSV, as the operator",
		Long: `Write the one-page report of an area: the map of its frames coloured by a
measure with its outline and the health facilities, the key figures (people,
buildings, density, settlement classes, facilities, people per facility,
coverage at 2, 5 and 10 km) beside the parent area's and the country's, a
breakdown by the next level down, and the sources. Every figure is the
question engine's, over the area as POST /v1/frames/insight reads it; the
operator reads every dataset of the file without charge.

--compare puts 2 to 20 places side by side (names separated by commas; a
kind after a colon: "Nassarawa:lga"); --compare-around does the same for
rings of --radius km around sites ("lon,lat;lon,lat"). A comparison is
written as HTML or, with --out FILE.csv, as CSV.

--out FILE.pdf prints the HTML with headless Chromium (chromium,
chromium-browser or google-chrome on the PATH, or FRAMEINDEX_CHROMIUM); without
one the command fails and says to install it or to write .html and print
that from a browser.

Through the running server when one serves the file (its admin socket),
otherwise by opening the file read-only.`,
		Example: `  frameindex report --data frames.db --place Dala --kind lga --out dala.html
  frameindex report --data frames.db --place "Kano State" --out kano.pdf
  frameindex report --data frames.db --around 8.52,12.00 --radius 5 --measure distance --out site.html
  frameindex report --data frames.db --compare "Dala,Fagge,Gwale" --out lgas.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := reportRequest(f)
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(f.out))
			switch ext {
			case ".html", ".htm", ".pdf":
			case ".csv":
				req.Format = "csv"
			default:
				return fmt.Errorf("--out %q: give a file ending in .html, .pdf or .csv (a comparison)", f.out)
			}
			body, err := makeReport(cmd.Context(), data, req)
			if err != nil {
				return err
			}
			if ext == ".pdf" {
				if err := report.PrintPDF(cmd.Context(), body, f.out); err != nil {
					return err
				}
			} else if err := os.WriteFile(f.out, body, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", f.out)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	fl := cmd.Flags()
	addAreaFlags(fl, &f.area, "a ring's radius in km (0 < r <= 100); with --compare-around, every ring's")
	fl.StringVar(&f.compare, "compare", "", `places side by side: "Dala,Fagge,Gwale" (a kind after a colon: "Nassarawa:lga")`)
	fl.StringVar(&f.compareAround, "compare-around", "", `rings of --radius km side by side: "lon,lat;lon,lat"`)
	fl.StringVar(&f.out, "out", "", "the file to write: .html, .pdf or .csv (a comparison)")
	fl.StringVar(&f.measure, "measure", "", "what colours the map: "+strings.Join(report.MapMeasures, ", ")+" (default density)")
	fl.StringVar(&f.facilities, "facilities", "", "the features dataset of facilities (default: the health facilities dataset with the most features)")
	cmd.MarkFlagRequired("out")
	return cmd
}

// reportRequest builds the report's request from the flags.
func reportRequest(f reportFlags) (report.Request, error) {
	req := report.Request{Measure: f.measure, Facilities: f.facilities}
	a := f.area
	single := a.place != "" || a.bbox != "" || a.geometry != "" || a.around != ""
	n := 0
	for _, b := range []bool{single, f.compare != "", f.compareAround != ""} {
		if b {
			n++
		}
	}
	if n != 1 {
		return req, errors.New("give one area (--place, --bbox, --geometry or --around with --radius), or --compare, or --compare-around")
	}
	switch {
	case f.compare != "":
		for _, p := range strings.Split(f.compare, ",") {
			name, kind, _ := strings.Cut(strings.TrimSpace(p), ":")
			if name == "" {
				continue
			}
			req.Areas = append(req.Areas, area.Spec{Place: name, Kind: kind})
		}
	case f.compareAround != "":
		if a.radius == 0 {
			return req, errors.New("--compare-around needs --radius KM")
		}
		for _, p := range strings.Split(f.compareAround, ";") {
			v, err := floats(strings.TrimSpace(p), 2, "--compare-around lon,lat;lon,lat")
			if err != nil {
				return req, err
			}
			req.Areas = append(req.Areas, area.Spec{Around: v, RadiusKm: a.radius})
		}
	default:
		body, err := askBody(a, "")
		if err != nil {
			return req, err
		}
		var b struct {
			Area area.Spec `json:"area"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return req, err
		}
		req.Areas = []area.Spec{b.Area}
	}
	if (f.compare != "" || f.compareAround != "") && (len(req.Areas) < 2 || len(req.Areas) > report.MaxCompare) {
		return req, fmt.Errorf("a comparison holds 2 to %d areas; %d were given", report.MaxCompare, len(req.Areas))
	}
	return req, nil
}

// makeReport makes the report through the server on the file, or, when
// none runs, by opening the file read-only.
func makeReport(ctx context.Context, data string, req report.Request) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	res, err := admin.Call(ctx, data, admin.ReportOp, admin.ReportReq{Body: body})
	if err == nil {
		return res.Body, nil
	}
	if !errors.Is(err, admin.ErrNoServer) {
		return nil, err
	}
	store, ix, err := openReadOnly(data)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	eng := operatorReports(func() *index.Index { return ix }, store, store, areaCaches{places: area.NewPlaces(store, 0)})
	return operatorReport(eng)(ctx, body)
}

// operatorReports is the report engine of the operator: every dataset of
// the file readable without charge; nil caches are made.
func operatorReports(frames func() *index.Index, data access.Store, store operatorFile, c areaCaches) *report.Engine {
	if c.columns == nil {
		c.columns = access.NewColumns(access.DefaultColumnBytes)
	}
	if c.reach == nil {
		c.reach = access.NewReach(access.DefaultReachBytes)
	}
	return &report.Engine{Store: operatorData{Store: data, catalogue: store}, Scanner: store, Columns: c.columns, Reach: c.reach,
		Places: c.places, Grid: frames}
}

// operatorReport makes a report request (JSON) as the operator.
func operatorReport(e *report.Engine) func(ctx context.Context, req []byte) ([]byte, error) {
	return func(ctx context.Context, raw []byte) ([]byte, error) {
		var req report.Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, fmt.Errorf("report request: %w", err)
		}
		key := state.Key{ID: "operator", Name: "frameindex report", Expires: time.Now().Add(time.Hour)}
		var buf bytes.Buffer
		if err := e.Make(ctx, key, req, &buf); err != nil {
			var ae *area.Error
			if errors.As(err, &ae) {
				return nil, fmt.Errorf("%s: %s", ae.Code, ae.Message)
			}
			return nil, err
		}
		return buf.Bytes(), nil
	}
}
