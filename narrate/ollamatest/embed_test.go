package ollamatest

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestEmbedEndpoint(t *testing.T) {
	s := NewServer()
	defer s.Close()
	post := func(body string) (int, api.EmbedResponse, string) {
		res, err := http.Post(s.URL()+"/api/embed", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var raw json.RawMessage
		json.NewDecoder(res.Body).Decode(&raw)
		var er api.EmbedResponse
		json.Unmarshal(raw, &er)
		return res.StatusCode, er, string(raw)
	}
	tests := []struct {
		name, body string
		status, n  int
	}{
		{"one string", `{"model":"stand-in","input":"clinics"}`, 200, 1},
		{"a list", `{"model":"stand-in:latest","input":["a","b c"]}`, 200, 2},
		{"missing model", `{"model":"nomic-embed-text","input":"x"}`, 404, 0},
		{"no model", `{"input":"x"}`, 400, 0},
		{"bad input", `{"model":"stand-in","input":[1]}`, 400, 0},
		{"not JSON", `{`, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, er, raw := post(tt.body)
			if status != tt.status || len(er.Embeddings) != tt.n {
				t.Errorf("%d %s", status, raw)
			}
		})
	}
	if got := len(s.EmbedRequests()); got != len(tests)-1 {
		t.Errorf("%d requests recorded", got)
	}
	s.SetEmbedFunc(func(string) []float32 { return []float32{1, 2} })
	if _, er, _ := post(`{"model":"stand-in","input":"x"}`); len(er.Embeddings) != 1 || len(er.Embeddings[0]) != 2 {
		t.Errorf("SetEmbedFunc: %+v", er)
	}
}

func TestEmbedWords(t *testing.T) {
	norm := func(v []float32) float64 {
		s := 0.0
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	a, b := EmbedWords("search_query: clinics"), EmbedWords("search_document: Clinic")
	if len(a) != EmbedDims || math.Abs(norm(a)-1) > 1e-6 {
		t.Fatalf("length %d, norm %g", len(a), norm(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the prefix, case or a plural changed the vector")
		}
	}
	if z := EmbedWords("search_query: 123 ..."); norm(z) != 0 {
		t.Error("no words, yet a vector")
	}
}
