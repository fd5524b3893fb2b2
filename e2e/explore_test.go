package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"frameindex/grid"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Browser tests of the Explore map (/console/explore) against the real
// binary's demo: the map draws the server's tiles, a click on Abuja shows
// that frame's data (with the per-query night lights charged and in the
// ledger), a box drawn with Shift+drag and a question show the answer, and
// the panel works at a phone's width.

// waitFor polls a JavaScript condition for up to d.
func (p *person) waitFor(what, cond string, d time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %s: not so after %s (last error %v)", p.name, what, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitIdle waits until the map has drawn everything it asked for since
// the call (MapLibre's idle event after a move).
func (p *person) waitIdle(since int64) {
	p.t.Helper()
	p.waitFor("the map is idle", fmt.Sprintf(`Number(document.getElementById('explore').dataset.idle || 0) > %d && window.frameindexMap.loaded() && window.frameindexMap.areTilesLoaded()`, since), 40*time.Second)
}

// jump moves the map at once and waits until it is drawn.
func (p *person) jump(lon, lat, zoom float64) {
	p.t.Helper()
	now := run(p, chromedp.Evaluate[int64](`Date.now()`))
	run(p, chromedp.Evaluate[bool](fmt.Sprintf(`window.frameindexMap.jumpTo({center: [%f, %f], zoom: %f}), true`, lon, lat, zoom)))
	p.waitIdle(now)
}

// mapPixels screenshots the map and counts its pixels that differ from
// the blank background (#e8eeec), and those of the choropleth's warm
// colours.
func (p *person) mapPixels() (drawn, warm, total int) {
	p.t.Helper()
	b := run(p, chromedp.Screenshot(chromedp.CSS("#map canvas")))
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		p.t.Fatalf("map screenshot: %v", err)
	}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			total++
			if absInt(int(r)-0xe8)+absInt(int(g)-0xee)+absInt(int(bl)-0xec) > 24 {
				drawn++
			}
			if r > 200 && bl < 150 && int(r)-int(bl) > 80 {
				warm++
			}
		}
	}
	return drawn, warm, total
}

// sourceFeatures returns the number of features of a source's layer in
// the tiles the map holds.
func (p *person) sourceFeatures(source, layer string) int {
	p.t.Helper()
	return run(p, chromedp.Evaluate[int](fmt.Sprintf(`window.frameindexMap.querySourceFeatures(%q, {sourceLayer: %q}).length`, source, layer)))
}

