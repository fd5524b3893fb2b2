package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Browser tests of Explore's questions about areas (issue 23, parts 6
// and 8) on the national demo with the real LGA boundaries of
// ../shared/data/nga imported: a place chosen with "Find a place", a
// ring around a clicked point, a drawn polygon, a breakdown that colours
// the map by its units, coverage that highlights the frames beyond, and
// the cost shown (and confirmed or not) before a question that reads the
// per-query night lights. Each figure is checked against the API's own
// answer for the same area, and the areas against figures worked out
// here (the boundary file's frames, a circle's and a box's area).

// askInPage asks q about the area chosen and waits for the answer (or
// fails with the notice shown).
func (p *person) askInPage(q string) map[string]any {
	p.t.Helper()
	qj, _ := json.Marshal(q)
	run(p, chromedp.Evaluate[bool](`window.frameindexExplore.last = undefined, document.getElementById('answer').replaceChildren(), document.getElementById('question').value = `+string(qj)+`, document.getElementById('ask').click(), true`))
	return p.waitAnswer()
}

// waitAnswer waits for the answer of the question asked.
func (p *person) waitAnswer() map[string]any {
	p.t.Helper()
	p.waitFor("an answer", `window.frameindexExplore.last !== undefined || document.querySelector('#answer .notice') !== null`, 60*time.Second)
	if n := run(p, chromedp.Evaluate[string](`(document.querySelector('#answer .notice') || {}).textContent || ''`)); n != "" {
		p.t.Fatalf("the page says: %s", n)
	}
	return run(p, chromedp.Evaluate[map[string]any](`window.frameindexExplore.last`))
}

// lastArea is the area the page sent with its last question, as JSON.
func (p *person) lastArea() string {
	p.t.Helper()
	return run(p, chromedp.Evaluate[string](`JSON.stringify(window.frameindexExplore.lastBody.area)`))
}

