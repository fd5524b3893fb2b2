package narrate

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"frameindex/narrate/ollamatest"

	"github.com/ollama/ollama/api"
)

func testPrompt() Prompt {
	return Prompt{
		Headline: "About 12,345 people live in the 4 frames.",
		Facets:   [][2]string{{"Population (2020)", "12,345"}, {"Urban share", "67%"}},
		Table:    [][]string{{"ward", "population"}, {"Ikoyi", "8,000"}, {"Obalende", "4,345"}},
		Sources:  []string{"population: synthetic demo dataset"},
		Register: RegisterPlain,
	}
}

func newTestClient(t *testing.T, srv *ollamatest.Server) *Client {
	t.Helper()
	c, err := NewClient(srv.URL(), ollamatest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWordReturnsReply(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	const reply = "About 12,345 people live here.\n\nMost of them, 8,000, live in Ikoyi."
	srv.SetReply("  " + reply + "\n")
	for _, stream := range []bool{false, true} {
		c := newTestClient(t, srv)
		c.stream = stream
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, err := c.Word(ctx, testPrompt(), 200)
		cancel()
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if got != reply {
			t.Errorf("stream=%v: got %q, want %q", stream, got, reply)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Stream == nil || *reqs[0].Stream || reqs[1].Stream == nil || !*reqs[1].Stream {
		t.Fatalf("requests: want one non-streamed then one streamed, got %d", len(reqs))
	}
}

func TestWordRequest(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	c := newTestClient(t, srv)
	const question = "How many people live near Jane Doe's house?"
	p := testPrompt()
	p.Register = RegisterGIS
	p.Report = true
	srv.SetReply("## Population\n- About 12,345 people.")
	if _, err := c.Word(context.Background(), p, 321); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != ollamatest.DefaultModel {
		t.Errorf("model %q", r.Model)
	}
	if v, ok := r.Options["temperature"].(float64); !ok || v != 0 {
		t.Errorf("temperature %v (%T)", r.Options["temperature"], r.Options["temperature"])
	}
	if v, ok := r.Options["num_predict"].(float64); !ok || v != 321 {
		t.Errorf("num_predict %v", r.Options["num_predict"])
	}
	if r.Think == nil || r.Think.Bool() {
		t.Errorf("think should be false, got %v", r.Think)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
		t.Fatalf("messages: %+v", r.Messages)
	}
	sys, user := r.Messages[0].Content, r.Messages[1].Content
	for _, want := range []string{"only the figures", "GIS", `"## "`, `"- "`} {
		if !strings.Contains(sys, want) {
			t.Errorf("system message lacks %q:\n%s", want, sys)
		}
	}
	if strings.ContainsAny(sys, "0123456789") {
		t.Errorf("system message holds a digit:\n%s", sys)
	}
	for _, want := range []string{p.Headline, "Population (2020): 12,345", "67%", "ward | population", "Obalende | 4,345", "synthetic demo dataset"} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%s", want, user)
		}
	}
	// Every number the prompt shows is one of the figures.
	f := FiguresFrom(append([]string{p.Headline, p.Facets[0][0], p.Facets[0][1], p.Facets[1][0], p.Facets[1][1]}, flatten(p.Table)...), nil, nil)
	if v := Verify(user, f, false); !v.OK {
		t.Errorf("user message states a number not among the figures: %s", v.Reason)
	}
	for _, m := range r.Messages {
		if strings.Contains(m.Content, "Jane") || strings.Contains(m.Content, question) {
			t.Errorf("the question reached the model")
		}
	}

	// Plain register, paragraphs.
	p.Register, p.Report = "", false
	srv.SetReply("About 12,345 people live here.")
	if _, err := c.Word(context.Background(), p, 100); err != nil {
		t.Fatal(err)
	}
	sys = srv.Requests()[1].Messages[0].Content
	if !strings.Contains(sys, "everyday words") || strings.Contains(sys, `"## "`) {
		t.Errorf("plain paragraphs system message:\n%s", sys)
	}
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func TestWordErrors(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	c := newTestClient(t, srv)
	ctx := context.Background()

	srv.SetFail(http.StatusInternalServerError, "model runner has unexpectedly stopped")
	_, err := c.Word(ctx, testPrompt(), 100)
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "unexpectedly stopped") {
		t.Errorf("failing model: %v", err)
	}
	srv.SetFail(0, "")

	srv.SetReply("one two three four five")
	for _, stream := range []bool{false, true} {
		c.stream = stream
		if _, err := c.Word(ctx, testPrompt(), 3); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "cut at 3 tokens") {
			t.Errorf("stream=%v: truncated reply: %v", stream, err)
		}
	}
	c.stream = false

	srv.SetReply(" \n ")
	if _, err := c.Word(ctx, testPrompt(), 100); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty reply: %v", err)
	}

	srv.Models("other")
	if _, err := c.Word(ctx, testPrompt(), 100); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing model: %v", err)
	}

	if _, err := c.Word(ctx, testPrompt(), 0); !errors.Is(err, ErrModel) {
		t.Errorf("maxTokens 0: %v", err)
	}
	p := testPrompt()
	p.Register = "poetic"
	if _, err := c.Word(ctx, p, 100); err == nil {
		t.Errorf("unknown register: no error")
	}
}

