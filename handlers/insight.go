package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"frameindex/access"
	"frameindex/area"
	"frameindex/insight"
	"frameindex/internal/jsonscan"
	"frameindex/plan"
	"frameindex/state"
)

// Limits of POST /v1/frames/insight (spec, Caps).
const (
	maxInsightBody   = 1 << 20 // bytes of request body
	maxInsightFrames = 50      // frameIds, counted before duplicates are removed
	maxQuestionRunes = 1000    // Unicode code points of question
)

// engineDeterministic is the engine of every answer this call gives until a
// model words them: the computed figures and sentence only.
const (
	engineDeterministic = "deterministic"
	engineLLM           = "llm"
)

// errEngineAnswer is the cause of a 500 when the engine's answer cannot be
// encoded (it holds a value JSON cannot carry).
var errEngineAnswer = errors.New("handlers: the insight engine's answer could not be encoded")

// handleFramesInsight answers POST /v1/frames/insight (spec; contract §4):
// a question about 1 to 50 frames, answered with figures the insight engine
// computes from the stored values of every dataset the key may read.
//
// The body is decoded strictly (see decodeInsightBody), then checked (see
// insightRaw.params). The frames are looked up in the grid; the known ones
// are read in one ReadFrames call without features (the engine needs the
// attributes and feature counts only), through the same checks as the data
// call (package access). With an Embedder, the question's content words
// and the measures are embedded for hybrid retrieval (see embed). A
// frames_nearest question then searches the features dataset it names on
// rings of frames around the selection (access.Answer.Nearest; names and
// properties only for a key with feature.read). The engine answers; the per-query datasets its
// figures used (Insight.Used) that recorded something on the frames are
// charged in one Charge call, as on the data call. Those the credits do not
// cover are removed from the inputs (from the datasets and from every
// frame) and the answer is computed again without them; should the new
// answer use per-query datasets not yet settled, they are charged in turn.
// The answer is {"data": Insight} with engine "deterministic", charged and
// leftOut as on the data call, and no null or empty optional member.
//
// Duplicated frameIds are answered once, in the order first asked; an id the
// grid does not hold reaches the engine as an unknown frame. Store failures,
// a store answer that breaks the DataStore contract, and a failed Charge are
// 500 internal; nothing is charged unless Charge itself succeeded, and never
// for a request whose deadline had passed.
func (s *Server) handleFramesInsight(w http.ResponseWriter, r *http.Request) {
	p, err := readInsightBody(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key, ok := principalOf(w, r)
	if !ok {
		s.writeError(w, r, errNoPrincipal)
		return
	}
	if p.area != nil {
		s.handleAreaInsight(w, r, key, p)
		return
	}

	ans, err := s.readDataAnswer(key, p.frameIDs, false)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	cat, err := s.catalogueFor(ans)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pl := plan.Parse(p.question, cat.cat)
	if hp := s.byMeaning(r, w, ans, p, cat); hp != nil {
		pl = hp
	}
	if p.register != "" {
		pl.Register = p.register
	}
	// A distance question reads the shared index of its features dataset.
	var near map[string]insight.Nearness
	if sc, ok := s.data.(scanner); ok {
		if near, err = ans.Near(pl, s.plans.reach, sc); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	in, err := ans.SelectionInput(access.Question{Text: p.question, Format: p.format, Register: p.register}, near)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	in.Places = cat.placeChecks(pl, &in)
	// "Where is the nearest clinic", "the 3 closest hospitals": the
	// features nearest the selection, found on rings of frames around it
	// (names and properties only for a key with feature.read).
	if pl.Agg == plan.AggNearest && pl.Distance != nil && pl.Distance.List > 0 {
		ix := s.frames()
		if ix == nil {
			s.writeError(w, r, errNoGrid)
			return
		}
		if in.Nearest, err = ans.Nearest(s.data, ix, pl.Distance.Feature, pl.Distance.List, key.Has(state.CapFeatureRead)); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	// Charge what the figures used; recompute without what was left out.
	res, err := ans.AskPlan(r.Context(), s.data, key, requestIDOf(w), s.now(), in, func(in *insight.Input) *insight.Answer {
		return s.compute(pl, in)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeAnswer(w, r, key, p, res, pl, ans)
}

// writeAnswer counts the charges of a computed answer, words it and
// writes it.
func (s *Server) writeAnswer(w http.ResponseWriter, r *http.Request, key state.Key, p insightParams,
	res *insight.Answer, pl *plan.Plan, ans *access.Answer) {
	s.countCharges(ans)
	wd := s.word(w, r, key, p, res.Insight)
	body, err := encodeInsight(res, pl, ans, wd)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// insightParams is a checked question body.
type insightParams struct {
	frameIDs []uint64   // in the order first asked, each once
	area     *area.Spec // instead of frameIDs
	question string
	format   string // "answer" or "report"
	register string // "", "plain" or "gis"
}

// insightRaw is a question body as decoded, before its values are checked.
// A nil pointer (or nil FrameIDs) is an absent member.
type insightRaw struct {
	FrameIDs []string // non-nil when present, even if empty
	Area     json.RawMessage
	Question *string
	Format   *string
	Register *string
}

// The members of the question body, for messages.
const insightMembers = "frameIds (or area), question, format and register"

// bodyExample shows the smallest valid body in messages.
const bodyExample = `{"frameIds":["4406402"]}`

// readInsightBody checks the request's Content-Type and decodes and checks
// its body (at most maxInsightBody bytes). Errors are invalid_body, invalid
// or too_long, with a message that names the member at fault.
func readInsightBody(w http.ResponseWriter, r *http.Request) (insightParams, error) {
	if err := checkJSONContentType(r.Header.Values("Content-Type")); err != nil {
		return insightParams{}, err
	}
	raw, err := decodeInsightBody(http.MaxBytesReader(w, r.Body, maxInsightBody))
	if err != nil {
		return insightParams{}, err
	}
	return raw.params()
}

// checkJSONContentType accepts no Content-Type, or one application/json
// (case-insensitive, parameters allowed, a charset only if UTF-8, the only
// encoding of JSON, RFC 8259). Anything else is invalid_body.
func checkJSONContentType(vals []string) error {
	if len(vals) == 0 {
		return nil
	}
	if len(vals) > 1 {
		return newError(codeInvalidBody, "send one Content-Type header, application/json")
	}
	mt, params, err := mime.ParseMediaType(vals[0])
	if err != nil {
		return newError(codeInvalidBody, "the Content-Type "+quoteInput(vals[0])+" is not a media type; the body is JSON: send Content-Type: application/json")
	}
	if mt != "application/json" {
		return newError(codeInvalidBody, "the body must be JSON sent as Content-Type: application/json, not "+quoteInput(mt))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return newError(codeInvalidBody, "the body must be UTF-8 JSON; the Content-Type names charset "+quoteInput(cs))
	}
	return nil
}

// decodeInsightBody decodes a question body strictly: exactly one JSON
// object and nothing after it but white space; members named exactly
// (case-sensitive) frameIds, area, question, format or register, each at most
// once; frameIds an array of strings, the others strings; no null. Every
// breach is invalid_body, naming the member when there is one; a body
// over the reader's limit (an *http.MaxBytesError) too. It does not check
// the values (see insightRaw.params).
func decodeInsightBody(body io.Reader) (insightRaw, error) {
	var raw insightRaw
	dec := json.NewDecoder(body)
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return raw, newError(codeInvalidBody, "the body is empty: send a JSON object such as "+bodyExample)
		}
		return raw, bodyError(err, "")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return raw, newError(codeInvalidBody, "the body must be a JSON object such as "+bodyExample+"; it is "+jsonscan.TokenKind(tok).String())
	}
	var seen [5]bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return raw, bodyError(err, "")
		}
		name, _ := tok.(string) // a key inside an object is always a string
		slot := slices.Index([]string{"frameIds", "question", "format", "register", "area"}, name)
		if slot < 0 {
			return raw, newError(codeInvalidBody, "the body has an unknown member "+quoteInput(name)+"; its members are "+insightMembers)
		}
		if seen[slot] {
			return raw, newError(codeInvalidBody, "the body has the member "+name+" twice; give it once")
		}
		seen[slot] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return raw, bodyError(err, name)
		}
		v = bytes.TrimLeft(v, " \t\r\n")
		if name == "area" {
			raw.Area = v
			continue
		}
		if name == "frameIds" {
			if raw.FrameIDs, err = decodeFrameIDs(v); err != nil {
				return raw, err
			}
			continue
		}
		str, err := decodeString(name, v)
		if err != nil {
			return raw, err
		}
		switch name {
		case "question":
			raw.Question = &str
		case "format":
			raw.Format = &str
		default:
			raw.Register = &str
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return raw, bodyError(err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return raw, bodyError(err, "")
		}
		return raw, newError(codeInvalidBody, "the body holds more after its JSON object; send exactly one object")
	}
	return raw, nil
}

// decodeFrameIDs decodes the value of frameIds: an array of strings.
func decodeFrameIDs(v json.RawMessage) ([]string, error) {
	if len(v) == 0 || v[0] != '[' {
		return nil, newError(codeInvalidBody, `frameIds must be an array of frame ids as strings, e.g. ["4406402"]; it is `+jsonscan.KindOf(v).String())
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(v, &elems); err != nil {
		return nil, bodyError(err, "frameIds") // cannot happen: the decoder checked v
	}
	ids := make([]string, len(elems))
	for i, e := range elems {
		e = bytes.TrimLeft(e, " \t\r\n")
		if len(e) == 0 || e[0] != '"' {
			return nil, newError(codeInvalidBody, "frameIds["+strconv.Itoa(i)+`] must be a frame id as a string, e.g. "4406402"; it is `+jsonscan.KindOf(e).String())
		}
		if err := json.Unmarshal(e, &ids[i]); err != nil {
			return nil, bodyError(err, "frameIds")
		}
	}
	return ids, nil
}

// decodeString decodes the value of a string member.
func decodeString(name string, v json.RawMessage) (string, error) {
	if len(v) == 0 || v[0] != '"' {
		return "", newError(codeInvalidBody, name+" must be a string; it is "+jsonscan.KindOf(v).String())
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", bodyError(err, name)
	}
	return s, nil
}

// bodyError turns an error of reading or parsing the body into
// invalid_body, naming member when it is not "".
func bodyError(err error, member string) error {
	where := "the body"
	if member != "" {
		where = "the value of " + member
	}
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &mbe):
		return newError(codeInvalidBody, "the body is over 1 MiB ("+strconv.Itoa(maxInsightBody)+" bytes); send at most 50 frame ids and a question of at most 1,000 characters")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newError(codeInvalidBody, where+" ends before its JSON is complete")
	case errors.As(err, &se):
		return newError(codeInvalidBody, where+" is not valid JSON at byte offset "+strconv.FormatInt(se.Offset, 10)+": "+se.Error())
	}
	return newError(codeInvalidBody, "the body could not be read completely")
}

// params checks the decoded values (contract §4) in the order frameIds,
// question, format, register: frameIds required, 1 to 50 ids counted before
// duplicates are removed, each 1 to 20 ASCII digits fitting 64 bits
// (invalid); question at most 1,000 code points (too_long); format
// "answer" (the default) or "report", register "plain" or "gis" (invalid
// otherwise, an empty string included). The ids are returned in the order
// first asked, each once.
func (raw insightRaw) params() (insightParams, error) {
	p := insightParams{format: "answer"}
	switch n := len(raw.FrameIDs); {
	case raw.Area != nil && raw.FrameIDs != nil:
		return p, newError(codeInvalid, "give frameIds or area, not both: frameIds picks up to "+strconv.Itoa(maxInsightFrames)+" frames, area names a place, a box, a polygon or a ring")
	case raw.Area != nil:
		spec, err := area.Decode(raw.Area)
		if err != nil {
			return p, areaError(err)
		}
		p.area = &spec
	case raw.FrameIDs == nil:
		return p, newError(codeInvalid, "frameIds is required: give 1 to "+strconv.Itoa(maxInsightFrames)+" frame ids as strings, e.g. "+bodyExample+`, or an area such as {"area":`+area.Example+"}")
	case n == 0:
		return p, newError(codeInvalid, "frameIds is empty: give 1 to "+strconv.Itoa(maxInsightFrames)+" frame ids as strings, e.g. "+bodyExample)
	case n > maxInsightFrames:
		return p, newError(codeInvalid, "frameIds lists "+strconv.Itoa(n)+" ids; at most "+strconv.Itoa(maxInsightFrames)+" are allowed")
	}
	if p.area == nil {
		p.frameIDs = make([]uint64, 0, len(raw.FrameIDs))
	}
	for _, s := range raw.FrameIDs {
		id, ok := parseID(s)
		if !ok {
			return p, newError(codeInvalid, "frameIds entry "+quoteInput(s)+" is not a frame id: ids are whole numbers of 1 to 20 digits, at most "+strconv.FormatUint(math.MaxUint64, 10))
		}
		if !slices.Contains(p.frameIDs, id) {
			p.frameIDs = append(p.frameIDs, id)
		}
	}
	if raw.Question != nil {
		if n := utf8.RuneCountInString(*raw.Question); n > maxQuestionRunes {
			return p, newError(codeTooLong, "question is "+groupThousands(n)+" characters long; at most 1,000 are allowed")
		}
		p.question = *raw.Question
	}
	if raw.Format != nil {
		if f := *raw.Format; f != "answer" && f != "report" {
			return p, newError(codeInvalid, `format must be "answer" or "report"; got `+quoteInput(f))
		}
		p.format = *raw.Format
	}
	if raw.Register != nil {
		if g := *raw.Register; g != "plain" && g != "gis" {
			return p, newError(codeInvalid, `register must be "plain" or "gis"; got `+quoteInput(g))
		}
		p.register = *raw.Register
	}
	return p, nil
}

// groupThousands formats n with comma thousands separators.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// insightJSON is the data of a question answer: the spec's members and
// two extensions, plan (how the question was read) and result (the
// primary figure unrounded).
type insightJSON struct {
	insight.Insight
	Narrative string          `json:"narrative,omitempty"`
	Engine    string          `json:"engine"`
	Model     string          `json:"model,omitempty"`
	Notice    string          `json:"notice,omitempty"`
	Charged   []string        `json:"charged,omitempty"`
	LeftOut   []leftOutJSON   `json:"leftOut,omitempty"`
	Plan      *planJSON       `json:"plan,omitempty"`
	Result    *insight.Result `json:"result,omitempty"`
	Area      *area.Area      `json:"area,omitempty"` // what an area question's area resolved to
}

// planJSON is the plan member: the plan as the parser wrote it, the
// meaning-bearing words it did not read, and the plan in plain words.
// Empty members are left out, as everywhere in an answer.
type planJSON struct {
	plan   *plan.Plan
	unread []string
	readAs string
}

// MarshalJSON writes the plan's members, then unread and readAs.
func (pj *planJSON) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(pj.plan)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		if s := string(v); s == "[]" || s == "null" || s == `""` || s == "{}" {
			delete(m, k)
		}
	}
	if len(pj.unread) > 0 {
		m["unread"], _ = json.Marshal(pj.unread)
	}
	if pj.readAs != "" {
		m["readAs"], _ = json.Marshal(pj.readAs)
	}
	return json.Marshal(m)
}