// linePixels screenshots the map and counts its pixels within a small
// distance of a colour.
func (p *person) linePixels(r0, g0, b0 int) int {
	p.t.Helper()
	b := run(p, chromedp.Screenshot(chromedp.CSS("#map canvas")))
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		p.t.Fatalf("map screenshot: %v", err)
	}
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absInt(int(r>>8)-r0)+absInt(int(g>>8)-g0)+absInt(int(bl>>8)-b0) < 30 {
				n++
			}
		}
	}
	return n
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// mapPoint returns where a place is on the page (CSS pixels).
func (p *person) mapPoint(lon, lat float64) (x, y float64) {
	p.t.Helper()
	xy := run(p, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
	  const m = window.frameindexMap, pt = m.project([%f, %f]), r = m.getCanvas().getBoundingClientRect();
	  return [r.left + pt.x, r.top + pt.y];
	})()`, lon, lat)))
	return xy[0], xy[1]
}

// exploreDemo serves the demo and signs its owner in, on the Explore page.
func exploreDemo(t *testing.T) (*server, string, *person) {
	t.Helper()
	return exploreDemoWith(t, nil, nil)
}

// exploreDemoWith is exploreDemo with more arguments for the demo and a
// step (an import) run on its data file before the sign-in.
func exploreDemoWith(t *testing.T, args []string, prepare func(data string)) (*server, string, *person) {
	t.Helper()
	if testing.Short() {
		t.Skip("short: the demo builds the national grid")
	}
	chromiumPath(t)
	data := filepath.Join(t.TempDir(), "demo.db")
	srv := startServer(t, append([]string{"demo", "--data", data, "--addr", "127.0.0.1:0", "--model", ""}, args...)...)
	if prepare != nil {
		prepare(data)
	}
	m := demoSignIn.FindStringSubmatch(srv.stdout.String())
	if m == nil {
		t.Fatalf("demo banner lacks the sign-in:\n%s", srv.stdout)
	}
	b := newBrowser(t, srv.base)
	demo := b.person("demo")
	demo.signIn(m[1], m[2])
	demo.choosePassword(m[2], "the demo owner's password")
	demo.do(chromedp.Click(chromedp.CSS(`nav a[href="/console/explore"]`)))
	demo.waitPath("/console/explore")
	demo.waitFor("the map loaded", `document.getElementById('explore').dataset.loaded === 'true'`, 30*time.Second)
	return srv, data, demo
}

var creditsRe = regexp.MustCompile(`credits: (\d+)`)

func orgCredits(t *testing.T, data, org string) int {
	t.Helper()
	m := creditsRe.FindStringSubmatch(mustCLI(t, "org", "show", org, "--data", data))
	if m == nil {
		t.Fatalf("org show %s shows no credits", org)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestBrowser_ExploreMap: the map draws the outline, state and (from zoom
// 7) LGA lines from the console's line tiles and, with a choropleth
// chosen, the server's vector tiles (pixels of a screenshot
// against the blank background); a click on Abuja shows the frame's id,
// bbox and data, the per-query night lights charged in the panel and in
// the ledger; the Explore key is listed in the Developers area.
func TestBrowser_ExploreMap(t *testing.T) {
	srv, data, demo := exploreDemo(t)
	demo.checkAccessible("explore")
	demo.waitIdle(0)
	drawn, _, total := demo.mapPixels()
	if drawn < total/20 {
		t.Errorf("the map drew %d of %d pixels: blank", drawn, total)
	}
	// The outline and the state lines are the server's vector tiles, drawn.
	for _, sl := range [][2]string{{"outline", "outline"}, {"b-state", "state"}} {
		if n := demo.sourceFeatures(sl[0], sl[1]); n == 0 {
			t.Errorf("no features of %s in the map's tiles", sl[1])
		}
	}
	// Pixels are read from a screenshot: on a loaded machine the canvas can
	// lag the idle event by a frame or two, so give it a few seconds.
	n := 0
	for deadline := time.Now().Add(10 * time.Second); ; {
		if n = demo.linePixels(0x37, 0x47, 0x4f); n >= 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if n < 200 {
		t.Errorf("%d pixels of the state lines' colour", n)
	}
	demo.shots("explore-lines")

	// A choropleth of population: tiles of the population dataset.
	now := run(demo, chromedp.Evaluate[int64](`Date.now()`))
	demo.do(chromedp.SetValue(chromedp.CSS("#layer"), "population|population_2020"))
	run(demo, chromedp.Evaluate[bool](`document.getElementById('layer').dispatchEvent(new Event('change')), true`))
	demo.waitFor("the legend", `document.querySelectorAll('#legend li').length >= 3`, 60*time.Second)
	demo.waitIdle(now)
	demo.jump(7.45, 9.05, 7)
	_, warm, total := demo.mapPixels()
	if warm < total/50 {
		t.Errorf("the choropleth drew %d warm pixels of %d: no tiles drawn", warm, total)
	}
	// From zoom 7, the LGA lines too; every line came as a tile, none as
	// a whole GeoJSON file.
	if n := demo.sourceFeatures("b-lga", "lga"); n == 0 {
		t.Error("no features of lga in the map's tiles")
	}
	// (MapLibre fetches tiles in its worker, out of the page's sight: the
	// sources say where from.)
	srcs := run(demo, chromedp.Evaluate[map[string]string](`(() => {
	  const out = {}, ss = window.frameindexMap.getStyle().sources;
	  for (const [id, s] of Object.entries(ss)) out[id] = s.type + " " + (s.tiles ? s.tiles[0] : "") + (typeof s.data === "string" ? s.data : "");
	  return out;
	})()`))
	for id, layer := range map[string]string{"outline": "outline", "b-state": "state", "b-lga": "lga"} {
		if want := "vector " + srv.base + "/console/explore/lines/" + layer + "/{z}/{y}/{x}"; srcs[id] != want {
			t.Errorf("source %s: %q, want %q", id, srcs[id], want)
		}
	}
	// Every source is vector tiles, or GeoJSON the page draws itself
	// (the selection, a drawn area, the frames beyond a distance): none
	// is GeoJSON fetched from an address.
	for id, s := range srcs {
		if !strings.HasPrefix(s, "vector ") && s != "geojson " {
			t.Errorf("source %s is %q, not vector tiles nor GeoJSON drawn by the page", id, s)
		}
	}
	if !strings.Contains(demo.text("#legend"), "Estimated population") {
		t.Errorf("legend: %q", demo.text("#legend"))
	}
	demo.shots("explore-choropleth")

	// Place search: Kano flies there.
	now = run(demo, chromedp.Evaluate[int64](`Date.now()`))
	demo.do(chromedp.SendKeys(chromedp.CSS("#place"), "Kano"), chromedp.Click(chromedp.CSS("#place-form button[type=submit]")))
	demo.waitFor("place results", `document.querySelectorAll('#place-results button').length > 0`, 30*time.Second)
	if r := demo.text("#place-results"); !strings.Contains(r, "State") {
		t.Errorf("place results: %q", r)
	}
	demo.waitIdle(now)
	c := run(demo, chromedp.Evaluate[[]float64](`(() => { const c = window.frameindexMap.getCenter(); return [c.lng, c.lat]; })()`))
	if c[0] < 7.5 || c[0] > 10 || c[1] < 10.5 || c[1] > 13 {
		t.Errorf("after the search for Kano the map is at %v", c)
	}

	// A click on Abuja.
	const lon, lat = 7.4951, 9.0579
	row, col := grid.CellAt(lat, lon)
	want := fmt.Sprint(grid.CellID(row, col))
	demo.jump(lon, lat, 13)
	before := orgCredits(t, data, "demo")
	ledger := strings.Count(mustCLI(t, "org", "show", "demo", "--data", data), "dataset nightlights")
	x, y := demo.mapPoint(lon, lat)
	demo.do(chromedp.MouseClickXY(x, y))
	demo.waitFor("the frame panel", `document.getElementById('frame-id') !== null && document.querySelector('#frame-info .ds') !== null`, 20*time.Second)
	if got := demo.text("#frame-id"); got != want {
		t.Errorf("clicked frame %s, want %s", got, want)
	}
	info := demo.text("#frame-info")
	for _, w := range []string{"7.49167, 9.05000, 7.50000, 9.05833", "Administrative areas", "population_2020", "Night-time lights", "radiance"} {
		if !strings.Contains(info, w) {
			t.Errorf("frame panel lacks %q:\n%s", w, info)
		}
	}
	if c := demo.text("#frame-charged"); !strings.Contains(c, "nightlights") {
		t.Errorf("charged line: %q", c)
	}
	if after := orgCredits(t, data, "demo"); after != before-1 {
		t.Errorf("credits %d after the data call, want %d", after, before-1)
	}
	if n := strings.Count(mustCLI(t, "org", "show", "demo", "--data", data), "dataset nightlights"); n != ledger+1 {
		t.Errorf("%d ledger entries for nightlights after the data call, want %d", n, ledger+1)
	}
	if usage := mustCLI(t, "usage", "--org", "demo", "--data", data); !strings.Contains(usage, "nightlights") {
		t.Errorf("the ledger shows no charge for nightlights:\n%s", usage)
	}
	if !strings.Contains(srv.stderr.String(), `"route":"GET /v1/frames/data"`) {
		t.Error("the data call did not go through the API's handlers (no access-log line)")
	}
	// The keyboard: Escape clears the selection, Enter shows the frame at
	// the centre (the same one) and selects it.
	run(demo, chromedp.Evaluate[bool](`window.frameindexMap.getCanvas().focus(), true`))
	demo.do(chromedp.KeyEvent(kb.Escape))
	demo.waitFor("Escape clears the selection", `document.getElementById('explore').dataset.selected === '0'`, 10*time.Second)
	demo.do(chromedp.KeyEvent(kb.Enter))
	demo.waitFor("Enter selects the frame at the centre", `document.getElementById('explore').dataset.selected === '1'`, 10*time.Second)
	demo.open("/console/keys")
	demo.waitPath("/console/keys")
	if keys := demo.text(`#h-keys + .table-wrap`); !strings.Contains(keys, "console: demo") {
		t.Errorf("the Explore key is not listed: %q", keys)
	}
	noSecretsLogged(t, srv, "the demo owner's password")
}

