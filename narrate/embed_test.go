package narrate

import (
	"context"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"frameindex/narrate/ollamatest"
)

func TestEmbed(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	c := newTestClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	texts := []string{"search_query: clinics", "search_document: Health facilities; also called clinics", "search_query: rainfall"}
	got, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got[0]) != ollamatest.EmbedDims {
		t.Fatalf("%d vectors of %d", len(got), len(got[0]))
	}
	for i, text := range texts {
		if want := ollamatest.EmbedWords(text); !reflect.DeepEqual(got[i], want) {
			t.Errorf("vector %d is not the stand-in's embedding of %q", i, text)
		}
	}
	// Texts sharing words are nearer than texts that share none.
	if cos(got[0], got[1]) <= cos(got[0], got[2]) {
		t.Errorf("clinics ~ health facilities %g, clinics ~ rainfall %g", cos(got[0], got[1]), cos(got[0], got[2]))
	}
	reqs := srv.EmbedRequests()
	if len(reqs) != 1 || reqs[0].Model != ollamatest.DefaultModel || reqs[0].Truncate == nil || !*reqs[0].Truncate {
		t.Fatalf("requests %+v", reqs)
	}
	if in, ok := reqs[0].Input.([]any); !ok || len(in) != 3 || in[1] != texts[1] {
		t.Errorf("input %#v", reqs[0].Input)
	}
	if v, err := c.Embed(ctx, nil); v != nil || err != nil || len(srv.EmbedRequests()) != 1 {
		t.Errorf("no texts: %v %v, %d calls", v, err, len(srv.EmbedRequests()))
	}
}

func TestEmbedFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*ollamatest.Server)
		want  string
	}{
		{"model missing", func(s *ollamatest.Server) { s.Models("other") }, "not found"},
		{"server error", func(s *ollamatest.Server) { s.SetFail(http.StatusInternalServerError, "out of memory") }, "out of memory"},
		{"no vector", func(s *ollamatest.Server) { s.SetEmbedFunc(func(string) []float32 { return nil }) }, "length 0"},
		{"ragged", func(s *ollamatest.Server) {
			s.SetEmbedFunc(func(t string) []float32 { return make([]float32, 2+len(t)%2) })
		}, "length"},
		{"not finite", func(s *ollamatest.Server) {
			s.SetEmbedFunc(func(string) []float32 { return []float32{1, float32(math.Inf(1))} })
		}, ""},
		{"too slow", func(s *ollamatest.Server) { s.SetDelay(time.Second) }, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.NewServer()
			defer srv.Close()
			tt.setup(srv)
			c := newTestClient(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err := c.Embed(ctx, []string{"a", "bb"})
			if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrModel with %q", err, tt.want)
			}
		})
	}
}

func cos(a, b []float32) float64 {
	var d, x, y float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		x += float64(a[i]) * float64(a[i])
		y += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(x*y)
}

func TestUnitAfter(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want string
	}{
		{"2.58 km²", "km2"}, {"2.58 km2", "km2"}, {"2.58 sq km", "km2"}, {"2.58 square kilometres of land", "km2"},
		{"3.4 km away", "km"}, {"3.4 kilometres", "km"}, {"3.4kms", "km"}, {"258 ha", "ha"}, {"258 hectares", "ha"},
		{"5 m", "m"}, {"5 miles", "mi"}, {"12 people", ""}, {"12 kmh", ""}, {"5 more frames", ""}, {"7", ""},
		{"12 Hectares.", "ha"}, {"2 m²", "m2"},
	} {
		n := Numbers(tt.s)
		if len(n) == 0 {
			t.Fatalf("%q: no number", tt.s)
		}
		if got := UnitAfter(tt.s, n[0].End); got != tt.want {
			t.Errorf("UnitAfter(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	if UnitAfter("x", 5) != "" || UnitAfter("x", -1) != "" {
		t.Error("an offset out of range read a unit")
	}
}

// TestVerify_Units: a figure written in another unit of length or area
// than the answer shows it in is refused; one the answer shows without a
// unit is not.
func TestVerify_Units(t *testing.T) {
	f := FiguresFrom([]string{
		"The 3 selected frames have a population density of 18,686.05 people per km²: 48,210 people on 2.58 km².",
		"Distance (great circle): 3.41 km",
		"0.85", // a table cell without a unit
	}, nil, nil)
	for _, tt := range []struct {
		wording string
		ok      bool
	}{
		{"About 48,000 people live on 2.58 km².", true},
		{"About 48,000 people live on about 2.6 square kilometres.", true},
		{"About 48,000 people live on 2.58 hectares.", false},
		{"The nearest clinic is 3.41 km away.", true},
		{"The nearest clinic is 3.41 miles away.", false},
		{"The nearest clinic is about 3 km away.", true},
		{"One frame covers 0.85 km².", true},
		{"The density is 18,686.05 people per km².", true},
	} {
		v := Verify(tt.wording, f, false)
		if v.OK != tt.ok {
			t.Errorf("Verify(%q) = %+v, want ok %v", tt.wording, v, tt.ok)
		}
	}
}

func TestPlacesIn(t *testing.T) {
	known := []string{"Kano", "Kano Municipal", "Jigawa", "Ado-Ekiti", "Central"}
	got := PlacesIn([]string{"2 of the 3 selected frames have state Kano.", "Ado Ekiti", "central heating"}, known)
	if want := []string{"Kano", "Ado-Ekiti", "Central"}; !reflect.DeepEqual(got, want) {
		t.Errorf("PlacesIn = %q, want %q", got, want)
	}
	if PlacesIn([]string{"Kano"}, nil) != nil {
		t.Error("places without known names")
	}
}