// leftOutJSON is an entry of leftOut, as on the data call.
type leftOutJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// encodeInsight returns the whole response body for res: {"data": ...}
// with engine "deterministic", and charged and leftOut from ans's state in
// ascending id. Optional members are omitted when empty, never null: a
// table without columns is dropped and its missing rows become [], and
// format is dropped: it describes a narrative, which this answer lacks.
func encodeInsight(ans0 *insight.Answer, pl *plan.Plan, ans *access.Answer, wd wording) ([]byte, error) {
	return marshalData(insightBody(ans0, pl, ans, wd))
}

// insightBody is the data of a question answer (see encodeInsight).
func insightBody(ans0 *insight.Answer, pl *plan.Plan, ans *access.Answer, wd wording) insightJSON {
	res := ans0.Insight
	out := insightJSON{Insight: res, Engine: engineDeterministic, Notice: wd.notice}
	if r := &ans0.Result; r.Value != nil || len(r.Frames) > 0 || len(r.Groups) > 0 {
		out.Result = r
	}
	if pl != nil {
		readAs := ans0.ReadAs
		if readAs == "" {
			readAs = pl.Describe(len(res.FrameIDs))
		}
		out.Plan = &planJSON{plan: pl, unread: pl.Unread(), readAs: readAs}
	}
	// The spec puts format "report" on an answer whose narrative is a
	// sectioned report; a deterministic answer has no narrative at all.
	out.Format = ""
	if wd.narrative != "" {
		out.Narrative, out.Engine, out.Model = wd.narrative, engineLLM, wd.model
		if wd.report {
			out.Format = "report"
		}
	}
	if t := out.Table; t != nil {
		if len(t.Columns) == 0 {
			out.Table = nil
		} else if t.Rows == nil || slices.ContainsFunc(t.Rows, func(row []string) bool { return row == nil }) {
			rows := make([][]string, len(t.Rows))
			for i, row := range t.Rows {
				rows[i] = row
				if row == nil {
					rows[i] = []string{}
				}
			}
			out.Table = &insight.Table{Columns: t.Columns, Rows: rows}
		}
	}
	for i, st := range ans.State {
		d := &ans.Access[i].Dataset
		if st.Charged {
			out.Charged = append(out.Charged, d.ID)
		}
		if st.LeftOut {
			out.LeftOut = append(out.LeftOut, leftOutJSON{ID: d.ID, Name: d.Name, Reason: reasonInsufficientCredits})
		}
	}
	return out
}

