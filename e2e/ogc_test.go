package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The OGC API from the outside: the real binary, driven by GDAL's ogrinfo
// and ogr2ogr and by QGIS itself (an offscreen PyQGIS script), as GIS
// analysts connect.

// ogcSite is a served grid around Abuja (36 x 24 frames) with acme's
// population on every frame and health facilities (features), and rival's
// private dataset, while the server runs.
type ogcSite struct {
	srv               *server
	data              string
	acme, rival       string // keys
	frames            []uint64
	population        map[uint64]float64
	facilityFrames    int
	minLon, minLat    float64
	maxLon, maxLat    float64
	bearerConfig      []string // GDAL options sending acme's key as Bearer
	rivalBearerConfig []string
}

func newOGCSite(t *testing.T) *ogcSite {
	t.Helper()
	dir := t.TempDir()
	s := &ogcSite{data: filepath.Join(dir, "frames.db"), minLon: 7.30, minLat: 8.95, maxLon: 7.60, maxLat: 9.15}
	// The box is inset from grid lines so the grid is the cells it covers.
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, s.minLon+0.001, s.minLat+0.001, s.maxLon-0.001, s.maxLat-0.001, nil), "--data", s.data)
	for _, org := range []string{"acme", "rival"} {
		mustCLI(t, "org", "add", org, "--data", s.data)
	}
	// Generous buckets: a GDAL or QGIS session sends a request per page.
	s.srv = startServer(t, "serve", "--data", s.data, "--addr", "127.0.0.1:0",
		"--limit-key-burst", "100000", "--limit-org-burst", "100000")
	_, s.acme = mintKey(t, s.data, "acme", "full")
	_, s.rival = mintKey(t, s.data, "rival", "full")
	s.bearerConfig = []string{"--config", "GDAL_HTTP_HEADERS", "Authorization: Bearer " + s.acme}
	s.rivalBearerConfig = []string{"--config", "GDAL_HTTP_HEADERS", "Authorization: Bearer " + s.rival}

	r := s.srv.get(t, s.acme, fmt.Sprintf("/v1/frames?bbox=%g,%g,%g,%g", s.minLon, s.minLat, s.maxLon, s.maxLat))
	var fc collection
	json.Unmarshal(r.Data, &fc)
	if r.Status != 200 || fc.Truncated || len(fc.Features) < 500 {
		t.Fatalf("the grid: %d, %d frames", r.Status, len(fc.Features))
	}
	var csv, sec strings.Builder
	csv.WriteString("frame_id,population_2020\n")
	s.population = map[uint64]float64{}
	for i, f := range fc.Features {
		id, _ := strconv.ParseUint(f.ID, 10, 64)
		s.frames = append(s.frames, id)
		v := float64(i % 997)
		if i%10 == 3 {
			v += 0.5
		}
		s.population[id] = v
		fmt.Fprintf(&csv, "%d,%s\n", id, strconv.FormatFloat(v, 'f', -1, 64))
	}
	fmt.Fprintf(&sec, "frame_id,code\n%d,RIVAL-ONLY\n", s.frames[0])
	mustCLI(t, "import", "--data", s.data, "--dataset", "population", "--owner", "acme", "--csv", writeFile(t, dir, "pop.csv", csv.String()),
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	mustCLI(t, "import", "--data", s.data, "--dataset", "secrets", "--owner", "rival", "--csv", writeFile(t, dir, "secret.csv", sec.String()), "--attr", "code:text")
	var feats []string
	for i := 0; i < 40; i++ {
		feats = append(feats, fmt.Sprintf(`{"type":"Feature","properties":{"name":"clinic %d","beds":%d},"geometry":{"type":"Point","coordinates":[%.5f,%.5f]}}`,
			i, i%7, 7.351+float64(i)*0.00513, 9.021+float64(i%9)*0.011))
	}
	mustCLI(t, "import", "--data", s.data, "--dataset", "health", "--owner", "acme", "--features", writeFile(t, dir, "health.geojson",
		`{"type":"FeatureCollection","features":[`+strings.Join(feats, ",")+`]}`))
	return s
}

// gdal runs a GDAL tool (skipping the test when gdal-bin is absent) and
// returns its standard output.
func gdal(t *testing.T, tool string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("gdal-bin not installed: %s absent (%v)", tool, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", tool, redact(strings.Join(args, " ")), err, out.String(), errOut.String())
	}
	return out.String()
}

var keyText = regexp.MustCompile(`svc_sk_[0-9A-Za-z]+`)

func redact(s string) string { return keyText.ReplaceAllString(s, "svc_sk_[redacted]") }

// ogcGet fetches an /ogc path with an Authorization header value ("" for
// none).
func (s *ogcSite) ogcGet(t *testing.T, auth, path string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.srv.base+path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, body
}

