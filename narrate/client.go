package narrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// ErrModel is wrapped by every error of Client: the model could not be
// reached, is not present, failed, ran out of time or gave no usable
// wording. Whatever the cause, the answer stays deterministic.
var ErrModel = errors.New("narrate: model")

// DefaultHost is the Ollama address used when the host given is empty, as
// Ollama itself does for an unset OLLAMA_HOST.
const DefaultHost = "http://127.0.0.1:11434"

// Client words computed answers with one Ollama model over its HTTP API
// (/api/chat through github.com/ollama/ollama/api). It holds no state
// between calls and is safe for concurrent use.
type Client struct {
	api   *api.Client
	host  string // the base URL, for messages
	model string
	// stream asks Ollama for NDJSON chunks instead of one response; the
	// reply is the same, collected. Off in production (one response is
	// simpler to bound); tests set it to cover both paths.
	stream bool
}

// NewClient returns a Client for model at host. host is read as Ollama
// reads OLLAMA_HOST: "http://127.0.0.1:11434", "127.0.0.1:11434",
// "localhost" (port 11434), "https://example.org" (port 443), "[::1]:11434";
// empty means DefaultHost. httpClient may be nil (http.DefaultClient); it
// should carry no timeout of its own, as each call's context sets the time
// limit. NewClient makes no network call: use Check to see whether the
// model is reachable.
func NewClient(host string, model string, httpClient *http.Client) (*Client, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, fmt.Errorf("%w: no model name given", ErrModel)
	}
	base, err := ParseHost(host)
	if err != nil {
		return nil, err
	}
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &Client{api: api.NewClient(base, httpClient), host: base.String(), model: model}, nil
}

// ParseHost reads an Ollama address the way Ollama reads OLLAMA_HOST
// (envconfig.Host): no scheme means http and port 11434; "http://" without
// a port means port 80, "https://" port 443; a path is kept. Unlike
// Ollama, which falls back to defaults with a warning, it refuses a bad
// port or a scheme other than http and https.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultHost
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("%w: Ollama host %q: scheme must be http or https", ErrModel, s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		host = "127.0.0.1" // ":11434", as Ollama's own server reads it
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("%w: Ollama host %q: bad port %q", ErrModel, s, port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}

// Model is the model name the Client asks for.
func (c *Client) Model() string { return c.model }

// Host is the Ollama base URL the Client talks to.
func (c *Client) Host() string { return c.host }

// Check reports whether Ollama answers at the host and holds the model,
// for the start-up log. The error names the host, and for a missing model
// says how to pull it. ctx sets the time limit.
func (c *Client) Check(ctx context.Context) error {
	if _, err := c.api.Version(ctx); err != nil {
		return fmt.Errorf("%w: Ollama is not reachable at %s: %w", ErrModel, c.host, err)
	}
	_, err := c.api.Show(ctx, &api.ShowRequest{Model: c.model})
	var se api.StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: model %s is not present at %s; run `ollama pull %s`", ErrModel, c.model, c.host, c.model)
	default:
		return fmt.Errorf("%w: checking model %s at %s: %w", ErrModel, c.model, c.host, err)
	}
}

// Registers a Prompt may ask for.
const (
	RegisterPlain = "plain" // everyday words
	RegisterGIS   = "gis"   // precise GIS terms
)

// Prompt is what the model is given to word: the computed figures of one
// answer, the register and the format. Everything in it may appear in the
// wording, so the Figures the wording is verified against should be built
// from the same texts (FiguresFrom), Sources included if they hold numbers.
//
// There is deliberately no field for the user's question. The figures
// already carry what was asked (the headline and facets answer it), and a
// question is free text that may identify a person; keeping it out of the
// prompt keeps it out of the model's context, its logs and the wording.
type Prompt struct {
	Headline string
	Facets   [][2]string // label, value
	Table    [][]string  // first row: column names
	Sources  []string
	// Figures say what each number of the facets and table is: its unit,
	// what it is of, and where it is shown. Optional.
	Figures  []PromptFigure
	Register string // RegisterPlain (or empty) or RegisterGIS
	Report   bool   // "## " section titles and "- " list items
}

// PromptFigure is one figure as the model is told it: the number as shown,
// what it counts or measures ("people", "km²", "% of frames"), what it is
// of ("the selection", "frame 433102007", "the frames with Kano") and the
// facet or column it is shown under.
type PromptFigure struct {
	Text, Unit, Of, Label string
}

// Word asks the model to word p and returns the wording, trimmed, not yet
// verified: pass it to Verify before showing it. It makes one /api/chat
// call at temperature 0 with at most maxTokens tokens generated (Ollama's
// num_predict) and thinking off; ctx sets the time limit and the caller
// must set one. A reply cut at maxTokens, an empty reply, a reply that did
// not finish, or any failure is an error wrapping ErrModel.
func (c *Client) Word(ctx context.Context, p Prompt, maxTokens int) (string, error) {
	if maxTokens <= 0 {
		return "", fmt.Errorf("%w: maxTokens must be positive, got %d", ErrModel, maxTokens)
	}
	system, err := SystemMessage(p.Register, p.Report)
	if err != nil {
		return "", err
	}
	stream := c.stream
	req := &api.ChatRequest{
		Model: c.model,
		Messages: []api.Message{
			{Role: "system", Content: system},
			{Role: "user", Content: UserMessage(p)},
		},
		Stream: &stream,
		// A thinking model would otherwise spend the token budget and the
		// time limit reasoning before it writes; false is accepted by
		// models that cannot think.
		Think: &api.ThinkValue{Value: false},
		Options: map[string]any{
			"temperature": 0,
			"num_predict": maxTokens,
		},
	}
	var (
		b          strings.Builder
		done       bool
		doneReason string
	)
	err = c.api.Chat(ctx, req, func(r api.ChatResponse) error {
		b.WriteString(r.Message.Content)
		if r.Done {
			done, doneReason = true, r.DoneReason
		}
		return nil
	})
	if err == nil && !done {
		// api.Client stops reading quietly when the body breaks off (a
		// cancelled context included), so a reply without its final
		// "done" is an unfinished one.
		err = errors.New("the reply ended before it was done")
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%w)", cerr, err)
		}
		return "", fmt.Errorf("%w: %s at %s: %w", ErrModel, c.model, c.host, err)
	}
	if doneReason == "length" {
		return "", fmt.Errorf("%w: %s at %s: the reply was cut at %d tokens", ErrModel, c.model, c.host, maxTokens)
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		return "", fmt.Errorf("%w: %s at %s: empty reply", ErrModel, c.model, c.host)
	}
	return out, nil
}