// marshalData is the whole response body {"data": v}.
func marshalData(v any) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(2048)
	b.WriteString(dataPrefix)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", errEngineAnswer, err)
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteString(dataSuffix)
	return b.Bytes(), nil
}

// byMeaning reads the question again with the vectors of the server's
// Embedder (hybrid retrieval, plan.ParseWith): words no catalogue term
// reaches may then name a measure by meaning, which the plan marks as
// matched by "embedding" (so the answer is partial, retrieval hybrid).
// It returns nil when no vectors could be had (the lexical plan stands).
func (s *Server) byMeaning(r *http.Request, w http.ResponseWriter, ans *access.Answer, p insightParams,
	cat *catalogue) *plan.Plan {
	// Embedded on every question, as the measures of a new dataset version
	// are best embedded before a question needs them (both are cached).
	emb := s.embed(r, w, ans, p.question, cat)
	if emb == nil {
		return nil
	}
	return plan.ParseWith(p.question, cat.cat, emb)
}

// Embedder embeds texts; *narrate.Client implements it. Embed returns one
// vector per text, in order, and must be safe for concurrent use.
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// embedTimeout bounds one embedding call; the request's budget, less
// wordingMargin, may cut it shorter. A call that fails leaves the question
// to lexical retrieval.
const embedTimeout = 5 * time.Second

