package console

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzTilePath: whatever the browser puts in a tile address, the API path
// is formed only from a collection id and three numbers, and stays under
// /ogc/collections/ (no traversal, no query, no other call).
func FuzzTilePath(f *testing.F) {
	for _, s := range [][4]string{{"frames", "9", "240", "270"}, {"pop-features", "16", "0", "0"}, {"..", "1", "2", "3"},
		{"a/b", "1", "2", "3"}, {"frames", "-1", "2", "3"}, {"frames", "1?x=1", "2", "3"}, {"", "", "", ""}, {"frames", "123456789", "1", "1"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, c, z, y, x string) {
		p, ok := tilePath(c, z, y, x)
		if !ok {
			if p != "" {
				t.Fatalf("refused with a path %q", p)
			}
			return
		}
		u, err := url.Parse(p)
		if err != nil || u.Path != p || u.RawQuery != "" || strings.Contains(p, "..") || strings.Contains(p, "//") {
			t.Fatalf("path %q from %q %q %q %q", p, c, z, y, x)
		}
		if parts := strings.Split(p, "/"); len(parts) != 9 || parts[1] != "ogc" || parts[2] != "collections" || parts[4] != "tiles" {
			t.Fatalf("path %q has the wrong shape", p)
		}
	})
}

// FuzzPlaceSearch: any query returns at most n places, each of whose
// names holds the query, case aside.
func FuzzPlaceSearch(f *testing.F) {
	pd := &placeData{places: []place{{Name: "Kano", Kind: "State"}, {Name: "Kano Municipal", Kind: "LGA"}, {Name: "Ẹ̀pẹ́", Kind: "LGA"},
		{Name: "Ibadan North", Kind: "LGA"}, {Name: "Dala Ward 3", Kind: "Ward"}}}
	for _, p := range pd.places {
		pd.lower = append(pd.lower, strings.ToLower(p.Name))
	}
	for _, s := range []string{"kano", "KANO", "ẹ̀", "", "\xff\xfe", "a", "ward 3"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, q string, n int) {
		if n < 0 || n > 100 {
			n = 12
		}
		got := pd.search(q, n)
		if len(got) > n {
			t.Fatalf("%d results for limit %d", len(got), n)
		}
		for _, p := range got {
			if !strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
				t.Fatalf("%q does not hold %q", p.Name, q)
			}
		}
	})
}

// FuzzLineTilePath: whatever the browser puts in a line tile's address,
// an accepted one is a known layer within its zooms and the zoom's
// matrix, and the same numbers written plainly are accepted alike.
func FuzzLineTilePath(f *testing.F) {
	for _, s := range [][4]string{{"outline", "0", "0", "0"}, {"state", "9", "240", "270"}, {"lga", "7", "60", "66"}, {"lga", "6", "1", "1"},
		{"ward", "9", "1", "1"}, {"outline", "-1", "0", "0"}, {"outline", "1e3", "0", "0"}, {"outline", "009", "511", "511"}, {"", "", "", ""},
		{"outline", "99999999", "0", "0"}, {"outline", "9", "512", "0"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, layer, z, y, x string) {
		lt, ok := parseLineTile(layer, z, y, x)
		if !ok {
			if lt != (lineTile{}) {
				t.Fatalf("refused with %+v", lt)
			}
			return
		}
		minZ, known := lineMinZoom[layer]
		if !known || lt.layer != layer || lt.z < minZ || lt.z > linesMaxZoom || lt.x < 0 || lt.y < 0 || lt.x >= 1<<lt.z || lt.y >= 1<<lt.z {
			t.Fatalf("accepted %q %q %q %q as %+v", layer, z, y, x, lt)
		}
		again, ok := parseLineTile(layer, strconv.Itoa(lt.z), strconv.Itoa(lt.y), strconv.Itoa(lt.x))
		if !ok || again != lt {
			t.Fatalf("%+v written plainly reads as %+v, %v", lt, again, ok)
		}
	})
}
