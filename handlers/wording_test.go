package handlers

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/insight"
	"frameindex/narrate"
	"frameindex/narrate/ollamatest"
)

// fakeAllowance records what the wording step reserved, committed and
// refunded; reserveErr makes every reservation fail with it.
type fakeAllowance struct {
	mu         sync.Mutex
	reserveErr error
	reserved   []bolt.Reservation
	committed  []uint64
	refunded   []uint64
}

func (a *fakeAllowance) ReserveAnswer(orgID, keyID, requestID string, cost int64, now time.Time) (bolt.Reservation, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reserveErr != nil {
		return bolt.Reservation{}, a.reserveErr
	}
	r := bolt.Reservation{ID: uint64(len(a.reserved) + 1), OrgID: orgID, KeyID: keyID, RequestID: requestID, Credits: cost}
	a.reserved = append(a.reserved, r)
	return r, nil
}

func (a *fakeAllowance) CommitAnswer(r bolt.Reservation) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.committed = append(a.committed, r.ID)
	return nil
}

func (a *fakeAllowance) RefundAnswer(r bolt.Reservation, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refunded = append(a.refunded, r.ID)
	return nil
}

// fixedAnswer is the computed answer every question gets in these tests.
func fixedAnswer(insight.Request) insight.Insight {
	return insight.Insight{
		Intent: "frames_attribute", Confidence: "exact", Register: "plain", Retrieval: "none",
		Headline: "The 2 selected frames have an estimated population of 12,345 (2020).",
		Facets: []insight.Facet{{Label: "Total estimated population (2020)", Value: "12,345 people"},
			{Label: "State", Value: "Kano"}},
		FrameIDs: []string{"1", "2"},
	}
}

func wordingServer(t *testing.T, model *ollamatest.Server, allow *fakeAllowance, timeout time.Duration) *Server {
	t.Helper()
	client, err := narrate.NewClient(model.URL(), ollamatest.DefaultModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{
		Frames: func() FrameIndex { return abuja }, Keys: func() KeyLookup { return dataKeys },
		Data: insightStore(10).fake(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Narrator: client, Allowance: allow, RequestTimeout: timeout,
		Places: func() []string { return []string{"Kaduna", "Kano", "Lagos"} },
	})
	s.answer = fixedAnswer
	return s
}

type wordedAnswer struct {
	Headline, Narrative, Engine, Model, Notice, Format string
}

func askWorded(t *testing.T, s *Server, body string) wordedAnswer {
	t.Helper()
	r := newInsightRequest(body, secretAskOnly, "application/json")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	_, router := loadOpenAPI(t)
	// A fresh request: the server has read the first one's body.
	if err := validateResponse(t, router, newInsightRequest(body, secretAskOnly, "application/json"), w, true); err != nil {
		t.Fatalf("the answer does not match the OpenAPI document: %v\n%s", err, w.Body)
	}
	var env struct{ Data wordedAnswer }
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

func TestServer_Wording(t *testing.T) {
	body := `{"frameIds":` + idsJSON(2) + `,"question":"population"}`
	report := `{"frameIds":` + idsJSON(2) + `,"question":"population","format":"report"}`
	tests := []struct {
		name       string
		body       string
		reply      string
		fail       int
		delay      time.Duration
		reserveErr error
		engine     string
		notice     bool
		committed  int
		refunded   int
	}{
		{"kept", body, "About 12,000 people live in the 2 frames of Kano (2020 estimate).", 0, 0, nil, "llm", false, 1, 0},
		{"one wrong number", body, "About 13,500 people live in the 2 frames.", 0, 0, nil, "deterministic", false, 0, 1},
		{"an invented place", body, "The 2 frames in Kaduna hold 12,345 people.", 0, 0, nil, "deterministic", false, 0, 1},
		{"model fails", body, "", 500, 0, nil, "deterministic", false, 0, 1},
		{"model slower than the budget", body, "12,345 people.", 0, 10 * time.Second, nil, "deterministic", false, 0, 1},
		{"report kept", report, "## Population\n\n- 12,345 people live in the 2 selected frames (2020).", 0, 0, nil, "llm", false, 1, 0},
		{"report without sections", report, "12,345 people live in the 2 selected frames.", 0, 0, nil, "deterministic", false, 0, 1},
		{"allowance and credits spent", body, "12,345 people.", 0, 0, bolt.ErrNoAllowance, "deterministic", true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model := ollamatest.NewServer()
			defer model.Close()
			model.SetReply(tc.reply)
			if tc.fail != 0 {
				model.SetFail(tc.fail, "out of memory")
			}
			model.SetDelay(tc.delay)
			allow := &fakeAllowance{reserveErr: tc.reserveErr}
			s := wordingServer(t, model, allow, 3*time.Second)
			start := time.Now()
			a := askWorded(t, s, tc.body)
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("answer took %v, beyond the request budget", took)
			}
			if a.Engine != tc.engine || (a.Notice != "") != tc.notice {
				t.Fatalf("engine %q notice %q: %+v", a.Engine, a.Notice, a)
			}
			if tc.engine == "llm" {
				if a.Narrative == "" || a.Model != ollamatest.DefaultModel {
					t.Fatalf("worded answer without narrative or model: %+v", a)
				}
				if strings.HasPrefix(tc.body, report[:20]) && strings.Contains(tc.body, "report") != (a.Format == "report") {
					t.Fatalf("format %q", a.Format)
				}
			} else if a.Narrative != "" || a.Model != "" || a.Format != "" {
				t.Fatalf("deterministic answer carries wording: %+v", a)
			}
			if a.Headline == "" {
				t.Fatal("no headline")
			}
			if len(allow.committed) != tc.committed || len(allow.refunded) != tc.refunded {
				t.Fatalf("committed %v refunded %v", allow.committed, allow.refunded)
			}
			// The model never sees the question's text.
			for _, req := range model.Requests() {
				for _, m := range req.Messages {
					if strings.Contains(m.Content, `"population"`) {
						t.Fatalf("the question reached the model: %q", m.Content)
					}
				}
			}
		})
	}
}
