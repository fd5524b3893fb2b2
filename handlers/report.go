package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"frameindex/insight"
	"frameindex/state"
)

// WordReport words a place report's figures (package report merges its
// engine answers into ins) as the question call words an answer of
// format "report": a worded answer reserved against the organisation's
// allowance, the model asked for the figures only, its wording checked
// against them (narrate.Verify) and kept only when the check passes, the
// reservation refunded otherwise. It returns "" without a model, when
// the allowance is spent, or when the wording was discarded; the report
// then shows the engine's sentences alone.
func (s *Server) WordReport(ctx context.Context, key state.Key, ins insight.Insight) string {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/console/report", nil)
	if err != nil {
		return ""
	}
	var id [8]byte
	rand.Read(id[:])
	w := &headerOnly{h: http.Header{"X-Request-Id": {"report-" + hex.EncodeToString(id[:])}}}
	return s.word(w, r, key, insightParams{format: "report"}, ins).narrative
}

// headerOnly is a ResponseWriter that keeps headers and drops the rest:
// the wording step reads the request id from it and writes nothing.
type headerOnly struct{ h http.Header }

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerOnly) WriteHeader(int)             {}