// shiftDrag drags from one point to another with Shift held.
func (p *person) shiftDrag(x0, y0, x1, y1 float64) {
	p.t.Helper()
	shift := chromedp.ButtonModifiers(chromedp.ModifierShift)
	p.do(
		chromedp.MouseEvent(chromedp.MousePressed, x0, y0, chromedp.ButtonLeft, shift, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, (x0+x1)/2, (y0+y1)/2, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(chromedp.MouseMoved, x1, y1, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, chromedp.ButtonLeft, shift, chromedp.ClickCount(1)),
	)
}

// TestBrowser_ExploreAsk: a box drawn with Shift+drag selects its frames
// (at most 50, said on screen), and a question about them shows the
// headline, facets and follow-ups; a follow-up re-asks. At a phone's width
// the panel is under the map and usable.
func TestBrowser_ExploreAsk(t *testing.T) {
	_, _, demo := exploreDemo(t)
	demo.jump(7.4951, 9.0579, 13)
	// A box of about 3 x 3 frames.
	x0, y0 := demo.mapPoint(7.4875, 9.0650)
	x1, y1 := demo.mapPoint(7.5075, 9.0500)
	demo.shiftDrag(x0, y0, x1, y1)
	demo.waitFor("a selection", `Number(document.getElementById('explore').dataset.selected || 0) >= 4`, 20*time.Second)
	n, _ := strconv.Atoi(run(demo, chromedp.Evaluate[string](`document.getElementById('explore').dataset.selected`)))
	if n > 50 {
		t.Fatalf("%d frames selected", n)
	}
	demo.do(chromedp.SendKeys(chromedp.CSS("#question"), "How many people live here?"),
		chromedp.Click(chromedp.CSS("#ask")))
	demo.waitFor("the answer", `document.getElementById('answer-headline') !== null`, 30*time.Second)
	if h := demo.text("#answer-headline"); !strings.Contains(h, "population") {
		t.Errorf("headline: %q", h)
	}
	if f := demo.text("#answer-facets"); !strings.Contains(f, "people") {
		t.Errorf("facets: %q", f)
	}
	if m := demo.text("#answer-meta"); !strings.Contains(m, "confidence: exact") || !strings.Contains(m, "engine: deterministic") {
		t.Errorf("answer meta: %q", m)
	}
	// A follow-up re-asks.
	run(demo, chromedp.Evaluate[bool](`document.getElementById('answer-headline').remove(), true`))
	demo.do(chromedp.Click(chromedp.CSS(".followups button")))
	demo.waitFor("the follow-up's answer", `document.getElementById('answer-headline') !== null`, 30*time.Second)

	// A large box: 50 frames, and the page says so.
	demo.jump(7.4951, 9.0579, 11)
	x0, y0 = demo.mapPoint(7.40, 9.12)
	x1, y1 = demo.mapPoint(7.58, 9.00)
	demo.shiftDrag(x0, y0, x1, y1)
	demo.waitFor("a full selection", `document.getElementById('explore').dataset.selected === '50'`, 20*time.Second)
	if s := demo.text("#selection"); !strings.Contains(s, "the most a question can be about") {
		t.Errorf("selection text at 50: %q", s)
	}
	// "Report on this area" links the selection's report, by its ids.
	href := run(demo, chromedp.Evaluate[string](`(e => e.hidden ? '' : e.href)(document.getElementById('area-report'))`))
	if u, err := url.Parse(href); err != nil || len(strings.Split(u.Query().Get("frames"), ",")) != 50 {
		t.Errorf("the selection's report link %q", href)
	} else if got := run(demo, chromedp.Evaluate[string](`(() => { const x = new XMLHttpRequest(); x.open('GET', document.getElementById('area-report').href, false); x.send(); return x.status + ' ' + x.responseText; })()`)); !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "50 selected frames") {
		t.Errorf("the selection's report page: %.300s", got)
	}

	// A phone's width: the panel is under the map, and the question works.
	demo.do(chromedp.EmulateViewport(390, 844))
	demo.checkAccessible("explore at a phone's width")
	demo.waitFor("the panel under the map", `(() => {
	  const m = document.getElementById('map').getBoundingClientRect(), p = document.querySelector('.panel').getBoundingClientRect();
	  return p.top >= m.bottom - 1 && p.width > 300 && m.height > 200;
	})()`, 10*time.Second)
	// Without Shift on a phone: clear, then select the frames in view.
	demo.do(chromedp.ScrollIntoView(chromedp.CSS("#clear")), chromedp.Click(chromedp.CSS("#clear")))
	demo.waitFor("a cleared selection", `document.getElementById('explore').dataset.selected === '0'`, 10*time.Second)
	demo.do(chromedp.Click(chromedp.CSS("#select-view")))
	demo.waitFor("the frames in view selected", `Number(document.getElementById('explore').dataset.selected) > 0`, 20*time.Second)
	run(demo, chromedp.Evaluate[bool](`document.getElementById('answer').replaceChildren(), true`))
	demo.do(chromedp.ScrollIntoView(chromedp.CSS("#ask")), chromedp.Click(chromedp.CSS("#ask")))
	demo.waitFor("the answer at a phone's width", `document.getElementById('answer-headline') !== null`, 30*time.Second)
	demo.shots("explore")
}