// v1Frames is what GET /v1/frames returns for a box: its frame ids.
func (s *ogcSite) v1Frames(t *testing.T, bbox string) []uint64 {
	t.Helper()
	r := s.srv.get(t, s.acme, "/v1/frames?bbox="+bbox)
	var fc collection
	json.Unmarshal(r.Data, &fc)
	if r.Status != 200 || fc.Truncated {
		t.Fatalf("/v1/frames: %d, truncated %v", r.Status, fc.Truncated)
	}
	var ids []uint64
	for _, f := range fc.Features {
		id, _ := strconv.ParseUint(f.ID, 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// geojsonIDs reads the frame_id of every feature of a GeoJSON file GDAL
// wrote.
func geojsonIDs(t *testing.T, path string) []uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Features []struct {
			Properties map[string]any `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, f := range fc.Features {
		v, _ := f.Properties["frame_id"].(float64)
		ids = append(ids, uint64(v))
	}
	slices.Sort(ids)
	return ids
}

func TestE2E_OGCWithGDAL(t *testing.T) {
	if _, err := exec.LookPath("ogrinfo"); err != nil {
		t.Skipf("gdal-bin not installed: ogrinfo absent (%v)", err)
	}
	s := newOGCSite(t)
	base := "OAPIF:" + s.srv.base + "/ogc"
	dir := t.TempDir()

	t.Run("no key gives 401", func(t *testing.T) {
		status, h, body := s.ogcGet(t, "", "/ogc/collections")
		var e struct{ Code, Description string }
		json.Unmarshal(body, &e)
		if status != 401 || e.Code != "unauthorized" || e.Description == "" || !strings.Contains(strings.Join(h.Values("Www-Authenticate"), ","), "Basic") {
			t.Fatalf("%d %s %v", status, body, h)
		}
		status, _, body = s.ogcGet(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("qgis:svc_sk_wrong")), "/ogc/collections")
		if status != 401 || !strings.Contains(string(body), `"code":"invalid_key"`) {
			t.Fatalf("a wrong Basic key: %d %s", status, body)
		}
	})
	t.Run("collections are listed, and another organisation's stay private", func(t *testing.T) {
		// acme's key as HTTP Basic (the USERPWD open option), rival's as Bearer.
		out := gdal(t, "ogrinfo", "-ro", "-q", "-oo", "USERPWD=analyst:"+s.acme, base)
		for _, want := range []string{"frames", "population", "health-features"} {
			if !regexp.MustCompile(`(?m)^\d+: ` + want + ` `).MatchString(out) {
				t.Fatalf("ogrinfo does not list %s:\n%s", want, out)
			}
		}
		if strings.Contains(out, "secrets") {
			t.Fatalf("acme sees rival's private dataset:\n%s", out)
		}
		out = gdal(t, "ogrinfo", append(slices.Clone(s.rivalBearerConfig), "-ro", "-q", base)...)
		if !strings.Contains(out, "secrets") || strings.Contains(out, "population") {
			t.Fatalf("rival's collections:\n%s", out)
		}
	})
	t.Run("a box paged by 100 is what /v1/frames returns", func(t *testing.T) {
		bbox := "7.3512,9.0034,7.4987,9.1123"
		want := s.v1Frames(t, bbox)
		if len(want) <= 200 {
			t.Fatalf("the box holds %d frames; want several pages", len(want))
		}
		out := filepath.Join(dir, "box.geojson")
		b := strings.Split(bbox, ",")
		pages := func() int { return strings.Count(s.srv.stderr.String(), `"path":"/ogc/collections/frames/items"`) }
		before := pages()
		gdal(t, "ogr2ogr", append(slices.Clone(s.bearerConfig), "-f", "GeoJSON", out, "-oo", "PAGE_SIZE=100", base, "frames", "-spat", b[0], b[1], b[2], b[3])...)
		if got := geojsonIDs(t, out); !slices.Equal(got, want) {
			t.Fatalf("ogr2ogr copied %d frames, /v1/frames returns %d", len(got), len(want))
		}
		// GDAL reads a first page for the layer's fields, then the box's
		// pages by their next links (the access log is written as each
		// request ends, so allow it a moment).
		deadline := time.Now().Add(2 * time.Second)
		for pages()-before < 1+(len(want)+99)/100 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := pages() - before; n < 1+(len(want)+99)/100 {
			t.Fatalf("GDAL asked for %d pages of items, want at least %d", n, 1+(len(want)+99)/100)
		}
	})
	t.Run("a collection copies to a GeoPackage with its fields", func(t *testing.T) {
		gpkg := filepath.Join(dir, "population.gpkg")
		gdal(t, "ogr2ogr", append(slices.Clone(s.bearerConfig), "-f", "GPKG", gpkg, "-oo", "PAGE_SIZE=250", base, "population")...)
		info := gdal(t, "ogrinfo", "-ro", "-so", gpkg, "population")
		for _, want := range []string{"Feature Count: " + strconv.Itoa(len(s.frames)), "frame_id: Integer", "population_2020: Real", "Geometry: Polygon"} {
			if !strings.Contains(info, want) {
				t.Fatalf("the GeoPackage lacks %q:\n%s", want, info)
			}
		}
		out := gdal(t, "ogrinfo", "-ro", "-q", gpkg, "-sql", "SELECT SUM(population_2020) AS total, COUNT(*) AS n FROM population")
		total := 0.0
		for _, v := range s.population {
			total += v
		}
		if !strings.Contains(out, "total (Real) = "+strconv.FormatFloat(total, 'f', -1, 64)) {
			t.Fatalf("the GeoPackage's total, want %v:\n%s", total, out)
		}
		// Features, with their own properties.
		gdal(t, "ogr2ogr", append(slices.Clone(s.bearerConfig), "-f", "GPKG", filepath.Join(dir, "health.gpkg"), base, "health-features")...)
		info = gdal(t, "ogrinfo", "-ro", "-so", filepath.Join(dir, "health.gpkg"), "health-features")
		for _, want := range []string{"Feature Count: 40", "Geometry: Point", "name: String", "beds: Integer", "frame_id: Integer"} {
			if !strings.Contains(info, want) {
				t.Fatalf("the features' GeoPackage lacks %q:\n%s", want, info)
			}
		}
	})
	t.Run("a tile decodes with GDAL's MVT driver", func(t *testing.T) {
		const z, x, y = 12, 2132, 1944
		status, h, body := s.ogcGet(t, "Bearer "+s.acme, fmt.Sprintf("/ogc/collections/population/tiles/WebMercatorQuad/%d/%d/%d", z, y, x))
		if status != 200 || h.Get("Content-Type") != "application/vnd.mapbox-vector-tile" {
			t.Fatalf("tile: %d %s", status, body)
		}
		path := filepath.Join(dir, "tiles", strconv.Itoa(z), strconv.Itoa(x), strconv.Itoa(y)+".pbf")
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "tile.geojson")
		gdal(t, "ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:4326", out, path, "population")
		got := geojsonIDs(t, out)
		// Every frame inside the tile is in it, with its population; nothing
		// beyond the tile's buffer is.
		n := math.Exp2(z)
		lon := func(x float64) float64 { return x/n*360 - 180 }
		lat := func(y float64) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*y/n))) * 180 / math.Pi }
		inner := fmt.Sprintf("%.7f,%.7f,%.7f,%.7f", lon(x+0.03), lat(y+0.97), lon(x+0.97), lat(y+0.03))
		outer := fmt.Sprintf("%.7f,%.7f,%.7f,%.7f", lon(x-0.02), lat(y+1.02), lon(x+1.02), lat(y-0.02))
		for _, id := range s.v1Frames(t, inner) {
			if _, ok := slices.BinarySearch(got, id); !ok {
				t.Fatalf("frame %d, inside the tile, is not in it (%d frames)", id, len(got))
			}
		}
		around := s.v1Frames(t, outer)
		for _, id := range got {
			if !slices.Contains(around, id) {
				t.Fatalf("frame %d is in the tile but not near it", id)
			}
		}
		if len(got) < 50 {
			t.Fatalf("only %d frames in the tile", len(got))
		}
		info := gdal(t, "ogrinfo", "-ro", "-q", "-al", out)
		if !strings.Contains(info, "population_2020 (Real)") {
			t.Fatalf("the tile's fields:\n%.2000s", info)
		}
	})
	for _, line := range strings.Split(s.srv.stderr.String(), "\n") {
		if strings.Contains(line, "svc_sk_") {
			t.Fatalf("a key reached the log: %s", redact(line))
		}
	}
}

// pyqgis is the offscreen PyQGIS script: it stores the key in a Basic
// authentication configuration (as QGIS 3.22 must send it), loads the
// frames layer and the population layer through the OAPIF provider, and
// prints what it found as JSON.
const pyqgis = `
import json, os, sys
from qgis.core import (QgsApplication, QgsAuthMethodConfig, QgsFeatureRequest,
                       QgsRectangle, QgsVectorLayer)

base, key, bbox = sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3].split(",")]
app = QgsApplication([], False)
app.initQgis()
am = QgsApplication.authManager()
if not am.setMasterPassword("e2e-master-password", True):
    sys.exit("cannot set the QGIS master password")
cfg = QgsAuthMethodConfig("Basic")
cfg.setName("frameindex")
cfg.setConfig("username", "analyst")
cfg.setConfig("password", key)
if not am.storeAuthenticationConfig(cfg)[0]:
    sys.exit("cannot store the authentication configuration")
out = {"authcfg": bool(cfg.id())}

def layer(name):
    # Pages of 100, so that QGIS follows next links.
    uri = "url='%s' typename='%s' authcfg=%s pagingEnabled='true' pageSize='100'" % (base, name, cfg.id())
    lyr = QgsVectorLayer(uri, name, "OAPIF")
    if not lyr.isValid():
        sys.exit("layer %s is not valid: %s" % (name, lyr.error().summary()))
    return lyr

frames = layer("frames")
req = QgsFeatureRequest().setFilterRect(QgsRectangle(*bbox))
out["frames"] = sorted(int(f["frame_id"]) for f in frames.getFeatures(req))
pop = layer("population")
out["fields"] = {f.name(): f.typeName() for f in pop.fields()}
total, n = 0.0, 0
for f in pop.getFeatures():
    total += f["population_2020"]
    n += 1
out["population"] = {"total": total, "count": n}
print(json.dumps(out))
sys.stdout.flush()
# exitQgis() crashes in some builds when Python tears the providers down;
# the answer is printed, so leave at once.
os._exit(0)
`

func TestE2E_OGCWithQGIS(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import qgis.core").Run(); err != nil {
		t.Skipf("python3-qgis not installed: PyQGIS absent (%v)", err)
	}
	s := newOGCSite(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "qgis_oapif.py")
	if err := os.WriteFile(script, []byte(pyqgis), 0o644); err != nil {
		t.Fatal(err)
	}
	bbox := "7.3712,9.0134,7.4587,9.0923"
	want := s.v1Frames(t, bbox)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script, s.srv.base+"/ogc", s.acme, bbox)
	home, runtime := filepath.Join(dir, "home"), filepath.Join(dir, "runtime")
	os.MkdirAll(runtime, 0o700)
	cmd.Env = append(os.Environ(), "QT_QPA_PLATFORM=offscreen", "HOME="+home, "XDG_RUNTIME_DIR="+runtime,
		"QGIS_AUTH_DB_DIR_PATH="+filepath.Join(dir, "auth"), "QGIS_CUSTOM_CONFIG_PATH="+filepath.Join(dir, "profile"))
	os.MkdirAll(filepath.Join(dir, "auth"), 0o700)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("PyQGIS: %v\n%s\n%s", err, out.String(), redact(errOut.String()))
	}
	var got struct {
		AuthCfg    bool              `json:"authcfg"`
		Frames     []uint64          `json:"frames"`
		Fields     map[string]string `json:"fields"`
		Population struct {
			Total float64 `json:"total"`
			Count int     `json:"count"`
		} `json:"population"`
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("PyQGIS printed %q: %v\n%s", out.String(), err, redact(errOut.String()))
	}
	if !got.AuthCfg {
		t.Fatal("no authentication configuration")
	}
	if !slices.Equal(got.Frames, want) {
		t.Fatalf("QGIS counts %d frames in the box, /v1/frames %d", len(got.Frames), len(want))
	}
	if !strings.EqualFold(got.Fields["population_2020"], "Real") && !strings.Contains(strings.ToLower(got.Fields["population_2020"]), "double") {
		t.Fatalf("QGIS's fields: %v", got.Fields)
	}
	if _, ok := got.Fields["frame_id"]; !ok {
		t.Fatalf("QGIS's fields: %v", got.Fields)
	}
	total := 0.0
	for _, v := range s.population {
		total += v
	}
	if got.Population.Count != len(s.frames) || math.Abs(got.Population.Total-total) > 1e-6 {
		t.Fatalf("QGIS reads %d frames, %v people; want %d, %v", got.Population.Count, got.Population.Total, len(s.frames), total)
	}
	// QGIS paged through the population by next links (864 frames in
	// pages of 100), its key sent as HTTP Basic.
	pages := func() int { return strings.Count(s.srv.stderr.String(), `"path":"/ogc/collections/population/items"`) }
	for deadline := time.Now().Add(3 * time.Second); pages() < (len(s.frames)+99)/100 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // the server's log is written in batches
	}
	if strings.Contains(s.srv.stderr.String(), `"status":401`) {
		t.Fatalf("QGIS's Basic credentials were refused:\n%s", grepLines(s.srv.stderr.String(), `"status":401`))
	}
	if n := pages(); n < (len(s.frames)+99)/100 {
		t.Fatalf("QGIS asked for %d pages of population:\n%s", n, grepLines(s.srv.stderr.String(), "population"))
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
