// Package ollamatest is a test stand-in for an Ollama server: an
// httptest.Server on a local port that speaks enough of Ollama's real HTTP
// protocol for narrate.Client and the service to run against it, and can be
// told what to say, how slowly, or to fail. It runs no model and is meant
// for tests only (handler tests and end-to-end tests of the binary, which
// is why it is not a _test package); nothing in production imports it.
//
// It serves, as Ollama v0.17 does:
//
//   - POST /api/chat: an api.ChatRequest; with "stream" true or absent,
//     NDJSON api.ChatResponse chunks with done false, then a final one
//     with done true; with "stream" false, one api.ChatResponse.
//   - POST /api/embed: an api.EmbedRequest (input a string or a list of
//     strings); an api.EmbedResponse with one vector per input, from
//     SetEmbedFunc's function or, by default, EmbedWords.
//   - GET /api/tags: an api.ListResponse of the configured models.
//   - POST /api/show: 200 for a configured model, otherwise 404
//     {"error":"model 'x' not found"}.
//   - GET /api/version.
//
// A model name without a tag matches the same name tagged ":latest", as in
// Ollama. The reply honours "num_predict" by counting each word as one
// token: a longer reply is cut and ends with done_reason "length".
//
//	srv := ollamatest.NewServer()
//	defer srv.Close()
//	srv.SetReply("About 12,000 people live here.")
//	c, _ := narrate.NewClient(srv.URL(), ollamatest.DefaultModel, nil)
package ollamatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// DefaultModel is the model a new Server holds.
const DefaultModel = "stand-in:latest"

// Version is what GET /api/version answers.
const Version = "0.17.4-ollamatest"

// DefaultReply is what a new Server answers /api/chat with.
const DefaultReply = "This is the stand-in's wording."

// Server is a running Ollama stand-in. Its setters may be called at any
// time, from any goroutine; a request in flight keeps what it has read.
type Server struct {
	ts     *httptest.Server
	closed chan struct{}
	once   sync.Once

	mu         sync.Mutex
	reply      string
	replyFunc  func(api.ChatRequest) string
	delay      time.Duration
	failStatus int
	failMsg    string
	models     []string
	requests   []api.ChatRequest
	embedFunc  func(string) []float32
	embeds     []api.EmbedRequest
}

// NewServer starts a stand-in holding DefaultModel and answering
// DefaultReply at once. Close it when done.
func NewServer() *Server {
	s := &Server{
		closed: make(chan struct{}),
		reply:  DefaultReply,
		models: []string{DefaultModel},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.chat)
	mux.HandleFunc("POST /api/embed", s.embed)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("HEAD /api/tags", s.tags)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/version", s.version)
	mux.HandleFunc("HEAD /api/version", s.version)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "Ollama is running")
	})
	s.ts = httptest.NewServer(mux)
	return s
}

// URL is the stand-in's base URL ("http://127.0.0.1:PORT"), usable as
// OLLAMA_HOST.
func (s *Server) URL() string { return s.ts.URL }

// Close stops the stand-in. Requests waiting out a delay end at once
// (their connection breaks, as when Ollama is killed).
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// SetReply sets the text /api/chat answers with, and clears SetReplyFunc.
func (s *Server) SetReply(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply, s.replyFunc = text, nil
}

// SetReplyFunc makes /api/chat answer with f(request); nil returns to the
// SetReply text. f runs on the server's goroutines, outside its lock.
func (s *Server) SetReplyFunc(f func(api.ChatRequest) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replyFunc = f
}

// SetDelay makes /api/chat and /api/embed wait d before answering (0: no
// wait). The wait ends early, with no answer, when the request's context
// ends.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetFail makes /api/chat and /api/embed answer with HTTP status and
// {"error": msg} (after any delay), as Ollama does when a model fails to
// load or run. A status of 0 turns failing off.
func (s *Server) SetFail(status int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus, s.failMsg = status, msg
}

// Models sets the models the stand-in holds (for /api/tags, /api/show and
// /api/chat); none makes every model missing.
func (s *Server) Models(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), names...)
}

// SetEmbedFunc makes /api/embed answer each input with f(input); nil
// returns to EmbedWords. f runs on the server's goroutines, outside its
// lock.
func (s *Server) SetEmbedFunc(f func(string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFunc = f
}

// EmbedRequests returns the /api/embed requests received so far, in order
// of arrival, including those answered with a failure.
func (s *Server) EmbedRequests() []api.EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.EmbedRequest(nil), s.embeds...)
}

// EmbedDims is the length of EmbedWords' vectors.
const EmbedDims = 64

