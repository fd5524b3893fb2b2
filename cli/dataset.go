package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"frameindex/admin"
	"frameindex/ingest"
	"frameindex/state"

	"github.com/spf13/cobra"
)

func newImportCommand() *cobra.Command {
	var data, manifest string
	var fl importFlags
	var m ingest.Manifest
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import (--manifest FILE.json | --dataset ID --owner ORG INPUT... --attr SPEC...)",
		Short: "Import a dataset (CSV, features, zones or a raster) as its new version",
		Long: `Import a dataset, replacing its previous version in one switch: a running
server serves the old version until the new one is whole, then the new one
from its next request. Nothing half-imported is ever visible; bad input is
refused with the file, the line or feature, and the reason.

Inputs (exactly one, or a manifest):
  --csv F        CSV with a header row, keyed by frame_id or by lat,lon; every
                 other column is a declared attribute
  --features F   features (points, lines, polygons), each stored on the frame
                 holding its representative point; --count ATTR records how
                 many fall on each frame, --take PROP:ATTR aggregates a
                 property per frame by ATTR's aggregation (sum, mean, mode),
                 --attributes-only keeps those and not the features
  --zones F      polygons whose properties (--take PROP:ATTR) are copied to
                 every frame whose centre they contain
  --raster F     a GeoTIFF whose band (--band, default 1) gives the one
                 declared attribute per frame: sum (a pixel split among
                 frames by area, totals kept), mean (area-weighted) or mode
Vector inputs are GeoJSON, GeoJSON text sequences (one feature per line),
ESRI shapefiles (.shp beside its .dbf and .prj, or a .zip) and GeoPackages
(--layer NAME when several), chosen by extension and content; shapefiles
and GeoPackages in UTM 31N-33N (WGS 84 or Minna) or the Nigeria belts are
reprojected to WGS 84. "-" reads features or zones from standard input.
A manifest (--manifest) describes the dataset and any number of inputs at
once; docs/data.md describes its format.

Attributes (--attr, repeatable): name:type[:aggregation[:unit[:year[:label]]]]
with type number, category or text and aggregation sum, mean or mode, e.g.
  --attr "population_2020:number:sum:people:2020:Estimated population"`,
		Example: `  frameindex import --manifest admin.json
  frameindex import --dataset population --owner lagos-gis --csv pop.csv \
      --attr "population_2020:number:sum:people:2020:Estimated population"
  frameindex import --dataset clinics --owner lagos-gis --features clinics.geojson --outside skip
  frameindex import --dataset states --owner lagos-gis --zones nga_states.geojson \
      --take state_name:state --attr state:category
  frameindex import --dataset worldpop --owner lagos-gis --raster nga_ppp_2020.tif \
      --attr "population_2020:number:sum:people:2020:Estimated population"
  frameindex import --dataset buildings --owner lagos-gis --features footprints.gpkg \
      --count building_count --take area_in_meters:footprint_area --attributes-only \
      --attr building_count:number:sum:buildings --attr footprint_area:number:sum:m²`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if manifest != "" {
				if m.ID != "" || fl.given() {
					return fmt.Errorf("give either --manifest or the dataset flags, not both")
				}
				var err error
				if m, err = ingest.ReadManifest(manifest); err != nil {
					return err
				}
			} else if err := manifestFromFlags(&m, fl); err != nil {
				return err
			}
			var v admin.DatasetView
			if ingest.UsesStdin(m) {
				// A server cannot read this command's standard input:
				// the command imports itself (see importStdin).
				var err error
				if v, err = importStdin(cmd, data, m); err != nil {
					return err
				}
			} else {
				var err error
				if v, err = runOp(cmd.Context(), cmd.ErrOrStderr(), data, false, admin.ImportDatasetOp, admin.DatasetImport{Manifest: m}); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dataset %s version %d: %d frames, %d features", v.ID, v.Version, v.Frames, v.Features)
			if v.Skipped > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), " (%d rows or features outside the grid skipped)", v.Skipped)
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return nil
		},
	}
	addDataFlag(cmd, &data)
	f := cmd.Flags()
	f.StringVar(&manifest, "manifest", "", "JSON manifest describing the dataset and its inputs")
	f.StringVar(&m.ID, "dataset", "", "dataset id")
	f.StringVar(&m.Owner, "owner", "", "organisation that owns the dataset")
	f.StringVar(&m.Name, "name", "", "display name (default: the id)")
	f.StringVar(&m.Description, "description", "", "what the dataset is and where it comes from")
	f.StringVar(&m.Source, "source", "", "source and licence of the data")
	f.Int64Var(&m.Price, "price", 0, "credits a per-query licensee pays per contributing request (default 1)")
	f.StringVar(&fl.csv, "csv", "", "CSV input")
	f.StringVar(&fl.features, "features", "", "features input (GeoJSON, GeoJSON sequence, shapefile, GeoPackage)")
	f.StringVar(&fl.zones, "zones", "", "zones input (polygons; formats as --features)")
	f.StringVar(&fl.raster, "raster", "", "GeoTIFF input")
	f.IntVar(&fl.band, "band", 0, "raster: the band to read (default 1)")
	f.StringVar(&fl.layer, "layer", "", "features, zones: the GeoPackage layer or the shapefile of a .zip")
	f.StringVar(&fl.take, "take", "", "features, zones: comma-separated property[:attribute] pairs")
	f.StringVar(&fl.count, "count", "", "features: the attribute recording the number of features per frame")
	f.BoolVar(&fl.attrsOnly, "attributes-only", false, "features: store only what --count and --take derive")
	f.StringVar(&fl.outside, "outside", "", `csv, features: "skip" to skip rows or features on no frame (default: refuse)`)
	f.StringArrayVar(&fl.attrs, "attr", nil, "attribute: name:type[:aggregation[:unit[:year[:label]]]] (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// importFlags are the single-input flags of import.
type importFlags struct {
	csv, features, zones, raster string
	band                         int
	layer, take, count, outside  string
	attrsOnly                    bool
	attrs                        []string
}

// given reports whether any input flag is set.
func (f importFlags) given() bool {
	return f.csv != "" || f.features != "" || f.zones != "" || f.raster != "" || len(f.attrs) > 0 ||
		f.take != "" || f.count != "" || f.layer != "" || f.band != 0 || f.attrsOnly
}

// manifestFromFlags fills m from the single-input flags of import.
func manifestFromFlags(m *ingest.Manifest, fl importFlags) error {
	if m.ID == "" || m.Owner == "" {
		return fmt.Errorf("--dataset and --owner are required (or give --manifest)")
	}
	in := ingest.Input{Outside: fl.outside, Layer: fl.layer, Band: fl.band, Count: fl.count, AttributesOnly: fl.attrsOnly}
	n := 0
	for _, p := range []struct {
		path string
		dst  *string
	}{{fl.csv, &in.CSV}, {fl.features, &in.Features}, {fl.zones, &in.Zones}, {fl.raster, &in.Raster}} {
		if p.path == "" {
			continue
		}
		if p.path == ingest.Stdin {
			*p.dst = ingest.Stdin
			n++
			continue
		}
		abs, err := absPath(p.path)
		if err != nil {
			return err
		}
		*p.dst = abs
		n++
	}
	if n != 1 {
		return fmt.Errorf("give exactly one of --csv, --features, --zones and --raster (a manifest takes several)")
	}
	if fl.take != "" {
		if in.Zones == "" && in.Features == "" {
			return fmt.Errorf("--take goes with --zones or --features")
		}
		take := map[string]string{}
		for _, pair := range strings.Split(fl.take, ",") {
			prop, attr, ok := strings.Cut(pair, ":")
			if !ok {
				attr = prop
			}
			if prop == "" || attr == "" {
				return fmt.Errorf("--take %q: want property[:attribute] pairs", fl.take)
			}
			take[prop] = attr
		}
		if in.Zones != "" {
			in.Properties = take
		} else {
			in.Take = take
		}
	} else if in.Zones != "" {
		return fmt.Errorf("--zones needs --take: the properties to copy onto frames")
	}
	for _, spec := range fl.attrs {
		a, err := parseAttr(spec)
		if err != nil {
			return err
		}
		m.Attributes = append(m.Attributes, a)
	}
	m.Inputs = []ingest.Input{in}
	return nil
}

// parseAttr reads name:type[:aggregation[:unit[:year[:label]]]].
func parseAttr(spec string) (state.Attribute, error) {
	parts := strings.SplitN(spec, ":", 6)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return state.Attribute{}, fmt.Errorf("--attr %q: want name:type[:aggregation[:unit[:year[:label]]]]", spec)
	}
	a := state.Attribute{Name: parts[0], Type: parts[1]}
	if len(parts) > 2 {
		a.Aggregation = parts[2]
	}
	if len(parts) > 3 {
		a.Unit = parts[3]
	}
	if len(parts) > 4 && parts[4] != "" {
		y, err := strconv.Atoi(parts[4])
		if err != nil {
			return state.Attribute{}, fmt.Errorf("--attr %q: year %q is not a number", spec, parts[4])
		}
		a.Year = y
	}
	if len(parts) > 5 {
		a.Label = parts[5]
	}
	if a.Label == "" {
		a.Label = a.Name
	}
	return a, nil
}

func newDatasetCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset",
		Short: "List, show, price and remove datasets",
		Example: `  frameindex dataset list
  frameindex dataset show population
  frameindex dataset price nightlights --credits 2
  frameindex dataset remove old-census`,
	}
	cmd.AddCommand(newDatasetListCommand(), newDatasetShowCommand(), newDatasetPriceCommand(), newDatasetRemoveCommand(),
		newDatasetOfferCommand(), newDatasetWithdrawCommand())
	return cmd
}

func newDatasetListCommand() *cobra.Command {
	var data, st string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List datasets",
		Example: `  frameindex dataset list --json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ds, err := runAdminOp(cmd, data, st, admin.DatasetsOp, admin.NoArgs{})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ds)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tOWNER\tVERSION\tFRAMES\tFEATURES\tPRICE\tNAME")
			for _, d := range ds {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", d.ID, d.Owner, d.Version, d.Frames, d.Features, d.Price, d.Name)
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newDatasetShowCommand() *cobra.Command {
	var data, st string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Show a dataset: description, attributes, licences",
		Example: `  frameindex dataset show population`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := runAdminOp(cmd, data, st, admin.ShowDatasetOp, admin.DatasetShow{ID: args[0]})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), d)
			}
			printDataset(cmd.OutOrStdout(), d)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printDataset(w io.Writer, d admin.DatasetDetail) {
	fmt.Fprintf(w, "dataset %s: %s\nowner: %s\nversion %d, imported %s: %d frames, %d features\nprice per query: %d credits\n",
		d.ID, d.Name, d.Owner, d.Version, d.ImportedAt.Format("2006-01-02 15:04:05"), d.Frames, d.Features, d.Price)
	if d.Description != "" {
		fmt.Fprintf(w, "description: %s\n", d.Description)
	}
	if d.Source != "" {
		fmt.Fprintf(w, "source: %s\n", d.Source)
	}
	if len(d.Attributes) > 0 {
		fmt.Fprintln(w, "attributes:")
		for _, a := range d.Attributes {
			extra := a.Aggregation
			if a.Unit != "" {
				extra += ", " + a.Unit
			}
			if a.Year != 0 {
				extra += fmt.Sprintf(", %d", a.Year)
			}
			if len(a.Aliases) > 0 {
				extra += ", also " + strings.Join(a.Aliases, "/")
			}
			fmt.Fprintf(w, "  %s (%s, %s): %s\n", a.Name, a.Type, extra, a.Label)
		}
	}
	if len(d.Licences) == 0 {
		fmt.Fprintln(w, "licences: none")
		return
	}
	fmt.Fprintln(w, "licences:")
	for _, l := range d.Licences {
		fmt.Fprintf(w, "  %s: %s since %s\n", l.OrgID, l.Mode, l.Granted.Format("2006-01-02"))
	}
}

func newDatasetPriceCommand() *cobra.Command {
	var data, st string
	var a admin.DatasetPrice
	cmd := &cobra.Command{
		Use:     "price ID --credits N",
		Short:   "Set the credits a per-query licensee pays per contributing request",
		Example: `  frameindex dataset price nightlights --credits 2`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ID = args[0]
			if !cmd.Flags().Changed("credits") {
				return fmt.Errorf("--credits is required")
			}
			d, err := runAdminOp(cmd, data, st, admin.PriceDatasetOp, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dataset %s costs %d credits a query for per-query licensees\n", d.ID, d.Price)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().Int64Var(&a.Credits, "credits", 1, "credits per contributing request (0 = free)")
	return cmd
}

func newDatasetRemoveCommand() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:     "remove ID",
		Short:   "Remove a dataset, its records and its licences",
		Example: `  frameindex dataset remove old-census`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := runOp(cmd.Context(), cmd.ErrOrStderr(), data, false, admin.RemoveDatasetOp, admin.DatasetRemove{ID: args[0]}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dataset %s removed\n", args[0])
			return nil
		},
	}
	addDataFlag(cmd, &data)
	return cmd
}

func newLicenceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "licence",
		Short: "Grant, revoke and list licences to other organisations' datasets",
		Example: `  frameindex licence grant --org lagos-gis --dataset nightlights --mode per_query
  frameindex licence list --org lagos-gis
  frameindex licence revoke --org lagos-gis --dataset nightlights`,
	}
	cmd.AddCommand(newLicenceGrantCommand(), newLicenceRevokeCommand(), newLicenceListCommand())
	return cmd
}

func newLicenceGrantCommand() *cobra.Command {
	var data, st string
	var a admin.LicenceGrant
	cmd := &cobra.Command{
		Use:   "grant --org ID --dataset ID --mode subscription|per_query",
		Short: "Let an organisation read a dataset it does not own",
		Long: `Let an organisation read a dataset it does not own. subscription: a flat
licence, nothing is charged per request. per_query: each request in which the
dataset contributes something costs its price in credits (dataset price);
when the credits do not cover it the dataset is left out of the answer.`,
		Example: `  frameindex licence grant --org lagos-gis --dataset nightlights --mode per_query`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.OrgID == "" || a.Dataset == "" || a.Mode == "" {
				return fmt.Errorf("--org, --dataset and --mode are required")
			}
			l, err := runAdminOp(cmd, data, st, admin.GrantLicenceOp, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "organisation %s may read %s (%s)\n", l.OrgID, l.Dataset, l.Mode)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "licensee organisation (required)")
	cmd.Flags().StringVar(&a.Dataset, "dataset", "", "dataset id (required)")
	cmd.Flags().StringVar(&a.Mode, "mode", "", "subscription or per_query (required)")
	return cmd
}

func newLicenceRevokeCommand() *cobra.Command {
	var data, st string
	var a admin.LicenceRevoke
	cmd := &cobra.Command{
		Use:     "revoke --org ID --dataset ID",
		Short:   "End a licence (takes effect on the next request)",
		Example: `  frameindex licence revoke --org lagos-gis --dataset nightlights`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.OrgID == "" || a.Dataset == "" {
				return fmt.Errorf("--org and --dataset are required")
			}
			if _, err := runAdminOp(cmd, data, st, admin.RevokeLicenceOp, a); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "licence of %s to %s revoked\n", a.OrgID, a.Dataset)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "licensee organisation (required)")
	cmd.Flags().StringVar(&a.Dataset, "dataset", "", "dataset id (required)")
	return cmd
}

func newLicenceListCommand() *cobra.Command {
	var data, st string
	var a admin.LicenceList
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [--org ID]",
		Short:   "List licences",
		Example: `  frameindex licence list --org lagos-gis`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ls, err := runAdminOp(cmd, data, st, admin.LicencesOp, a)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ls)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ORG\tDATASET\tMODE\tGRANTED")
			for _, l := range ls {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.OrgID, l.Dataset, l.Mode, l.Granted.Format("2006-01-02"))
			}
			return tw.Flush()
		},
	}
	addDataFlag(cmd, &data)
	addAdminStateFlag(cmd, &st)
	cmd.Flags().StringVar(&a.OrgID, "org", "", "only this organisation's licences")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
