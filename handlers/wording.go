package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"frameindex/insight"
	"frameindex/narrate"
	"frameindex/state"
)

// Narrator words computed answers; *narrate.Client implements it.
type Narrator interface {
	Model() string
	Word(ctx context.Context, p narrate.Prompt, maxTokens int) (string, error)
}

// Allowance counts worded answers against an organisation's monthly
// allowance, then its credits, under the daily ceiling; *bolt.Store
// implements it (and state.ReserveStarter, which word uses when there).
// Each call is one transaction.
type Allowance interface {
	ReserveAnswer(orgID, keyID, requestID string, creditCost int64, now time.Time) (state.Reservation, error)
	CommitAnswer(r state.Reservation) error
	RefundAnswer(r state.Reservation, now time.Time) error
}

// Bounds of the wording step.
const (
	// wordingTimeout is the most the model may take; the request's own
	// budget, less wordingMargin for everything after, may cut it shorter.
	wordingTimeout = 20 * time.Second
	wordingMargin  = 2 * time.Second
	answerTokens   = 400
	reportTokens   = 900
)

// noticeNoAllowance is the answer's notice when nothing covers a worded
// answer (spec, Insight rule 3).
const noticeNoAllowance = "This answer is not worded: the organisation's monthly allowance of worded answers and its credits are spent (or today's ceiling is reached). The figures stand."

// wording is what the wording step adds to an answer: a narrative and the
// model that wrote it, or a notice, or nothing.
type wording struct {
	narrative string
	model     string
	report    bool
	notice    string
}

// word has the model put res into words, when a model is configured and
// something was computed: reserve a worded answer, call the model within
// the request's budget, check every number and the report's shape against
// the figures, then commit the reservation, or refund it when the model
// failed or its wording was discarded. The outcome is logged with its
// reason, never with the question.
func (s *Server) word(w http.ResponseWriter, r *http.Request, key state.Key, p insightParams, res insight.Insight) wording {
	if s.narrator == nil || res.Confidence == insight.ConfidenceUnknown || res.Headline == "" {
		return wording{}
	}
	now := s.now()
	// The reservation is decided before the model is called; its commit
	// runs while the model words, and nothing it pays for is shown (or
	// settled) before it is durable.
	rsv, reserved, err := state.StartReserveAnswer(s.allowance, key.OrgID, key.ID, requestIDOf(w), s.answerCredits, now)
	if errors.Is(err, state.ErrNoAllowance) {
		s.countWording(WordingNotWorded, WordingReasonNoAllowance)
		return wording{notice: noticeNoAllowance}
	}
	if err != nil {
		s.countWording(WordingNotWorded, WordingReasonStoreFailure)
		s.logWording(r, w, "reserve failed", err.Error())
		return wording{}
	}
	report := p.format == "report"
	text, reason, why := s.callModel(r.Context(), res, p, report)
	if err := reserved(); err != nil {
		// Not reserved after all: nothing to refund, nothing to show.
		s.countWording(WordingNotWorded, WordingReasonStoreFailure)
		s.logWording(r, w, "reserve failed", err.Error())
		return wording{}
	}
	kind := ""
	if reason == "" {
		if v := narrate.Verify(text, figuresOf(res, s.places()), report); !v.OK {
			reason, kind, why = "wording discarded: "+v.Reason, v.Kind, strings.ReplaceAll(v.Kind, " ", "_")
		}
	}
	if reason != "" {
		s.countWording(WordingDiscarded, why)
	}
	if reason != "" {
		if err := s.allowance.RefundAnswer(rsv, s.now()); err != nil {
			s.logWording(r, w, "refund failed", err.Error())
		}
		if kind != "" {
			// By kind, for counting; the reason names the number or place
			// as the wording wrote it, never the question.
			s.logger.LogAttrs(r.Context(), slog.LevelWarn, "wording: wording discarded",
				slog.String("id", requestIDOf(w)), slog.String("kind", kind), slog.String("reason", strings.TrimPrefix(reason, "wording discarded: ")))
			return wording{}
		}
		s.logWording(r, w, reason, "")
		return wording{}
	}
	if err := s.allowance.CommitAnswer(rsv); err != nil {
		// The reservation stays pending and is refunded at the next start:
		// do not show wording that was not counted.
		s.countWording(WordingDiscarded, WordingReasonStoreFailure)
		s.logWording(r, w, "commit failed", err.Error())
		return wording{}
	}
	s.countWording(WordingKept, "")
	return wording{narrative: strings.TrimSpace(text), model: s.narrator.Model(), report: report}
}

// callModel asks the model for the wording within the request's budget and
// returns it, or the reason it failed and that reason's metrics label.
func (s *Server) callModel(ctx context.Context, res insight.Insight, p insightParams, report bool) (text, reason, label string) {
	limit := wordingTimeout
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl)-wordingMargin)
	}
	if limit <= 0 {
		return "", "no time left for the model", WordingReasonNoTime
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tokens := answerTokens
	if report {
		tokens = reportTokens
	}
	text, err := s.narrator.Word(ctx, promptOf(res, p, report), tokens)
	if err != nil {
		return "", "model failed: " + err.Error(), WordingReasonModelFailed
	}
	return text, "", ""
}

