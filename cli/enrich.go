package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"frameindex/access"
	"frameindex/area"
	"frameindex/bolt"
	"frameindex/enrich"
	"frameindex/index"
	"frameindex/state"
)

// enrichFlags are the options of enrich.
type enrichFlags struct {
	data, in, out, radius, measures, near, org string
	lonCol, latCol, layer                      string
	workers                                    int
}

func newEnrichCommand() *cobra.Command {
	var f enrichFlags
	cmd := &cobra.Command{
		Use:   "enrich --in SITES --radius 2,5,10 --out ENRICHED",
		Short: "Enrich a file of sites with measures summed over rings around each, and the distance to the nearest facility",
		Long: `Read sites from a CSV (lon and lat columns), GeoJSON or GeoPackage file and
write one row per site: for each radius, each measure summed over the ring
of that radius around the site as the question call sums it (frames on the
edge count by the part of their area inside), the same over a polygon site
itself, and the great-circle distance to the nearest feature of a features
dataset. Rows keep the input's order and columns.

As the operator every dataset of the file is read; with --org only what
that organisation reads, and a measure it may not read is refused by name.
Measures of datasets licensed per query are enriched by the console's job,
which quotes and charges them. The file is opened read-only: stop a server
that serves it, or use the console's job.`,
		Example: `  frameindex enrich --data frames.db --in sites.csv --radius 2,5,10 --out enriched.csv
  frameindex enrich --data frames.db --in clinics.geojson --radius 5 --measures population_2020 --near health --out clinics-5km.geojson`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEnrich(cmd, f)
		},
	}
	addDataFlag(cmd, &f.data)
	fl := cmd.Flags()
	fl.StringVar(&f.in, "in", "", "the sites: .csv (lon, lat columns), .geojson or .gpkg")
	fl.StringVar(&f.out, "out", "", "the enriched sites: .csv, .geojson or .gpkg (written whole or not at all)")
	fl.StringVar(&f.radius, "radius", "2,5,10", "ring radii in km, comma-separated (each more than 0 and at most 100)")
	fl.StringVar(&f.measures, "measures", "", "measures, comma-separated: attribute names or dataset.attribute (default: "+strings.Join(enrich.DefaultMeasures, ",")+", those readable)")
	fl.StringVar(&f.near, "near", "", `features dataset of the distance column (default: `+enrich.DefaultNear+` when readable; "-" for none)`)
	fl.StringVar(&f.org, "org", "", "enrich as this organisation reads (default: the operator, every dataset)")
	fl.StringVar(&f.lonCol, "lon-column", "", "the CSV's longitude column (default: lon, lng, long, longitude or x)")
	fl.StringVar(&f.latCol, "lat-column", "", "the CSV's latitude column (default: lat, latitude or y)")
	fl.StringVar(&f.layer, "layer", "", "the GeoPackage's layer (default: its only one)")
	fl.IntVar(&f.workers, "workers", 0, "goroutines computing (default: one per core)")
	cmd.MarkFlagRequired("in")
	cmd.MarkFlagRequired("out")
	return cmd
}

func runEnrich(cmd *cobra.Command, f enrichFlags) error {
	radii, err := parseRadii(f.radius)
	if err != nil {
		return err
	}
	var measures []string
	for _, m := range strings.Split(f.measures, ",") {
		if m = strings.TrimSpace(m); m != "" {
			measures = append(measures, m)
		}
	}
	store, err := bolt.Open(f.data, bolt.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer store.Close()
	info, runs, frames, err := store.Grid()
	if err != nil {
		return err
	}
	ix := index.NewPolygons(frames)
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	}
	var readable []state.Access
	if f.org == "" {
		ds, err := store.Datasets()
		if err != nil {
			return err
		}
		for _, d := range ds {
			readable = append(readable, state.Access{Dataset: d})
		}
	} else {
		if _, err := store.Org(f.org); err != nil {
			return fmt.Errorf("organisation %s: %w", f.org, err)
		}
		if readable, err = store.Readable(state.Key{OrgID: f.org}); err != nil {
			return err
		}
	}
	r, err := enrich.Open(f.in, enrich.Options{LonColumn: f.lonCol, LatColumn: f.latCol, Layer: f.layer})
	if err != nil {
		return err
	}
	defer r.Close()
	e, err := enrich.New(enrich.Config{Index: ix, Places: area.NewPlaces(store, 0), Readable: readable,
		Columns: access.NewColumns(access.DefaultColumnBytes), Records: store,
		Reach: access.NewReach(access.DefaultReachBytes), Features: store,
		Radii: radii, Measures: measures, Near: f.near, Polygons: r.Features()})
	if err != nil {
		return err
	}
	w, abort, err := enrich.Create(f.out, enrich.Layout{Header: r.Header(), Features: r.Features(), Figures: e.Columns()})
	if err != nil {
		return err
	}
	progress, interval := enrichProgress(cmd.ErrOrStderr())
	st, err := enrich.Run(cmd.Context(), r, e, w, f.workers, interval, progress)
	if err != nil {
		abort()
		return err
	}
	if err := w.Close(); err != nil {
		abort()
		return err
	}
	near := ""
	if e.Near() != "" {
		near = ", distance to " + e.Near()
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d sites enriched (%d rings, %d measures%s) in %s: %s\n",
		st.Sites, len(radii), len(e.Measures()), near, st.Elapsed.Round(time.Millisecond), f.out)
	if st.WithNotes > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "%d rows have figures missing; column %s says why\n", st.WithNotes, enrich.NoteColumn)
	}
	return nil
}

// parseRadii reads "2,5,10".
func parseRadii(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(p, "km"), 64)
		if err != nil {
			return nil, fmt.Errorf("--radius: %q is not a number of km", p)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("--radius: give radii in km, e.g. 2,5,10")
	}
	return out, nil
}

// enrichProgress reports a run on w: a bar when w is a terminal (bytes of
// the input, or sites when its size is unknown), otherwise a plain line
// every few seconds and at the end.
func enrichProgress(w io.Writer) (func(enrich.Progress), time.Duration) {
	f, isFile := w.(*os.File)
	if isFile && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(p enrich.Progress) {
			if bar == nil {
				total := p.Size
				if total <= 0 {
					total = -1
				}
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("enriching"),
					progressbar.OptionShowBytes(p.Size > 0), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
			}
			bar.Describe(fmt.Sprintf("enriching: %d sites", p.Sites))
			if p.Size > 0 {
				bar.Set64(p.Read)
			} else {
				bar.Set64(int64(p.Sites))
			}
			if p.Done {
				bar.Finish()
			}
		}, 100 * time.Millisecond
	}
	const every = 5 * time.Second
	printed := false
	return func(p enrich.Progress) {
		// A run shorter than a line's interval prints nothing.
		if p.Elapsed < every && !(p.Done && printed) {
			return
		}
		printed = true
		rate := 0.0
		if s := p.Elapsed.Seconds(); s > 0 {
			rate = float64(p.Sites) / s
		}
		pct := ""
		if p.Size > 0 {
			pct = fmt.Sprintf(" (%d%% of the input)", p.Read*100/p.Size)
		}
		fmt.Fprintf(w, "enrich: %d sites%s, %.0f sites/s\n", p.Sites, pct, rate)
	}, every
}
