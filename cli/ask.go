package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"frameindex/access"
	"frameindex/admin"
	"frameindex/area"
	"frameindex/bolt"
	"frameindex/handlers"
	"frameindex/index"
	"frameindex/state"
)

// askFlags are the area flags of ask.
type askFlags struct {
	place, kind, bbox, geometry, around string
	radius                              float64
	format, register                    string
	asJSON                              bool
}

func newAskCommand() *cobra.Command {
	var data string
	var f askFlags
	cmd := &cobra.Command{
		Use:   `ask [--place NAME [--kind K] | --bbox W,S,E,N | --geometry FILE | --around LON,LAT --radius KM] "QUESTION"`,
		Short: "Ask a question about a place, a box, a polygon or a ring, as the operator",
		Long: `Ask a question as POST /v1/frames/insight answers it, about an area instead
of picked frames, reading every dataset of the file without charge (the
operator's view; keys see what their organisation may read). Without an
area flag the place the question names is the area ("How many people live
in Dala?"). The answer is computed, never worded by a model.

Through the running server when one serves the file (its admin socket),
otherwise by opening the file read-only.`,
		Example: `  frameindex ask --data frames.db "How many people live in Dala LGA?"
  frameindex ask --data frames.db --place Kano --kind state "population by LGA"
  frameindex ask --data frames.db --around 8.52,12.00 --radius 5 "how many people live here?"
  frameindex ask --data frames.db --geometry site.geojson --json "total population"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := askBody(f, args[0])
			if err != nil {
				return err
			}
			status, resp, err := ask(cmd.Context(), data, body)
			if err != nil {
				return err
			}
			if f.asJSON {
				var v any
				if err := json.Unmarshal(resp, &v); err != nil {
					return fmt.Errorf("the answer is not JSON: %w", err)
				}
				if err := printJSON(cmd.OutOrStdout(), v); err != nil {
					return err
				}
				if status != http.StatusOK {
					return errSilent
				}
				return nil
			}
			return printAnswer(cmd.OutOrStdout(), status, resp)
		},
	}
	addDataFlag(cmd, &data)
	fl := cmd.Flags()
	addAreaFlags(fl, &f, "a ring's radius in km (0 < r <= 100)")
	fl.StringVar(&f.format, "format", "", "answer (default) or report")
	fl.StringVar(&f.register, "register", "", "plain or gis")
	fl.BoolVar(&f.asJSON, "json", false, "print the API's envelope as JSON")
	return cmd
}

// addAreaFlags adds the flags naming an area (ask's and report's).
func addAreaFlags(fl *pflag.FlagSet, f *askFlags, radius string) {
	fl.StringVar(&f.place, "place", "", "a state, LGA or ward (or the country: Nigeria)")
	fl.StringVar(&f.kind, "kind", "", "with --place: state, lga, ward, or a zones attribute")
	fl.StringVar(&f.bbox, "bbox", "", "a box: minLon,minLat,maxLon,maxLat")
	fl.StringVar(&f.geometry, "geometry", "", "a file holding a GeoJSON Polygon or MultiPolygon (or a Feature of one)")
	fl.StringVar(&f.around, "around", "", "a ring's centre: lon,lat (with --radius)")
	fl.Float64Var(&f.radius, "radius", 0, radius)
}

// errSilent ends a command unsuccessfully after it printed why.
var errSilent = errors.New("the question was refused (see the answer above)")

// askBody builds the question body from the flags.
func askBody(f askFlags, question string) ([]byte, error) {
	spec := map[string]any{}
	n := 0
	if f.place != "" {
		spec["place"], n = f.place, n+1
		if f.kind != "" {
			spec["kind"] = f.kind
		}
	} else if f.kind != "" {
		spec["kind"] = f.kind
	}
	if f.bbox != "" {
		v, err := floats(f.bbox, 4, "--bbox minLon,minLat,maxLon,maxLat")
		if err != nil {
			return nil, err
		}
		spec["bbox"], n = v, n+1
	}
	if f.geometry != "" {
		g, err := readGeometry(f.geometry)
		if err != nil {
			return nil, err
		}
		spec["geometry"], n = g, n+1
	}
	if f.around != "" || f.radius != 0 {
		if f.around == "" || f.radius == 0 {
			return nil, errors.New("--around LON,LAT and --radius KM go together")
		}
		v, err := floats(f.around, 2, "--around lon,lat")
		if err != nil {
			return nil, err
		}
		spec["around"], spec["radiusKm"], n = v, f.radius, n+1
	}
	if n > 1 {
		return nil, errors.New("give one area: --place, --bbox, --geometry or --around with --radius")
	}
	if n == 0 {
		spec["inQuestion"] = true
	}
	body := map[string]any{"area": spec, "question": question}
	if f.format != "" {
		body["format"] = f.format
	}
	if f.register != "" {
		body["register"] = f.register
	}
	return json.Marshal(body)
}

// floats parses n comma-separated numbers.
func floats(s string, n int, what string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s: give %d comma-separated numbers, not %q", what, n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", what, p)
		}
		out[i] = v
	}
	return out, nil
}

// readGeometry reads a GeoJSON geometry, or the geometry of a Feature or
// of a FeatureCollection's only feature.
func readGeometry(path string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var g struct {
		Type     string            `json:"type"`
		Geometry json.RawMessage   `json:"geometry"`
		Features []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: not GeoJSON: %w", path, err)
	}
	switch g.Type {
	case "Feature":
		return g.Geometry, nil
	case "FeatureCollection":
		if len(g.Features) != 1 {
			return nil, fmt.Errorf("%s: a FeatureCollection of %d features; give one polygon", path, len(g.Features))
		}
		return readGeometryBytes(path, g.Features[0])
	}
	return b, nil
}

func readGeometryBytes(path string, b []byte) (json.RawMessage, error) {
	var f struct {
		Geometry json.RawMessage `json:"geometry"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Geometry == nil {
		return nil, fmt.Errorf("%s: the feature has no geometry", path)
	}
	return f.Geometry, nil
}

// ask answers body through the server on the file, or, when none runs,
// by opening the file read-only.
func ask(ctx context.Context, data string, body []byte) (int, []byte, error) {
	res, err := admin.Call(ctx, data, admin.AskOp, admin.AskReq{Body: body})
	if err == nil {
		return res.Status, res.Body, nil
	}
	if !errors.Is(err, admin.ErrNoServer) {
		return 0, nil, err
	}
	store, ix, err := openReadOnly(data)
	if err != nil {
		return 0, nil, err
	}
	defer store.Close()
	srv := operatorServer(func() *index.Index { return ix }, store, store, areaCaches{places: area.NewPlaces(store, 0)})
	status, resp := operatorAsk(srv)(ctx, body)
	return status, resp, nil
}

// openReadOnly opens the data file read-only and indexes its grid.
func openReadOnly(data string) (*bolt.Store, *index.Index, error) {
	store, err := bolt.Open(data, bolt.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	info, runs, frames, err := store.Grid()
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	ix := index.NewPolygons(frames)
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	}
	return store, ix, nil
}

// operatorServer is an API server answering as the operator: every
// dataset of the file readable without charge, no rate limits, no model;
// internal errors are logged to standard error.
func operatorServer(frames func() *index.Index, data handlers.DataStore, store operatorFile, c areaCaches) *handlers.Server {
	return handlers.New(handlers.Config{
		Frames:  func() handlers.FrameIndex { return frames() },
		Keys:    func() handlers.KeyLookup { return nil },
		Logger:  slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Data:    operatorData{Store: data, catalogue: store},
		Scanner: store,
		Areas:   c.places,
		Columns: c.columns,
		Reach:   c.reach,
	})
}

// areaCaches are what questions about areas keep between requests,
// shared by the servers over one file (nil members: each its own).
type areaCaches struct {
	places  *area.Places
	columns *access.Columns
	reach   *access.Reach
}

// operatorAsk answers a question body with srv as the operator's key.
func operatorAsk(srv *handlers.Server) func(ctx context.Context, body []byte) (int, []byte) {
	return func(ctx context.Context, body []byte) (int, []byte) {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/frames/insight", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		key := state.Key{ID: "operator", Name: "frameindex ask", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead, state.CapAskQuery},
			Expires: time.Now().Add(time.Hour)}
		srv.ServeAs(rec, req, key)
		return rec.Code, rec.Body.Bytes()
	}
}