// Bounds of the embedding cache: question texts kept (the cache is emptied
// when full), and measures kept per dataset version.
const (
	maxCachedTexts = 4096
)

// embedCache holds embeddings: the measures' by dataset version (computed
// once per version, dropped when a new version is seen), and recent
// question texts'. Safe for concurrent use.
type embedCache struct {
	mu       sync.Mutex
	model    string
	datasets map[string]*versionVectors // by dataset id
	texts    map[string][]float32
}

// versionVectors are one dataset version's measure vectors, by
// MeasureText (which names the attribute).
type versionVectors struct {
	version int
	vectors map[string][]float32
}

func newEmbedCache() *embedCache {
	return &embedCache{datasets: map[string]*versionVectors{}, texts: map[string][]float32{}}
}

// lookup fills emb with what the cache holds for the measures and texts,
// and returns what it lacks. Vectors of another model are dropped first.
func (c *embedCache) lookup(model string, measures []measureText, texts []string, emb *plan.Embeddings) (missM []measureText, missT []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.model != model {
		c.model, c.datasets, c.texts = model, map[string]*versionVectors{}, map[string][]float32{}
	}
	for _, m := range measures {
		vv := c.datasets[m.dataset]
		if vv == nil || vv.version != m.version {
			vv = &versionVectors{version: m.version, vectors: map[string][]float32{}}
			c.datasets[m.dataset] = vv
		}
		if v, ok := vv.vectors[m.text]; ok {
			emb.Measures[m.id] = v
		} else {
			missM = append(missM, m)
		}
	}
	for _, t := range texts {
		if v, ok := c.texts[t]; ok {
			emb.Texts[t] = v
		} else {
			missT = append(missT, t)
		}
	}
	return missM, missT
}