// TestBrowser_CrossPortImageSpendsNothing: a page on another port of the
// same host (the same site, so SameSite=Strict does not keep the session
// cookie back) shows <img> tags pointing at the map's charged calls: a
// tile and the data of a frame of the per-query night lights. The
// signed-in browser sends them with the cookie, and the server answers
// them 403 without spending a credit: they carry no proof that the map's
// own page sent them.
func TestBrowser_CrossPortImageSpendsNothing(t *testing.T) {
	srv, data, demo := exploreDemo(t)
	const lon, lat = 7.4951, 9.0579
	row, col := grid.CellAt(lat, lon)
	frame := grid.CellID(row, col)
	z := 9
	n := math.Exp2(float64(z))
	tx := int((lon + 180) / 360 * n)
	phi := lat * math.Pi / 180
	ty := int((1 - math.Asinh(math.Tan(phi))/math.Pi) / 2 * n)
	before := orgCredits(t, data, "demo")
	ledger := strings.Count(mustCLI(t, "org", "show", "demo", "--data", data), "dataset nightlights")
	page := fmt.Sprintf(`<!doctype html><title>elsewhere</title>
<img id="tile" src="%[1]s/console/explore/tiles/nightlights/%[2]d/%[3]d/%[4]d">
<img id="data" src="%[1]s/console/explore/api/data?ids=%[5]d">
<img id="key" src="%[1]s/console/explore">`, srv.base, z, ty, tx, frame)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer other.Close()
	if !strings.HasPrefix(other.URL, "http://127.0.0.1:") || !strings.HasPrefix(srv.base, "http://127.0.0.1:") {
		t.Fatalf("both servers should be on 127.0.0.1: %s, %s", other.URL, srv.base)
	}
	demo.do(chromedp.Navigate(other.URL))
	demo.waitFor("the images settled", `[...document.images].every(i => i.complete)`, 20*time.Second)
	time.Sleep(500 * time.Millisecond)
	if after := orgCredits(t, data, "demo"); after != before {
		t.Errorf("a page on another port spent %d credits through <img> tags", before-after)
	}
	if n := strings.Count(mustCLI(t, "org", "show", "demo", "--data", data), "dataset nightlights"); n != ledger {
		t.Errorf("%d ledger entries for nightlights, want %d", n, ledger)
	}
	// The same calls from the map's own page are answered (and charged).
	demo.do(chromedp.Navigate(srv.base + "/console/explore"))
	demo.waitFor("the map loaded", `document.getElementById('explore').dataset.loaded === 'true'`, 30*time.Second)
	js := fmt.Sprintf(`fetch("/console/explore/api/data?ids=%d", {headers: {"X-CSRF-Token": document.querySelector("input[name=csrf]").value}}).then(r => r.status)`, frame)
	status := run(demo, chromedp.Evaluate[int](js, chromedp.EvalAwaitPromise))
	if status != 200 {
		t.Errorf("the map's own data call: %d", status)
	}
	if after := orgCredits(t, data, "demo"); after >= before {
		t.Errorf("the map's own call of a per-query dataset charged nothing (%d -> %d)", before, after)
	}
}