// datasetLister lists every dataset of a file; *bolt.Store implements it.
type datasetLister interface {
	Datasets() ([]state.Dataset, error)
}

// operatorFile is the data file the operator asks about.
type operatorFile interface {
	datasetLister
	handlers.DatasetScanner
}

// operatorData reads every dataset of the file, none charged, and scans
// them whole (the question's catalogue of national category values).
type operatorData struct {
	access.Store
	catalogue operatorFile
}

func (o operatorData) ScanRecords(id string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error {
	return o.catalogue.ScanRecords(id, ranges, fn)
}

func (o operatorData) ScanFeatures(id string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(k bolt.FeatureKey, feature []byte) bool) error {
	return o.catalogue.ScanFeatures(id, ranges, from, fn)
}

func (o operatorData) Readable(state.Key) ([]state.Access, error) {
	ds, err := o.catalogue.Datasets()
	if err != nil {
		return nil, err
	}
	out := make([]state.Access, len(ds))
	for i, d := range ds {
		out[i] = state.Access{Dataset: d}
	}
	return out, nil
}

// printAnswer prints an answer for a person: the area, the headline, the
// detail, the facets and the table; an error envelope as its message.
func printAnswer(w io.Writer, status int, resp []byte) error {
	var env struct {
		Data *struct {
			Headline   string              `json:"headline"`
			Detail     string              `json:"detail"`
			Confidence string              `json:"confidence"`
			Facets     []map[string]string `json:"facets"`
			Table      *struct {
				Columns []string   `json:"columns"`
				Rows    [][]string `json:"rows"`
			} `json:"table"`
			Area    *area.Area `json:"area"`
			Charged []string   `json:"charged"`
		} `json:"data"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &env); err != nil {
		return fmt.Errorf("the answer (status %d) is not JSON: %w", status, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s", env.Error.Code, env.Error.Message)
	}
	if env.Data == nil {
		return fmt.Errorf("the answer (status %d) holds no data", status)
	}
	d := env.Data
	if a := d.Area; a != nil {
		where := a.Name + " (" + area.KindLabel(a.Kind)
		if a.Parent != "" {
			where += ", " + a.Parent
		}
		fmt.Fprintf(w, "Area: %s): %d frames, %s km²\n", where, a.FrameCount, strconv.FormatFloat(a.Km2, 'f', 1, 64))
	}
	fmt.Fprintln(w, d.Headline)
	if d.Detail != "" {
		fmt.Fprintln(w, d.Detail)
	}
	if len(d.Facets) > 0 {
		fmt.Fprintln(w)
		for _, f := range d.Facets {
			fmt.Fprintf(w, "  %s: %s\n", f["label"], f["value"])
		}
	}
	if t := d.Table; t != nil && len(t.Columns) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
		for _, r := range t.Rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nconfidence: %s\n", d.Confidence)
	return nil
}
