package admin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"frameindex/grid"
	"frameindex/ingest"
	"frameindex/state"
)

// TestExportGrid writes the small lattice with a dataset's attributes as a
// GeoJSON text sequence and reads it back: every frame once, in ascending
// id, each with its square and the values recorded on it; GDAL reads the
// GeoPackage and FlatGeobuf copies with the same count and fields.
func TestExportGrid(t *testing.T) {
	ops, _, _ := datasetOps(t)
	ctx := context.Background()
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "p.csv", "frame_id,pop,class\n"+
		jsonID(cell(9700, 22480))+",12,urban\n"+jsonID(cell(9719, 22499))+",3.5,\n")
	if _, err := ops.ImportDataset(ctx, DatasetImport{Manifest: ingest.Manifest{ID: "p", Owner: "agency",
		Attributes: []state.Attribute{attrPop, attrClass}, Inputs: []ingest.Input{{CSV: csvPath}}}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "frames.geojsonl")
	v, err := ops.ExportGrid(ctx, GridExport{Out: out, Dataset: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Frames != 400 || v.Columns != 2 {
		t.Fatalf("got %+v", v)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var prev uint64
	n := 0
	for sc.Scan() {
		var feat struct {
			Geometry struct {
				Coordinates [][][2]float64
			}
			Properties map[string]any
		}
		if err := json.Unmarshal(sc.Bytes(), &feat); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		id := feat.Properties["frame_id"].(string)
		var u uint64
		json.Unmarshal([]byte(id), &u)
		if u <= prev {
			t.Fatalf("frame %d after %d", u, prev)
		}
		prev = u
		row, col, _ := grid.RowCol(u)
		box := grid.CellBox(row, col)
		// Edges are written as the API writes them (grid.AppendLonEdge).
		near := func(a, b float64) bool { return a-b < 1e-7 && b-a < 1e-7 }
		if c := feat.Geometry.Coordinates[0][0]; !near(c[0], box.MinLon) && !near(c[0], box.MaxLon) || !near(c[1], box.MinLat) && !near(c[1], box.MaxLat) {
			t.Fatalf("frame %d: ring starts at %v, not on its square %+v", u, c, box)
		}
		switch u {
		case cell(9700, 22480):
			if feat.Properties["pop"] != 12.0 || feat.Properties["class"] != "urban" {
				t.Errorf("frame %d: %v", u, feat.Properties)
			}
		case cell(9719, 22499):
			if feat.Properties["pop"] != 3.5 || feat.Properties["class"] != nil {
				t.Errorf("frame %d: %v", u, feat.Properties)
			}
		default:
			if feat.Properties["pop"] != nil {
				t.Errorf("frame %d: %v, want no values", u, feat.Properties)
			}
		}
		n++
	}
	if n != 400 {
		t.Fatalf("%d frames written, want 400", n)
	}
	if _, err := ops.ExportGrid(ctx, GridExport{Out: filepath.Join(dir, "x.shp")}); !errors.Is(err, state.ErrInvalid) {
		t.Errorf("a .shp: got %v, want invalid", err)
	}
	if _, err := ops.ExportGrid(ctx, GridExport{Out: filepath.Join(dir, "x.gpkg"), Dataset: "nope"}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("an unknown dataset: got %v, want not found", err)
	}
	if _, err := exec.LookPath("ogrinfo"); err != nil {
		t.Skip("gdal-bin absent: ogrinfo not found")
	}
	for _, name := range []string{"frames.gpkg", "frames.fgb"} {
		p := filepath.Join(dir, name)
		if _, err := ops.ExportGrid(ctx, GridExport{Out: p, Dataset: "p"}); err != nil {
			t.Fatal(err)
		}
		info, err := exec.Command("ogrinfo", "-so", "-al", p).CombinedOutput()
		if err != nil {
			t.Fatalf("ogrinfo %s: %v\n%s", name, err, info)
		}
		for _, want := range []string{"Feature Count: 400", "frame_id: String", "pop: Real", "class: String"} {
			if !strings.Contains(string(info), want) {
				t.Errorf("%s: ogrinfo lacks %q:\n%s", name, want, info)
			}
		}
	}
}

func jsonID(id uint64) string {
	b, _ := json.Marshal(id)
	return string(b)
}