// SystemMessage is the instruction Word sends for a register and format.
// It holds no digits, so nothing in it can be echoed as a figure.
func SystemMessage(register string, report bool) (string, error) {
	var reg string
	switch register {
	case "", RegisterPlain:
		reg = "Write for a general reader in everyday words; avoid technical terms."
	case RegisterGIS:
		reg = "Write for a GIS analyst, using precise GIS terms (frames, attributes, aggregation, spatial extent)."
	default:
		return "", fmt.Errorf("%w: unknown register %q", ErrModel, register)
	}
	var form string
	if report {
		form = "Write a short report in sections. Each section starts with a title on its own line beginning with \"## \". " +
			"Put the key points as list items, each on its own line beginning with \"- \". " +
			"Use at least one section title and at least one list item, and no other formatting."
	} else {
		form = "Write one or two short paragraphs of plain text: no headings, no lists, no tables, no Markdown."
	}
	return strings.Join([]string{
		"You describe a computed answer about places, using only the figures the user gives you.",
		"Use no numbers other than those figures: state each exactly as given, or rounded with a word such as \"about\". " +
			"Do not add, subtract, average, convert or compare figures into new numbers, and do not mention sizes, distances or dates that are not given.",
		"Say each number of what it is given for, with its own unit: a count of frames is not a count of places or areas, " +
			"one frame's value is not another frame's, and a figure for one place or class is not another's. " +
			"Write over, under, almost or at least only when the figure lies that side of the number you write.",
		"Name no state, local government area, ward, town or other place that is not in the figures.",
		"Do not guess at causes or add facts from outside the figures.",
		reg,
		form,
	}, "\n"), nil
}

// UserMessage is the user message Word sends: the figures of p, and
// nothing else (see Prompt for why the question is not among them).
func UserMessage(p Prompt) string {
	var b strings.Builder
	b.WriteString("Headline: ")
	b.WriteString(oneLine(p.Headline))
	b.WriteString("\n")
	if len(p.Facets) > 0 {
		b.WriteString("\nFacts:\n")
		for _, f := range p.Facets {
			fmt.Fprintf(&b, "- %s: %s\n", oneLine(f[0]), oneLine(f[1]))
		}
	}
	if len(p.Table) > 0 {
		b.WriteString("\nTable (the first row names the columns):\n")
		for _, row := range p.Table {
			cells := make([]string, len(row))
			for i, cell := range row {
				cells[i] = oneLine(cell)
			}
			b.WriteString(strings.Join(cells, " | "))
			b.WriteString("\n")
		}
	}
	if len(p.Figures) > 0 {
		b.WriteString("\nWhat each number is (number | what it counts or measures | what it is of | where it is shown):\n")
		for _, f := range p.Figures {
			unit := f.Unit
			if unit == "" {
				unit = "-"
			}
			fmt.Fprintf(&b, "- %s | %s | %s | %s\n", oneLine(f.Text), oneLine(unit), oneLine(f.Of), oneLine(f.Label))
		}
	}
	if len(p.Sources) > 0 {
		b.WriteString("\nSources:\n")
		for _, s := range p.Sources {
			fmt.Fprintf(&b, "- %s\n", oneLine(s))
		}
	}
	return b.String()
}

// oneLine keeps a figure on its line, so the layout of the message stays
// what it says it is.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Embed returns one vector for each of texts, in order, from the Client's
// model (an embedding model such as nomic-embed-text) through Ollama's
// /api/embed (api.Client.Embed), with inputs longer than the model reads
// truncated. ctx sets the time limit and the caller must set one. An
// empty texts makes no call. A failure, or an answer without one finite,
// non-empty vector of one length per text, is an error wrapping ErrModel.
// Safe for concurrent use.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	truncate := true
	resp, err := c.api.Embed(ctx, &api.EmbedRequest{Model: c.model, Input: texts, Truncate: &truncate})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%w)", cerr, err)
		}
		return nil, fmt.Errorf("%w: embedding %d texts with %s at %s: %w", ErrModel, len(texts), c.model, c.host, err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("%w: %s at %s returned %d embeddings for %d texts", ErrModel, c.model, c.host, len(resp.Embeddings), len(texts))
	}
	dim := len(resp.Embeddings[0])
	for i, v := range resp.Embeddings {
		if len(v) == 0 || len(v) != dim {
			return nil, fmt.Errorf("%w: %s at %s returned embedding %d of length %d (the first has %d)", ErrModel, c.model, c.host, i, len(v), dim)
		}
		for _, x := range v {
			if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%w: %s at %s returned embedding %d holding a value that is not finite", ErrModel, c.model, c.host, i)
			}
		}
	}
	return resp.Embeddings, nil
}
