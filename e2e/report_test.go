package e2e

// Place reports (issue 25) on the national demo with the real LGA and
// state boundaries and the OpenStreetMap health facilities of
// ../shared/data/nga: an LGA's report printed to PDF by headless Chromium
// and read back with poppler (pdftotext, pdftoppm), every key figure
// equal to the question call's; a comparison of three LGAs against
// figures worked out here from the boundary polygons and the data call;
// and the console's report page, on which a dataset the organisation
// cannot read is absent.

import (
	"encoding/csv"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"frameindex/insight"
)

// needPoppler skips a test without pdftotext and pdftoppm.
func needPoppler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s absent: install poppler-utils (apt-get install poppler-utils) to read reports' PDFs back", tool)
		}
	}
}

// cellsRe splits a line of pdftotext -layout at runs of two or more
// spaces (the columns of a table).
var cellsRe = regexp.MustCompile(`\s{2,}`)

// rowCells finds the table row whose first cell is label and returns its
// cells.
func rowCells(t *testing.T, text, label string) []string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		cells := cellsRe.Split(strings.TrimSpace(line), -1)
		if len(cells) > 1 && cells[0] == label {
			return cells
		}
	}
	t.Errorf("the PDF has no row %q:\n%s", label, text)
	return nil
}

func TestBrowser_Report(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	chromiumPath(t)
	needPoppler(t)
	nga := ngaDir(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "demo.db")
	srv := startServer(t, "demo", "--data", data, "--addr", "127.0.0.1:0", "--model", "",
		"--limit-insight-burst", "0", "--limit-key-burst", "0", "--limit-org-burst", "0")
	signIn := demoSignIn.FindStringSubmatch(srv.stdout.String())
	if signIn == nil {
		t.Fatalf("demo printed no sign-in:\n%s", srv.stdout)
	}
	mustCLI(t, "import", "--data", data, "--dataset", "lgas", "--owner", "demo", "--name", "LGA boundaries",
		"--zones", filepath.Join(nga, "nga_lgas.geojson"), "--take", "lga_name:lga,state_name:state",
		"--attr", "lga:category:mode", "--attr", "state:category:mode")
	mustCLI(t, "import", "--data", data, "--dataset", "states", "--owner", "demo", "--name", "State boundaries",
		"--zones", filepath.Join(nga, "nga_states.geojson"), "--take", "state_name:state", "--attr", "state:category:mode")
	mustCLI(t, "import", "--data", data, "--dataset", "osm_health", "--owner", "demo", "--name", "OpenStreetMap health facilities",
		"--features", filepath.Join(nga, "nga_health_facilities_osm.geojson"), "--count", "osm_facility_count",
		"--attr", "osm_facility_count:number:sum:facilities::Health facilities", "--outside", "skip")
	// A dataset of another organisation that demo holds no licence to:
	// it must not reach demo's reports.
	mustCLI(t, "import", "--data", data, "--dataset", "rival_clinics", "--owner", "geodata", "--name", "Rival clinic register",
		"--features", filepath.Join(nga, "nga_health_facilities_osm.geojson"), "--count", "rival_count",
		"--attr", "rival_count:number:sum:facilities::Health facilities", "--outside", "skip")
	var minted struct {
		Secret string `json:"secret"`
	}
	out := mustCLI(t, "key", "mint", "--data", data, "--org", "demo", "--preset", "full",
		"--datasets", "population,buildings,settlement,lgas,states,osm_health", "--json")
	if err := json.Unmarshal([]byte(out), &minted); err != nil {
		t.Fatal(err)
	}
	key := minted.Secret
	// value is the question call's primary figure, as the engine shows it.
	value := func(area, question string) float64 {
		t.Helper()
		a, r := srv.askArea(t, key, area, question)
		if r.Status != 200 || a.Result.Value == nil {
			t.Fatalf("%s %q: %d %+v", area, question, r.Status, r.Error)
		}
		return *a.Result.Value
	}

	t.Run("LGA report printed to PDF", func(t *testing.T) {
		pdf := filepath.Join(dir, "doguwa.pdf")
		mustCLI(t, "report", "--data", data, "--place", "Doguwa", "--kind", "lga", "--facilities", "osm_health", "--out", pdf)
		b, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		text := string(b)
		if !strings.Contains(text, "Place report: Doguwa LGA") {
			t.Fatalf("the PDF's title is missing:\n%s", text)
		}
		lga := `{"place":"Doguwa","kind":"lga"}`
		for _, c := range []struct{ label, question string }{
			{"People", "How many people live here?"},
			{"Buildings", "How many buildings are there?"},
			{"People per km²", "What is the population density?"},
			{"Health facilities", "How many health facilities are there?"},
			{"People per facility", "How many people per health facility?"},
		} {
			want := insight.FormatFigure(value(lga, c.question))
			if cells := rowCells(t, text, c.label); len(cells) < 2 || cells[1] != want {
				t.Errorf("%s: the PDF shows %q, the question call %s", c.label, cells, want)
			}
		}
		for _, km := range []string{"2", "5", "10"} {
			want := insight.FormatFigure(value(lga, "How many people live within "+km+" km of a health facility?"))
			if cells := rowCells(t, text, km+" km"); len(cells) < 2 || cells[1] != want {
				t.Errorf("within %s km: the PDF shows %q, the question call %s", km, cells, want)
			}
		}
		// The parent and the country beside it.
		people := rowCells(t, text, "People")
		kano := insight.FormatFigure(value(`{"place":"Kano","kind":"state"}`, "How many people live here?"))
		nigeria := insight.FormatFigure(value(`{"place":"Nigeria"}`, "How many people live here?"))
		if len(people) < 5 || people[2] != kano || people[4] != nigeria {
			t.Errorf("people beside Kano State (%s) and Nigeria (%s): %q", kano, nigeria, people)
		}
		if strings.Contains(text, "rival_clinics") {
			t.Error("the operator's report names rival_clinics, which --facilities did not choose and no figure read")
		}

		// The first page is not blank and its map has colour.
		if err := exec.Command("pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "1", pdf, filepath.Join(dir, "page")).Run(); err != nil {
			t.Fatalf("pdftoppm: %v", err)
		}
		pngs, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
		if len(pngs) != 1 {
			t.Fatalf("pdftoppm wrote %v", pngs)
		}
		ink, warm, total := pagePixels(t, pngs[0])
		if ink < total/20 || warm < 2000 {
			t.Errorf("page 1: %d of %d pixels inked, %d warm (the map's colours)", ink, total, warm)
		}
	})

	t.Run("the HTML fetches nothing", func(t *testing.T) {
		html := filepath.Join(dir, "ring.html")
		mustCLI(t, "report", "--data", data, "--around", "8.52,12.0", "--radius", "5", "--measure", "distance", "--out", html)
		b, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"src=", "href=", "url(", "@import", "<script", "<link"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("the report's HTML holds %q: it must be self-contained", bad)
			}
		}
		if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "ring of 5 km around 8.52, 12") {
			t.Errorf("the ring's report lacks its map or its name")
		}
	})

	t.Run("comparison of three LGAs", func(t *testing.T) {
		path := filepath.Join(dir, "lgas.csv")
		mustCLI(t, "report", "--data", data, "--compare", "Dala:lga,Fagge:lga,Gwale:lga", "--facilities", "osm_health", "--out", path)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) != 4 {
			t.Fatalf("the CSV: %v, %d rows", err, len(rows))
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		lgas := loadCollection(t, filepath.Join(nga, "nga_lgas.geojson"))
		for i, name := range []string{"Dala", "Fagge", "Gwale"} {
			row := rows[i+1]
			if row[col["area"]] != name+" LGA" {
				t.Errorf("row %d is %q, want %s LGA", i+1, row[col["area"]], name)
			}
			ids := framesInZone(findFeature(t, lgas, map[string]string{"lga_name": name, "state_name": "Kano"}))
			var people, buildings float64
			for _, fr := range loadFrames(t, srv, key, ids) {
				people += fr.num["population_2020"]
				buildings += fr.num["building_count"]
			}
			num := func(k string) float64 {
				v, err := strconv.ParseFloat(row[col[k]], 64)
				if err != nil {
					t.Errorf("%s %s: %q", name, k, row[col[k]])
				}
				return v
			}
			if got := num("frames"); int(got) != len(ids) {
				t.Errorf("%s: %v frames, want %d", name, got, len(ids))
			}
			if got := num("people"); math.Abs(got-people) > 1e-9*people {
				t.Errorf("%s: %v people, want %v", name, got, people)
			}
			if got := num("buildings"); math.Abs(got-buildings) > 1e-9*buildings {
				t.Errorf("%s: %v buildings, want %v", name, got, buildings)
			}
		}
	})

	t.Run("console report page", func(t *testing.T) {
		b := newBrowser(t, srv.base)
		demo := b.person("demo")
		demo.signIn(signIn[1], signIn[2])
		demo.choosePassword(signIn[2], "the demo owner's password")
		demo.open("/console/report")
		if h := demo.text("h1"); h != "Place report" {
			t.Fatalf("the report form's heading is %q", h)
		}
		demo.checkAccessible("report form")
		// The OSM facilities, as the PDF's: their distances are kept from it.
		demo.open("/console/report?place=Doguwa&kind=lga&facilities=osm_health")
		page := demo.text("body")
		if !strings.Contains(page, "Place report: Doguwa LGA") {
			demo.shots("report-page")
			t.Fatalf("the report page shows:\n%s", page)
		}
		want := insight.FormatFigure(value(`{"place":"Doguwa","kind":"lga"}`, "How many people live here?"))
		if !strings.Contains(page, want) {
			t.Errorf("the report page lacks the LGA's people, %s", want)
		}
		for _, hidden := range []string{"rival_clinics", "Rival clinic register"} {
			if strings.Contains(page, hidden) {
				t.Errorf("the report page names %q, a dataset demo cannot read", hidden)
			}
		}
		if !strings.Contains(page, "Left off: Night-time lights") && !strings.Contains(page, "(nightlights)") {
			t.Errorf("the per-query nightlights is not noted as left off:\n%s", page)
		}
		demo.open("/console/report?place=Atlantis")
		if msg := demo.text(".notice"); !strings.Contains(msg, "Atlantis") {
			t.Errorf("an unknown place shows %q", msg)
		}
		demo.open("/console/report?compare=Dala:lga,Fagge:lga,Gwale:lga&facilities=osm_health")
		if page := demo.text("body"); !strings.Contains(page, "Comparison of 3 areas") || !strings.Contains(page, "Gwale LGA") {
			t.Errorf("the comparison page shows:\n%s", page)
		}
	})
}

// pagePixels counts a page image's pixels: inked (not near white), warm
// (the map's yellow to red fills) and all.
func pagePixels(t *testing.T, path string) (ink, warm, total int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b := rgb8(img, x, y)
			total++
			if r < 235 || g < 235 || b < 235 {
				ink++
			}
			if r > 170 && int(r)-int(b) > 90 && g > 20 {
				warm++
			}
		}
	}
	return ink, warm, total
}

func rgb8(img image.Image, x, y int) (r, g, b uint8) {
	R, G, B, _ := img.At(x, y).RGBA()
	return uint8(R >> 8), uint8(G >> 8), uint8(B >> 8)
}