// EmbedWords is the stand-in's default embedding: a bag of words. A
// leading task prefix ("search_query: ", "search_document: ") is dropped;
// every other word of letters, lower-cased and with a final "s" dropped,
// adds a fixed pseudo-random unit vector of EmbedDims values; the sum is
// scaled to length 1 (all zeros for no words). Texts sharing words are
// thus similar and others nearly orthogonal, which is enough to test
// retrieval by meaning without a model.
func EmbedWords(text string) []float32 {
	if i := strings.Index(text, ": "); i > 0 && !strings.ContainsAny(text[:i], " \t\n") {
		text = text[i+2:]
	}
	v := make([]float64, EmbedDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		seed := h.Sum64()
		for k := range v {
			seed ^= seed << 13
			seed ^= seed >> 7
			seed ^= seed << 17
			v[k] += float64(int64(seed%2001)-1000) / 1000
		}
	}
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, EmbedDims)
	if n == 0 {
		return out
	}
	n = math.Sqrt(n)
	for k, x := range v {
		out[k] = float32(x / n)
	}
	return out
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	s.embeds = append(s.embeds, req)
	present := s.has(req.Model)
	f := s.embedFunc
	delay, failStatus, failMsg := s.delay, s.failStatus, s.failMsg
	s.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, x := range in {
			str, ok := x.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			inputs = append(inputs, str)
		}
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	if refused(w, req.Model, present, failStatus, failMsg) {
		return
	}
	if f == nil {
		f = EmbedWords
	}
	resp := api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(inputs))}
	for i, in := range inputs {
		resp.Embeddings[i] = f(in)
		resp.PromptEvalCount += len(strings.Fields(in))
	}
	writeJSON(w, http.StatusOK, resp)
}

// Requests returns the /api/chat requests received so far, in order of
// arrival, including those answered with a failure.
func (s *Server) Requests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]api.ChatRequest(nil), s.requests...)
}

// has reports whether name is one of the models, reading a name without a
// tag as ":latest". Call with s.mu held.
func (s *Server) has(name string) bool {
	want := withTag(name)
	for _, m := range s.models {
		if withTag(m) == want {
			return true
		}
	}
	return false
}

func withTag(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexByte(name, '/'); !strings.Contains(name[i+1:], ":") {
		name += ":latest"
	}
	return name
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	present := s.has(req.Model)
	reply, replyFunc := s.reply, s.replyFunc
	delay, failStatus, failMsg := s.delay, s.failStatus, s.failMsg
	s.mu.Unlock()

	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}

	if refused(w, req.Model, present, failStatus, failMsg) {
		return
	}

	if replyFunc != nil {
		reply = replyFunc(req)
	}
	chunks := splitTokens(reply)
	doneReason := "stop"
	if n, ok := numPredict(req.Options); ok && n >= 0 && len(chunks) > n {
		chunks, doneReason = chunks[:n], "length"
	}

	start := time.Now()
	msg := func(content string) api.Message { return api.Message{Role: "assistant", Content: content} }
	final := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Done:       true,
		DoneReason: doneReason,
		Metrics: api.Metrics{
			PromptEvalCount: promptWords(req.Messages),
			EvalCount:       len(chunks),
		},
	}

	if req.Stream != nil && !*req.Stream {
		final.Message = msg(strings.Join(chunks, ""))
		final.TotalDuration = time.Since(start) + delay
		writeJSON(w, http.StatusOK, final)
		return
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w) // one object per line
	flusher, _ := w.(http.Flusher)
	for _, c := range chunks {
		if err := enc.Encode(api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg(c)}); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	final.Message = msg("")
	final.TotalDuration = time.Since(start) + delay
	_ = enc.Encode(final)
}

// numPredict reads options.num_predict, which arrives as a JSON number.
func numPredict(opts map[string]any) (int, bool) {
	switch v := opts["num_predict"].(type) {
	case float64:
		return int(v), true
	case int:
		return v, true
	}
	return 0, false
}

// splitTokens cuts text into "tokens": each word with the spaces after
// it, so that joining them gives the text back.
func splitTokens(text string) []string {
	var out []string
	start := 0
	inWord := false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t' || r == '\r'
		if !space && !inWord && i > start && strings.TrimSpace(text[start:i]) != "" {
			out = append(out, text[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func promptWords(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	names := append([]string(nil), s.models...)
	s.mu.Unlock()
	resp := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, n := range names {
		resp.Models = append(resp.Models, api.ListModelResponse{
			Name:       withTag(n),
			Model:      withTag(n),
			ModifiedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
			Size:       1 << 30,
			Digest:     fmt.Sprintf("%064x", len(n)),
			Details:    details(),
		})
	}
	writeJSON(w, http.StatusOK, resp)
}

func details() api.ModelDetails {
	return api.ModelDetails{Format: "gguf", Family: "stand-in", ParameterSize: "1B", QuantizationLevel: "Q4_0"}
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := cmp.Or(req.Model, req.Name)
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	s.mu.Lock()
	present := s.has(name)
	s.mu.Unlock()
	if !present {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Details:      details(),
		ModelInfo:    map[string]any{"general.architecture": "stand-in"},
		Capabilities: []model.Capability{model.CapabilityCompletion},
	})
}

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": Version})
}

// refused answers as Ollama does a request it will not serve — no model
// named, a model not pulled, or a failure the test set — and reports
// whether it did.
func refused(w http.ResponseWriter, model string, present bool, failStatus int, failMsg string) bool {
	switch {
	case model == "":
		writeError(w, http.StatusBadRequest, "model is required")
	case !present:
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", model))
	case failStatus != 0:
		writeError(w, failStatus, failMsg)
	default:
		return false
	}
	return true
}