// promptOf gives the model the computed figures only.
func promptOf(res insight.Insight, p insightParams, report bool) narrate.Prompt {
	pr := narrate.Prompt{Headline: res.Headline, Register: res.Register, Report: report}
	if pr.Register == "" {
		pr.Register = p.register
	}
	for _, f := range res.Facets {
		pr.Facets = append(pr.Facets, [2]string{f.Label, f.Value})
	}
	if res.Table != nil {
		pr.Table = append(pr.Table, res.Table.Columns)
		pr.Table = append(pr.Table, res.Table.Rows...)
	}
	for _, src := range res.Sources {
		name := src.LayerName
		if src.Label != "" {
			name += ": " + src.Label
		}
		pr.Sources = append(pr.Sources, name)
	}
	for _, f := range res.Figures {
		switch f.Kind {
		case insight.FigureID, insight.FigureName, insight.FigureRank:
			continue // ids and ranks are plain in the table
		}
		pr.Figures = append(pr.Figures, narrate.PromptFigure{Text: f.Text, Unit: f.Unit, Of: subjectWords(f.Subject), Label: f.Label})
	}
	return pr
}

// subjectWords says what a figure is of, for the model.
func subjectWords(subject string) string {
	switch {
	case subject == insight.SubjectSelection:
		return "the selection"
	case subject == insight.SubjectSubset:
		return "the frames meeting the condition"
	case subject == insight.SubjectDataset:
		return "the whole dataset, nationally"
	case strings.HasPrefix(subject, "value "):
		return "the frames with " + strings.TrimPrefix(subject, "value ")
	}
	return subject // "frame 433102007"
}

// figuresOf collects what the wording may state: the engine's typed
// figures (Insight.Figures: every number of the facets and table with its
// unit, subject, label and kind), the numbers of the headline, detail,
// labels, column names and sources read as sentences, and the place names
// among the facets of the administrative levels or anywhere else in the
// answer; known is every place name the service knows, against which
// invented ones are spotted. An answer without typed figures (built by
// hand) is read from its texts alone, table cells carrying the unit of
// length or area their column names ("Area (km²)").
func figuresOf(res insight.Insight, known []string) narrate.Figures {
	sentences := []string{res.Headline, res.Detail}
	var shown, places []string
	for _, f := range res.Facets {
		sentences = append(sentences, f.Label)
		shown = append(shown, f.Value)
		switch f.Label {
		case "State", "Local government area", "Ward":
			places = append(places, placeNames(f.Value)...)
		}
	}
	if res.Table != nil {
		sentences = append(sentences, res.Table.Columns...)
		units := make([]string, len(res.Table.Columns))
		for i, c := range res.Table.Columns {
			units[i] = columnUnit(c)
		}
		for _, row := range res.Table.Rows {
			for i, cell := range row {
				if len(res.Figures) == 0 && i < len(units) && units[i] != "" {
					cell += " " + units[i] // "0.85 km²": the verifier sees the unit
				}
				shown = append(shown, cell)
			}
		}
	}
	for _, src := range res.Sources {
		sentences = append(sentences, src.LayerName, src.Label)
	}
	all := append(append([]string{}, sentences...), shown...)
	all = append(all, res.FrameIDs...)
	// Any known place the answer itself names (a category value in a
	// headline or table: "frames with state Kano") may be named too.
	places = append(places, narrate.PlacesIn(all, known)...)
	if len(res.Figures) == 0 {
		return narrate.FiguresFrom(all, places, known)
	}
	f := narrate.Figures{Places: places, KnownPlaces: known, Frames: len(res.FrameIDs)}
	if res.Table != nil {
		f.Rows = len(res.Table.Rows)
	}
	names := map[string]bool{}
	for _, g := range res.Figures {
		if nf, ok := narrate.NewFigure(g.Text, g.Unit, g.Subject, g.Label, g.Kind); ok {
			f.Add(nf)
		}
		if g.Kind == insight.FigureNames {
			names[g.Label] = true
		}
	}
	// The values the answer names, so that a number said of one of them
	// ("rural frames hold 67%") is checked against what that value holds.
	for _, fc := range res.Facets {
		if names[fc.Label] {
			f.Values = append(f.Values, placeNames(fc.Value)...)
		}
	}
	if res.Table != nil {
		for _, row := range res.Table.Rows {
			for i, cell := range row {
				if i < len(res.Table.Columns) && res.Table.Columns[i] != "Name" && categoryCell(cell) {
					f.Values = append(f.Values, cell)
				}
			}
		}
	}
	f.AddSentences(sentences...)
	f.AddShown(shown...)
	return f
}

// categoryCell reports a table cell that is a category value ("rural",
// "Kano"): no digits, and not a placeholder.
func categoryCell(c string) bool {
	switch c {
	case "", "no record", "unnamed", "n/a", "Total", "Selection":
		return false
	}
	return !strings.ContainsAny(c, "0123456789")
}

// columnUnit is the unit of length or area a table column's header gives
// its cells ("Area (km²)", "Distance (km)"), "" when none.
func columnUnit(header string) string {
	i := strings.LastIndex(header, "(")
	if i < 0 || !strings.HasSuffix(header, ")") {
		return ""
	}
	u := header[i+1 : len(header)-1]
	if narrate.UnitAfter(u, 0) == "" {
		return ""
	}
	return u
}

// placeNames reads the names of a summarised facet value: "Kano, Jigawa
// (2 states)", "Kano, Jigawa, Katsina and 4 more (7 states)".
func placeNames(v string) []string {
	if i := strings.Index(v, " ("); i >= 0 {
		v = v[:i]
	}
	if i := strings.Index(v, " and "); i >= 0 {
		v = v[:i]
	}
	var out []string
	for _, n := range strings.Split(v, ", ") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func (s *Server) logWording(r *http.Request, w http.ResponseWriter, msg, detail string) {
	attrs := []slog.Attr{slog.String("id", requestIDOf(w))}
	if detail != "" {
		attrs = append(attrs, slog.String("error", detail))
	}
	s.logger.LogAttrs(r.Context(), slog.LevelWarn, "wording: "+msg, attrs...)
}