// choosePlace searches for q and picks the result of kind.
func (p *person) choosePlace(q, kind string) {
	p.t.Helper()
	run(p, chromedp.Evaluate[bool](`document.getElementById('place').value = `+strconv.Quote(q)+`, document.getElementById('place-form').requestSubmit(), true`))
	p.waitFor("the place results", `document.querySelector('#place-results button') !== null`, 20*time.Second)
	ok := run(p, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
	  for (const b of document.querySelectorAll('#place-results button')) {
	    if (b.querySelector('strong').textContent === %q && b.querySelector('.kind').textContent.startsWith(%q)) { b.click(); return true; }
	  }
	  return false;
	})()`, q, kind)))
	if !ok {
		p.t.Fatalf("no %s %q among the results: %s", kind, q, p.text("#place-results"))
	}
	p.waitFor("the place chosen", `document.getElementById('explore').dataset.area === 'place'`, 5*time.Second)
}

// chooseArea picks a way of naming the area.
func (p *person) chooseArea(mode string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(`input[name=area][value=` + mode + `]`)))
	p.waitFor("the area mode", `document.getElementById('explore').dataset.area === '`+mode+`'`, 5*time.Second)
}

// value reads the answer's primary figure.
func figure(a map[string]any) (float64, bool) {
	r, _ := a["result"].(map[string]any)
	v, ok := r["value"].(float64)
	return v, ok
}

// pixelsNear counts the map's pixels near any of colours ("#rrggbb").
func (p *person) pixelsNear(colours ...string) int {
	p.t.Helper()
	n := 0
	for _, c := range colours {
		v, _ := strconv.ParseUint(c[1:], 16, 32)
		n += p.linePixels(int(v>>16), int(v>>8&0xff), int(v&0xff))
	}
	return n
}

func TestBrowser_ExploreAreas(t *testing.T) {
	nga := ngaDir(t)
	srv, data, demo := exploreDemoWith(t, []string{"--limit-insight-burst", "0", "--limit-key-burst", "0", "--limit-org-burst", "0"}, func(data string) {
		mustCLI(t, "import", "--data", data, "--dataset", "lgas", "--owner", "demo", "--name", "LGA boundaries",
			"--zones", filepath.Join(nga, "nga_lgas.geojson"), "--take", "lga_name:lga,state_name:state",
			"--attr", "lga:category:mode", "--attr", "state:category:mode")
	})
	key := secretRe.FindString(srv.stdout.String())
	if key == "" {
		t.Fatalf("demo printed no key:\n%s", srv.stdout)
	}
	lgas := loadCollection(t, filepath.Join(nga, "nga_lgas.geojson"))
	// apiFigure asks the API the same question about the same area.
	apiFigure := func(area, q string) (float64, areaAnswer) {
		t.Helper()
		a, r := srv.askArea(t, key, area, q)
		if r.Status != 200 || a.Result.Value == nil {
			t.Fatalf("API, %s: %d %+v", area, r.Status, r.Error)
		}
		return *a.Result.Value, a
	}
	same := func(what string, got map[string]any, want float64) {
		t.Helper()
		v, ok := figure(got)
		if !ok || math.Abs(v-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: the page shows %v (%v), the API %v", what, v, got["headline"], want)
		}
	}

	t.Run("place", func(t *testing.T) {
		demo.choosePlace("Dala", "LGA")
		if s := demo.text("#area-now"); !strings.Contains(s, "Dala") {
			t.Errorf("the area shown: %q", s)
		}
		a := demo.askInPage("How many people live here?")
		want, api := apiFigure(`{"place":"Dala","kind":"lga"}`, "How many people live here?")
		same("Dala", a, want)
		ar, _ := a["area"].(map[string]any)
		ids := framesInZone(findFeature(t, lgas, map[string]string{"lga_name": "Dala"}))
		if ar["name"] != "Dala" || int(ar["frameCount"].(float64)) != len(ids) || api.Area.FrameCount != len(ids) {
			t.Errorf("Dala's area: %v; the boundary file has %d frames", ar, len(ids))
		}
		// Find a place counts the frames the question counts: the LGA
		// boundaries (with their states) imported after the demo's
		// approximate admin are where both read LGAs and states from,
		// where the search once added the two datasets' frames up.
		search := func(q, kind string) int {
			t.Helper()
			body := run(demo, chromedp.Evaluate[string](`(() => { const x = new XMLHttpRequest(); x.open('GET', '/console/explore/places?q=' + encodeURIComponent(`+strconv.Quote(q)+`), false); x.send(); return x.responseText; })()`))
			var found struct {
				Data []struct {
					Name, Kind string
					Frames     int
				}
			}
			if err := json.Unmarshal([]byte(body), &found); err != nil {
				t.Fatalf("place search: %v: %.300s", err, body)
			}
			for _, p := range found.Data {
				if p.Name == q && p.Kind == kind {
					return p.Frames
				}
			}
			t.Errorf("Find a place has no %s %s: %.300s", kind, q, body)
			return -1
		}
		if n := search("Dala", "LGA"); n != len(ids) {
			t.Errorf("Find a place gives Dala %d frames, the question and the boundary file %d", n, len(ids))
		}
		_, kano := apiFigure(`{"place":"Kano","kind":"state"}`, "How many people live here?")
		if n := search("Kano", "State"); n != kano.Area.FrameCount {
			t.Errorf("Find a place gives Kano State %d frames, the question %d", n, kano.Area.FrameCount)
		}
	})

	t.Run("a place named in the question", func(t *testing.T) {
		demo.chooseArea("selection")
		run(demo, chromedp.Evaluate[bool](`document.getElementById('clear').click(), true`))
		demo.waitFor("no selection", `document.getElementById('explore').dataset.selected === '0'`, 5*time.Second)
		a := demo.askInPage("How many people live in Dala?")
		if area := demo.lastArea(); area != `{"inQuestion":true}` {
			t.Errorf("the area sent: %s", area)
		}
		want, _ := apiFigure(`{"place":"Dala","kind":"lga"}`, "How many people live here?")
		same("Dala named", a, want)
		// A question that names no place, with nothing selected, says
		// what to do.
		qj, _ := json.Marshal("How many people live here?")
		run(demo, chromedp.Evaluate[bool](`document.getElementById('question').value = `+string(qj)+`, document.getElementById('ask').click(), true`))
		demo.waitFor("the advice", `(document.querySelector('#answer .notice') || {}).textContent?.includes('name a place in the question') === true`, 30*time.Second)
	})

	t.Run("the frames in view", func(t *testing.T) {
		demo.chooseArea("view")
		demo.jump(8.52, 12.0, 12)
		a := demo.askInPage("How many people live here?")
		area := demo.lastArea()
		var spec struct {
			BBox []float64 `json:"bbox"`
		}
		json.Unmarshal([]byte(area), &spec)
		if len(spec.BBox) != 4 || spec.BBox[0] > 8.52 || spec.BBox[2] < 8.52 || spec.BBox[1] > 12 || spec.BBox[3] < 12 {
			t.Fatalf("the box sent: %s", area)
		}
		want, _ := apiFigure(area, "How many people live here?")
		same("the view", a, want)
		if ar, _ := a["area"].(map[string]any); ar["kind"] != "bbox" {
			t.Errorf("the view's area: %v", ar)
		}
	})

	t.Run("ring", func(t *testing.T) {
		demo.chooseArea("ring")
		run(demo, chromedp.Evaluate[bool](`document.getElementById('ring-km').value = '3', document.getElementById('ring-km').dispatchEvent(new Event('input')), true`))
		demo.jump(8.52, 12.0, 11)
		x, y := demo.mapPoint(8.53, 12.01)
		demo.do(chromedp.MouseClickXY(x, y))
		demo.waitFor("the ring's centre", `document.getElementById('area-now').textContent.includes('3 km around')`, 5*time.Second)
		a := demo.askInPage("How many people live here?")
		area := demo.lastArea()
		var spec struct {
			Around   []float64 `json:"around"`
			RadiusKm float64   `json:"radiusKm"`
		}
		json.Unmarshal([]byte(area), &spec)
		if len(spec.Around) != 2 || math.Abs(spec.Around[0]-8.53) > 0.002 || math.Abs(spec.Around[1]-12.01) > 0.002 || spec.RadiusKm != 3 {
			t.Fatalf("the ring sent: %s", area)
		}
		want, _ := apiFigure(area, "How many people live here?")
		same("the ring", a, want)
		ar, _ := a["area"].(map[string]any)
		if km2, _ := ar["km2"].(float64); math.Abs(km2-math.Pi*9)/(math.Pi*9) > 0.005 || ar["kind"] != "ring" || ar["partial"] != true {
			t.Errorf("the ring's area: %v; a 3 km circle is %.3f km²", ar, math.Pi*9)
		}
		// "Report on this area" links the ring's place report, which
		// the person's session opens.
		href := run(demo, chromedp.Evaluate[string](`(e => e.hidden ? '' : e.href)(document.getElementById('area-report'))`))
		wantQ := "report?around=" + strconv.FormatFloat(spec.Around[0], 'f', -1, 64) + "," + strconv.FormatFloat(spec.Around[1], 'f', -1, 64) + "&radius=3"
		if !strings.HasSuffix(href, wantQ) {
			t.Errorf("the area's report link %q, want it to end %q", href, wantQ)
		} else if got := run(demo, chromedp.Evaluate[string](`(() => { const x = new XMLHttpRequest(); x.open('GET', document.getElementById('area-report').href, false); x.send(); return x.status + ' ' + x.responseText; })()`)); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "3 km") {
			t.Errorf("the ring's report page: %.300s", got)
		}
		// From the keyboard: Enter on the map places the centre at the
		// map's centre.
		demo.jump(8.6, 12.1, 11)
		run(demo, chromedp.Evaluate[bool](`window.frameindexMap.getCanvas().focus(), true`))
		demo.do(chromedp.KeyEvent(kb.Enter))
		demo.waitFor("the centre from the keyboard", `document.getElementById('area-now').textContent.includes('around 12.1000, 8.6000')`, 5*time.Second)
	})

	t.Run("polygon", func(t *testing.T) {
		demo.chooseArea("polygon")
		for _, c := range [][2]float64{{8.50, 12.00}, {8.56, 12.00}, {8.56, 12.04}, {8.50, 12.04}} {
			x, y := demo.mapPoint(c[0], c[1])
			demo.do(chromedp.MouseClickXY(x, y))
			time.Sleep(400 * time.Millisecond) // not a double-click
		}
		demo.do(chromedp.Click(chromedp.CSS("#draw-finish")))
		demo.waitFor("the shape closed", `document.getElementById('area-now').textContent.includes('shape drawn')`, 5*time.Second)
		a := demo.askInPage("How many people live here?")
		area := demo.lastArea()
		want, _ := apiFigure(area, "How many people live here?")
		same("the polygon", a, want)
		var spec struct {
			Geometry struct {
				Coordinates [][][2]float64 `json:"coordinates"`
			} `json:"geometry"`
		}
		json.Unmarshal([]byte(area), &spec)
		ring := spec.Geometry.Coordinates[0]
		if len(ring) != 5 {
			t.Fatalf("the polygon sent: %s", area)
		}
		// A box's area on the sphere of the same area as the ellipsoid
		// here (the corners are where the clicks landed).
		w, e, s, n := ring[0][0], ring[0][0], ring[0][1], ring[0][1]
		for _, p := range ring {
			w, e, s, n = math.Min(w, p[0]), math.Max(e, p[0]), math.Min(s, p[1]), math.Max(n, p[1])
		}
		const r = 6371.0072
		box := r * r * (e - w) * math.Pi / 180 * (math.Sin(n*math.Pi/180) - math.Sin(s*math.Pi/180))
		ar, _ := a["area"].(map[string]any)
		if km2, _ := ar["km2"].(float64); math.Abs(km2-box)/box > 0.01 || ar["kind"] != "polygon" {
			t.Errorf("the polygon's area: %v; the box drawn is %.3f km²", ar, box)
		}
		// Its report link carries the shape the question was about.
		href := run(demo, chromedp.Evaluate[string](`(e => e.hidden ? '' : e.href)(document.getElementById('area-report'))`))
		u, err := url.Parse(href)
		if err != nil || u.Query().Get("geometry") == "" {
			t.Fatalf("the shape's report link %q", href)
		}
		var sent struct{ Geometry json.RawMessage }
		json.Unmarshal([]byte(area), &sent)
		if got := u.Query().Get("geometry"); got != string(sent.Geometry) {
			t.Errorf("the report link's shape %s, the question's %s", got, sent.Geometry)
		}
		if got := run(demo, chromedp.Evaluate[string](`(() => { const x = new XMLHttpRequest(); x.open('GET', document.getElementById('area-report').href, false); x.send(); return x.status + ' ' + x.responseText; })()`)); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "drawn") {
			t.Errorf("the shape's report page: %.300s", got)
		}
	})

	t.Run("breakdown colours the map", func(t *testing.T) {
		demo.choosePlace("Kano", "State")
		a := demo.askInPage("population by LGA")
		want := 0
		for _, f := range lgas.Features {
			if f.Properties.MustString("state_name", "") == "Kano" {
				want++
			}
		}
		r, _ := a["result"].(map[string]any)
		groups, _ := r["groups"].([]any)
		rows := run(demo, chromedp.Evaluate[int](`document.querySelectorAll('#answer table tbody tr').length`))
		if len(groups) != want || rows != want {
			t.Errorf("Kano by LGA: %d groups, %d rows; the boundary file has %d LGAs in Kano", len(groups), rows, want)
		}
		if n := run(demo, chromedp.Evaluate[string](`document.getElementById('explore').dataset.units || ''`)); n != strconv.Itoa(want) {
			t.Errorf("units coloured: %q, want %d", n, want)
		}
		demo.jump(8.5, 11.8, 7.5)
		if n := demo.sourceFeatures("units", "lgas"); n == 0 {
			t.Error("the units' source holds no feature")
		}
		rendered := run(demo, chromedp.Evaluate[int](`window.frameindexMap.queryRenderedFeatures({layers: ['units-fill']}).length`))
		px := demo.pixelsNear("#ccece6", "#99d8c9", "#66c2a4", "#2ca25f", "#006d2c")
		if rendered == 0 || px < 2000 {
			t.Errorf("the breakdown's colours: %d features rendered, %d pixels", rendered, px)
		}
		demo.shots("explore-breakdown")
	})

	t.Run("coverage highlights the frames beyond", func(t *testing.T) {
		q := "How many people live more than 5 km from a health facility?"
		a := demo.askInPage(q) // Kano State, still chosen
		demo.waitFor("the frames beyond highlighted", `document.getElementById('explore').dataset.beyond !== undefined`, 30*time.Second)
		want, _ := apiFigure(`{"place":"Kano","kind":"state"}`, q)
		same("coverage of Kano", a, want)
		beyond, _ := strconv.Atoi(run(demo, chromedp.Evaluate[string](`document.getElementById('explore').dataset.beyond`)))
		ar, _ := a["area"].(map[string]any)
		if total := int(ar["frameCount"].(float64)); beyond <= 0 || beyond >= total {
			t.Errorf("%d of %d frames beyond 5 km", beyond, total)
		}
		if n := run(demo, chromedp.Evaluate[string](`document.getElementById('explore').dataset.beyondShown`)); n != strconv.Itoa(beyond) {
			t.Errorf("%s frames highlighted, %d beyond", n, beyond)
		}
		demo.jump(8.5, 11.8, 7.5)
		if px := demo.pixelsNear("#c51b8a", "#d46aa9", "#c96fa4"); px < 500 {
			t.Errorf("the highlight's pixels: %d", px)
		}
		demo.shots("explore-coverage")
	})

	t.Run("cost before a per-query read", func(t *testing.T) {
		ids := framesInZone(findFeature(t, lgas, map[string]string{"lga_name": "Dala"}))
		lit := 0
		for _, f := range loadFrames(t, srv, key, ids) {
			if _, ok := f.num["radiance"]; ok {
				lit++
			}
		}
		if lit == 0 {
			t.Fatal("no frame of Dala records radiance")
		}
		price := (lit + 99) / 100 // 1 credit a started 100 frames (access.Price)
		demo.choosePlace("Dala", "LGA")
		before := orgCredits(t, data, "demo")
		q := "What is the mean radiance?"
		run(demo, chromedp.Evaluate[bool](`window.frameindexExplore.last = undefined, document.getElementById('question').value = `+strconv.Quote(q)+`, document.getElementById('ask').click(), true`))
		demo.waitFor("the cost", `document.getElementById('cost') !== null`, 30*time.Second)
		cost := demo.text("#cost")
		if !strings.Contains(cost, "nightlights") || !strings.Contains(cost, fmt.Sprintf("on %d frames: %d credit", lit, price)) {
			t.Errorf("the cost shown: %q; want %d frames, %d credits", cost, lit, price)
		}
		demo.do(chromedp.Click(chromedp.CSS("#cost-cancel")))
		demo.waitFor("nothing asked", `document.getElementById('answer').textContent.includes('nothing was spent')`, 5*time.Second)
		if c := orgCredits(t, data, "demo"); c != before {
			t.Errorf("credits %d after a cancelled question, %d before", c, before)
		}
		run(demo, chromedp.Evaluate[bool](`document.getElementById('ask').click(), true`))
		demo.waitFor("the cost again", `document.getElementById('cost-confirm') !== null`, 30*time.Second)
		demo.do(chromedp.Click(chromedp.CSS("#cost-confirm")))
		a := demo.waitAnswer()
		if ch, _ := a["charged"].([]any); len(ch) != 1 || ch[0] != "nightlights" {
			t.Errorf("charged: %v", a["charged"])
		}
		if c := orgCredits(t, data, "demo"); c != before-price {
			t.Errorf("credits %d after the question, %d before; the quote said %d", c, before, price)
		}
	})
}
