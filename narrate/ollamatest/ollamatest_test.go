package ollamatest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestProtocol(t *testing.T) {
	s := NewServer()
	defer s.Close()
	s.SetReply("About 12,000 people live here.")

	// Streamed (the default): NDJSON, done false chunks then one done true.
	resp, body := post(t, s.URL()+"/api/chat", `{"model":"stand-in","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var text strings.Builder
	var lines []api.ChatResponse
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var r api.ChatResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, r)
		text.WriteString(r.Message.Content)
	}
	if len(lines) != 6 || text.String() != "About 12,000 people live here." {
		t.Fatalf("stream: %d lines, text %q", len(lines), text.String())
	}
	for i, r := range lines {
		if r.Done != (i == len(lines)-1) || r.Message.Role != "assistant" {
			t.Errorf("line %d: done %v role %q", i, r.Done, r.Message.Role)
		}
	}
	if last := lines[len(lines)-1]; last.DoneReason != "stop" || last.EvalCount != 5 {
		t.Errorf("final: %+v", last)
	}

	// Not streamed: one object; num_predict cuts it.
	resp, body = post(t, s.URL()+"/api/chat", `{"model":"stand-in:latest","stream":false,"options":{"num_predict":2},"messages":[]}`)
	var one api.ChatResponse
	if err := json.Unmarshal([]byte(body), &one); err != nil || resp.StatusCode != 200 {
		t.Fatalf("non-stream: %d %v %q", resp.StatusCode, err, body)
	}
	if !one.Done || one.DoneReason != "length" || one.Message.Content != "About 12,000 " {
		t.Errorf("non-stream: %+v", one)
	}

	// Failure and missing model.
	s.SetFail(503, "busy")
	if resp, body = post(t, s.URL()+"/api/chat", `{"model":"stand-in"}`); resp.StatusCode != 503 || !strings.Contains(body, `"error":"busy"`) {
		t.Errorf("fail: %d %s", resp.StatusCode, body)
	}
	if resp, body = post(t, s.URL()+"/api/show", `{"model":"nope"}`); resp.StatusCode != 404 || strings.TrimSpace(body) != `{"error":"model 'nope' not found"}` {
		t.Errorf("show missing: %d %s", resp.StatusCode, body)
	}
	if resp, _ = post(t, s.URL()+"/api/show", `{"model":"stand-in"}`); resp.StatusCode != 200 {
		t.Errorf("show present: %d", resp.StatusCode)
	}
	if got := len(s.Requests()); got != 3 {
		t.Errorf("requests: %d, want 3", got)
	}

	r, err := http.Get(s.URL() + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	var list api.ListResponse
	err = json.NewDecoder(r.Body).Decode(&list)
	r.Body.Close()
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != DefaultModel {
		t.Errorf("tags: %v %+v", err, list)
	}
}