func TestWordDeadline(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	srv.SetDelay(10 * time.Second)
	for _, stream := range []bool{false, true} {
		c := newTestClient(t, srv)
		c.stream = stream
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		start := time.Now()
		_, err := c.Word(ctx, testPrompt(), 100)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, ErrModel) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stream=%v: want ErrModel and DeadlineExceeded, got %v", stream, err)
		}
		if took > 2*time.Second {
			t.Errorf("stream=%v: took %v past a 150ms deadline", stream, took)
		}
	}
}

func TestCheck(t *testing.T) {
	srv := ollamatest.NewServer()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	c := newTestClient(t, srv)
	if err := c.Check(ctx); err != nil {
		t.Errorf("present model: %v", err)
	}
	// An untagged name matches ":latest", as in Ollama.
	srv.Models("llama3.2")
	c2, _ := NewClient(srv.URL(), "llama3.2:latest", nil)
	if err := c2.Check(ctx); err != nil {
		t.Errorf("tagged name for untagged model: %v", err)
	}

	srv.Models("llama3.2:latest")
	c3, _ := NewClient(srv.URL(), "qwen3:4b", nil)
	err := c3.Check(ctx)
	want := "model qwen3:4b is not present at " + srv.URL() + "; run `ollama pull qwen3:4b`"
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), want) {
		t.Errorf("missing model: got %v, want it to contain %q", err, want)
	}

	srv.Close()
	err = c.Check(ctx)
	if !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "not reachable at "+srv.URL()) {
		t.Errorf("server down: %v", err)
	}
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{":11500", "http://127.0.0.1:11500"},
		{"http://example.org", "http://example.org:80"},
		{"https://example.org", "https://example.org:443"},
		{"https://example.org/ollama", "https://example.org:443/ollama"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"::1", "http://[::1]:11434"},
	} {
		u, err := ParseHost(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if u.String() != tc.want {
			t.Errorf("%q: got %s, want %s", tc.in, u, tc.want)
		}
	}
	for _, bad := range []string{"ftp://host:21", "host:99999", "host:port"} {
		if _, err := ParseHost(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := NewClient("127.0.0.1:11434", " ", nil); err == nil {
		t.Error("empty model: no error")
	}
}

func TestStandInReplyFunc(t *testing.T) {
	srv := ollamatest.NewServer()
	defer srv.Close()
	c := newTestClient(t, srv)
	srv.SetReplyFunc(func(r api.ChatRequest) string {
		return "Echo: " + strings.SplitN(r.Messages[1].Content, "\n", 2)[0]
	})
	got, err := c.Word(context.Background(), testPrompt(), 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Echo: Headline: " + testPrompt().Headline; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A reply whose body ends before the final done chunk (a crashed or
// cut-off server) is an error, not a short wording: api.Client itself
// reports no error in that case.
func TestWordUnfinishedReply(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_ = json.NewEncoder(w).Encode(api.ChatResponse{Model: "m", Message: api.Message{Role: "assistant", Content: "About 12,"}})
	}))
	defer ts.Close()
	c, err := NewClient(ts.URL, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.stream = true
	if got, err := c.Word(context.Background(), testPrompt(), 100); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "before it was done") {
		t.Errorf("got %q, %v", got, err)
	}
}
