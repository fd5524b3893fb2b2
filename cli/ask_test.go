package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAskBody(t *testing.T) {
	dir := t.TempDir()
	geom := filepath.Join(dir, "site.geojson")
	os.WriteFile(geom, []byte(`{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[8,12],[8.1,12],[8.1,12.1],[8,12]]]}}`), 0o644)
	for _, c := range []struct {
		f    askFlags
		want string
		err  string
	}{
		{askFlags{}, `{"area":{"inQuestion":true},"question":"q"}`, ""},
		{askFlags{place: "Dala", kind: "lga"}, `{"area":{"kind":"lga","place":"Dala"},"question":"q"}`, ""},
		{askFlags{bbox: "8.4, 11.9,8.6,12.1", format: "report"}, `{"area":{"bbox":[8.4,11.9,8.6,12.1]},"format":"report","question":"q"}`, ""},
		{askFlags{around: "8.5,12", radius: 5}, `{"area":{"around":[8.5,12],"radiusKm":5},"question":"q"}`, ""},
		{askFlags{geometry: geom}, `{"area":{"geometry":{"type":"Polygon","coordinates":[[[8,12],[8.1,12],[8.1,12.1],[8,12]]]}},"question":"q"}`, ""},
		{askFlags{place: "Dala", bbox: "1,2,3,4"}, "", "give one area"},
		{askFlags{around: "8.5,12"}, "", "go together"},
		{askFlags{bbox: "1,2,3"}, "", "give 4 comma-separated numbers"},
		{askFlags{around: "8.5,x", radius: 1}, "", `"x" is not a number`},
		{askFlags{geometry: filepath.Join(dir, "missing.geojson")}, "", "no such file"},
	} {
		b, err := askBody(c.f, "q")
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: %v; want an error with %q", c.f, err, c.err)
		case c.err == "" && (err != nil || string(b) != c.want):
			t.Errorf("%+v: %s, %v; want %s", c.f, b, err, c.want)
		}
	}
}
