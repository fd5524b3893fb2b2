package cli

import (
	"fmt"
	"io"

	"frameindex/admin"
	"frameindex/grid"

	"github.com/spf13/cobra"
)

func newGridCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "grid",
		Short: "Build, import or describe the grid of frames",
		Example: `  frameindex grid build --boundary country.geojson
  frameindex grid import frames.geojson
  frameindex grid info
  frameindex grid export --out frames.gpkg --dataset population`,
	}
	cmd.AddCommand(newGridBuildCommand(), newGridImportCommand(), newGridInfoCommand(), newGridExportCommand())
	return cmd
}

// runGridOp runs a grid operation and prints the grid it leaves.
func runGridOp[A any](cmd *cobra.Command, data string, create bool, op admin.Operation[A, admin.GridView], args A, asJSON bool) error {
	g, err := runOp(cmd.Context(), cmd.ErrOrStderr(), data, create, op, args)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(cmd.OutOrStdout(), g)
	}
	printGrid(cmd.OutOrStdout(), g)
	return nil
}

func printGrid(w io.Writer, g admin.GridView) {
	var bbox []byte
	for i, v := range g.Bounds {
		if i > 0 {
			bbox = append(bbox, ',')
		}
		bbox = grid.AppendCoord(bbox, v)
	}
	fmt.Fprintf(w, "grid: %d frames (%s)\nbbox: %s\nsource: %s\nbuilt: %s\n", g.Frames, g.Kind,
		bbox, g.Source, g.BuiltAt.Format("2006-01-02T15:04:05Z"))
}

func newGridBuildCommand() *cobra.Command {
	var data, boundary string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "build --boundary FILE.geojson",
		Short: "Build the 30-arc-second lattice over a boundary (replaces the grid)",
		Long: `Build the grid from a boundary: every cell of the global 30-arc-second
lattice (1/120 degree, about 0.92 km) whose square touches a Polygon or
MultiPolygon of the GeoJSON file (holes respected) becomes a frame, with id
row*43200+col. The data file is created when missing; any grid already in it
is replaced in one transaction.`,
		Example: `  frameindex grid build --boundary nga_country.geojson
  frameindex grid build --boundary outline.geojson --data /srv/frames.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if boundary == "" {
				return fmt.Errorf("--boundary is required: a GeoJSON file with the Polygon or MultiPolygon to cover")
			}
			path, err := absPath(boundary)
			if err != nil {
				return err
			}
			return runGridOp(cmd, data, true, admin.BuildGridOp, admin.GridBuild{Boundary: path}, asJSON)
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().StringVar(&boundary, "boundary", "", "GeoJSON file with the boundary Polygon or MultiPolygon (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newGridImportCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE.geojson",
		Short: "Import arbitrary polygon frames with numeric ids (replaces the grid)",
		Long: `Import a grid of arbitrary frames: a GeoJSON FeatureCollection of Polygon or
MultiPolygon features, each with a numeric id (the feature's "id", or a
property "id" or "frame_id"; 1-20 digits). A duplicate id, a non-numeric id,
an unclosed ring or a self-crossing ring is refused with the feature's index
and the reason, and nothing is written. A file whose frames are exactly the
cells of the 30-arc-second lattice with their lattice ids is stored compactly
as the lattice.`,
		Example: `  frameindex grid import hexagons.geojson
  frameindex grid import frames.geojson --data /srv/frames.db`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := absPath(args[0])
			if err != nil {
				return err
			}
			return runGridOp(cmd, data, true, admin.ImportGridOp, admin.GridImport{Path: path}, asJSON)
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newGridInfoCommand() *cobra.Command {
	var data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "info",
		Short:   "Describe the grid in the data file",
		Example: `  frameindex grid info --data ./frames.db`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGridOp(cmd, data, false, admin.GridInfoOp, admin.NoArgs{}, asJSON)
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newGridExportCommand() *cobra.Command {
	var data, out, dataset string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export --out FILE.gpkg|FILE.fgb|FILE.geojsonl [--dataset ID]",
		Short: "Write the grid (and a dataset's attributes) to a file for GIS",
		Long: `Write every frame of the grid — its id (frame_id, text) and its polygon — to
a GeoPackage (.gpkg, with an R-tree spatial index), a FlatGeobuf (.fgb, with
its packed Hilbert R-tree) or a GeoJSON text sequence (.geojsonl, one
feature per line), chosen by extension, in WGS 84. With --dataset, each of
the dataset's attributes is a column holding what it records on the frame
(empty where nothing), so the file is a ready choropleth layer. An analyst
opens it in QGIS and joins the agency's own tables by frame_id. The file is
written beside --out and renamed into place when complete: an interrupted
export leaves nothing. Works while "serve" runs (the server writes the file).`,
		Example: `  frameindex grid export --out /tmp/frames.gpkg
  frameindex grid export --out /tmp/population.fgb --dataset population`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required: the .gpkg, .fgb or .geojsonl file to write")
			}
			path, err := absPath(out)
			if err != nil {
				return err
			}
			v, err := runOp(cmd.Context(), cmd.ErrOrStderr(), data, false, admin.ExportGridOp, admin.GridExport{Out: path, Dataset: dataset})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d frames, %d attribute columns\n", v.Out, v.Frames, v.Columns)
			return nil
		},
	}
	addDataFlag(cmd, &data)
	cmd.Flags().StringVar(&out, "out", "", "file to write: .gpkg, .fgb or .geojsonl (required)")
	cmd.Flags().StringVar(&dataset, "dataset", "", "dataset whose attributes become columns")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
