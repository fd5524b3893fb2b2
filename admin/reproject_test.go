package admin

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"frameindex/ingest"
	"frameindex/state"
)

// TestImport_ReprojectedZones imports Nigeria's 774 LGAs as zones from
// copies ogr2ogr makes in the coordinate systems agencies deliver — a
// shapefile in UTM 32N on WGS 84, the same zipped, a GeoPackage in UTM 32N
// on the Minna datum, and a shapefile in the Nigeria Mid Belt — and checks
// that each gives every frame (but for a few whose centres lie within the
// datum shift of a boundary) the LGA the original GeoJSON gives it, and
// that the published interior point of every LGA lies on a frame of its
// own LGA. A zone goes to the frames whose centres it contains, so one
// LGA's point can lie on a frame whose centre is in its neighbour: that is
// so for Sokoto North (its point is 0.4 km from Sokoto South, in the same
// 1 km frame) in the original too, and there the copies must agree with
// the original.
func TestImport_ReprojectedZones(t *testing.T) {
	if _, err := exec.LookPath("ogr2ogr"); err != nil {
		t.Skip("gdal-bin absent: ogr2ogr not found")
	}
	lgas, _ := filepath.Abs(ngaFile(t, "nga_lgas.geojson"))
	index := ngaFile(t, "nga_lga_index.csv")
	_, s := nationalOps(t)
	ctx := context.Background()
	dir := t.TempDir()
	ogr := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ogr2ogr", args...).CombinedOutput(); err != nil {
			t.Fatalf("ogr2ogr %v: %v\n%s", args, err, out)
		}
	}
	utm := filepath.Join(dir, "lgas_32632.shp")
	ogr("-t_srs", "EPSG:32632", utm, lgas)
	zipped := filepath.Join(dir, "lgas_32632.zip")
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && zip -q lgas_32632.zip lgas_32632.*").CombinedOutput(); err != nil {
		if _, lerr := exec.LookPath("zip"); lerr != nil {
			zipped = ""
		} else {
			t.Fatalf("zip: %v\n%s", err, out)
		}
	}
	minna := filepath.Join(dir, "lgas_26332.gpkg")
	ogr("-f", "GPKG", "-t_srs", "EPSG:26332", "-nln", "lgas", minna, lgas)
	belt := filepath.Join(dir, "lgas_26392.shp")
	ogr("-t_srs", "EPSG:26392", belt, lgas)

	lga := state.Attribute{Name: "lga", Label: "Local government area", Type: state.TypeCategory, Aggregation: state.AggMode}
	read := func(path string) map[uint64]string {
		t.Helper()
		m := ingest.Manifest{ID: "lgas", Owner: "demo", Attributes: []state.Attribute{lga},
			Inputs: []ingest.Input{{Zones: path, Properties: map[string]string{"lga_key": "lga"}}}}
		_, recs, _, err := ingest.Gather(ctx, m, s, ingest.OpenFile)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		out := make(map[uint64]string, len(recs))
		for _, r := range recs {
			var v struct{ Lga string }
			if err := json.Unmarshal(r.Attrs, &v); err != nil {
				t.Fatal(err)
			}
			out[r.Frame] = v.Lga
		}
		return out
	}
	want := read(lgas)
	if len(want) < 1_080_000 {
		t.Fatalf("the GeoJSON LGAs cover %d frames, want about 1,083,000", len(want))
	}
	ix := loadIndex(t, s)
	f, err := os.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 775 {
		t.Fatalf("%s: %d rows, %v", index, len(rows), err)
	}
	// The interior points whose frame's centre lies in another LGA.
	centreElsewhere := map[string]bool{}
	for _, row := range rows[1:] {
		lon, _ := strconv.ParseFloat(row[6], 64)
		lat, _ := strconv.ParseFloat(row[7], 64)
		if sh, ok := ix.At(lat, lon); ok && want[sh.ID] != row[0] {
			centreElsewhere[row[0]] = true
		}
	}
	if len(centreElsewhere) > 1 || len(centreElsewhere) == 1 && !centreElsewhere["NG-SO:sokoto-north"] {
		t.Errorf("interior points on frames of another LGA in the original: %v; want only Sokoto North's", centreElsewhere)
	}
	for _, path := range []string{utm, zipped, minna, belt} {
		if path == "" {
			continue // zip absent: the zipped copy is not made
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			got := read(path)
			differ := 0
			for frame, v := range want {
				if got[frame] != v {
					differ++
				}
			}
			// Reprojection moves a boundary by centimetres (WGS 84) or by
			// the datum shift's few metres (Minna): a frame whose centre is
			// that close to a boundary may change sides.
			if limit := len(want) / 2000; differ > limit || len(got) < len(want)-limit {
				t.Errorf("%d of %d frames got another LGA (limit %d); %d frames in all", differ, len(want), limit, len(got))
			}
			for _, row := range rows[1:] {
				key := row[0]
				lon, _ := strconv.ParseFloat(row[6], 64)
				lat, _ := strconv.ParseFloat(row[7], 64)
				sh, ok := ix.At(lat, lon)
				if !ok {
					t.Errorf("%s: interior point (%v, %v) is on no frame", key, lon, lat)
					continue
				}
				if own := got[sh.ID] == key; !own && !centreElsewhere[key] || got[sh.ID] != want[sh.ID] {
					t.Errorf("%s: the interior point's frame %d has LGA %q; the original gives %q", key, sh.ID, got[sh.ID], want[sh.ID])
				}
			}
		})
	}
}