// store keeps new vectors.
func (c *embedCache) store(model string, measures []measureText, mv [][]float32, texts []string, tv [][]float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.model != model {
		return
	}
	for i, m := range measures {
		if vv := c.datasets[m.dataset]; vv != nil && vv.version == m.version {
			vv.vectors[m.text] = mv[i]
		}
	}
	if len(c.texts)+len(texts) > maxCachedTexts {
		c.texts = map[string][]float32{}
	}
	for i, t := range texts {
		c.texts[t] = tv[i]
	}
}

// measureText is one readable attribute's MeasureText and where it comes
// from.
type measureText struct {
	dataset string
	version int
	id      string // "dataset.attribute"
	text    string
}

// embed returns hybrid retrieval's vectors when the server has an
// Embedder: the MeasureText of every readable attribute (from the cache,
// computed once per dataset version) and the question's plan.EmbedTexts,
// the missing ones in one Embed call within embedTimeout. A failed call
// is logged and returns nil (lexical retrieval); the question's words
// are never logged.
func (s *Server) embed(r *http.Request, w http.ResponseWriter, ans *access.Answer, question string, cat *catalogue) *plan.Embeddings {
	if s.embedder == nil {
		return nil
	}
	var measures []measureText
	for i := range ans.Access {
		if ans.State[i].LeftOut {
			continue
		}
		d := &ans.Access[i].Dataset
		ds := insight.Dataset{ID: d.ID, Name: d.Name, Description: d.Description}
		for _, at := range d.Attributes {
			if at.Name == "" {
				continue
			}
			a := insight.Attribute{Name: at.Name, Label: at.Label, Unit: at.Unit, Type: at.Type,
				Aggregation: at.Aggregation, Year: at.Year, Aliases: at.Aliases}
			measures = append(measures, measureText{dataset: d.ID, version: d.Version, id: d.ID + "." + at.Name,
				text: insight.MeasureText(ds, a)})
		}
	}
	if len(measures) == 0 {
		return nil
	}
	texts := plan.EmbedTexts(question, cat.cat)
	emb := &plan.Embeddings{Texts: map[string][]float32{}, Measures: map[string][]float32{}}
	model := s.embedder.Model()
	missM, missT := s.embeddings.lookup(model, measures, texts, emb)
	if len(missM)+len(missT) > 0 {
		ctx := r.Context()
		limit := embedTimeout
		if dl, ok := ctx.Deadline(); ok {
			limit = min(limit, time.Until(dl)-wordingMargin)
		}
		if limit <= 0 {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		in := make([]string, 0, len(missM)+len(missT))
		for _, m := range missM {
			in = append(in, m.text)
		}
		in = append(in, missT...)
		vecs, err := s.embedder.Embed(ctx, in)
		if err == nil && len(vecs) != len(in) {
			err = errors.New("the embedder returned " + strconv.Itoa(len(vecs)) + " vectors for " + strconv.Itoa(len(in)) + " texts")
		}
		if err != nil {
			s.logger.LogAttrs(r.Context(), slog.LevelWarn, "embedding failed: measures matched lexically",
				slog.String("id", requestIDOf(w)), slog.String("error", err.Error()))
			return nil
		}
		s.embeddings.store(model, missM, vecs[:len(missM)], missT, vecs[len(missM):])
		for i, m := range missM {
			emb.Measures[m.id] = vecs[i]
		}
		for i, t := range missT {
			emb.Texts[t] = vecs[len(missM)+i]
		}
	}
	return emb
}
