package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"frameindex/grid"
	"frameindex/narrate/ollamatest"
)

// TestE2E_WordingClaims runs the real binary against the Ollama stand-in
// and has it word answers wrongly in each way a claim can be wrong: a
// right number said of the wrong thing (a count of frames as local
// government areas, a building count as an area, one frame's value as
// another's), an ordinal beyond the frames, a hedge pointing the wrong
// way, a wrong number. Each is discarded (the answer is deterministic and
// the worded answer refunded: only kept ones are counted), the log says
// why by kind and never holds the question; honest wordings are kept.
func TestE2E_WordingClaims(t *testing.T) {
	model := ollamatest.NewServer()
	defer model.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "frames.db")
	mustCLI(t, "grid", "build", "--boundary", writeBoundary(t, dir, 7.40, 9.00, 7.55, 9.10, nil), "--data", data)
	mustCLI(t, "org", "add", "acme", "--data", data) // plan trial: 100 worded answers a month
	row, col := grid.CellAt(9.05, 7.45)
	id1, id2, id3 := grid.CellID(row, col), grid.CellID(row, col+1), grid.CellID(row, col+2)
	pop := writeFile(t, dir, "pop.csv", fmt.Sprintf("frame_id,population_2020\n%d,12000\n%d,345\n%d,5000\n", id1, id2, id3))
	mustCLI(t, "import", "--data", data, "--dataset", "population", "--owner", "acme", "--csv", pop,
		"--attr", "population_2020:number:sum:people:2020:Estimated population")
	bld := writeFile(t, dir, "bld.csv", fmt.Sprintf("frame_id,building_count\n%d,2400\n%d,70\n%d,900\n", id1, id2, id3))
	mustCLI(t, "import", "--data", data, "--dataset", "buildings", "--owner", "acme", "--csv", bld,
		"--attr", "building_count:number:sum:buildings:2020:Buildings")
	admin := writeFile(t, dir, "admin.csv", fmt.Sprintf("frame_id,state,lga,ward\n%d,Kano,Kano Municipal,Kano Municipal 3\n"+
		"%d,Kano,Kano Municipal,Kano Municipal 3\n%d,Kano,Kano Municipal,Kano Municipal 4\n", id1, id2, id3))
	mustCLI(t, "import", "--data", data, "--dataset", "admin", "--owner", "acme", "--csv", admin,
		"--attr", "state:category", "--attr", "lga:category", "--attr", "ward:category")
	srv := startServer(t, "serve", "--data", data, "--addr", "127.0.0.1:0", "--ollama-host", model.URL(), "--model", ollamatest.DefaultModel,
		"--limit-insight-burst", "0", "--limit-key-burst", "100000", "--limit-key-rate", "600000")
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(srv.stderr.String(), "place names loaded"); {
		if time.Now().After(deadline) {
			t.Fatalf("the server does not report its place names:\n%s", srv.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, key := mintKey(t, data, "acme", "analyst")
	ids := fmt.Sprintf(`"frameIds":["%d","%d","%d"]`, id1, id2, id3)
	profile := `{` + ids + `}`
	people := `{` + ids + `,"question":"how many people live in these frames"}`
	report := `{` + ids + `,"question":"how many people live in these frames","format":"report"}`

	// The profile: 3 frames, in Kano Municipal (one LGA), 2 wards, 17,345
	// people, 3,370 buildings. The measure: 12,000, 345 and 5,000 people.
	tests := []struct {
		name, body, reply, kind string // kind "" for an honest wording
	}{
		{"honest profile", profile, fmt.Sprintf("The 3 selected frames, in Kano Municipal, hold about 17,300 people and 3,370 buildings across two wards."), ""},
		{"frames counted as LGAs", profile, "The selection spans three local government areas of Kano.", "wrong count of names"},
		{"buildings as an area", profile, "The frames hold 3,370 km² of built-up land.", "wrong unit"},
		{"an ordinal beyond the frames", profile, "The fifth frame holds the most buildings.", "ordinal"},
		{"a hedge the wrong way", profile, "Over 17,350 people live in the three frames.", "hedge"},
		{"a wrong number", profile, "About 18,500 people live in the three frames.", "wrong number"},
		{"honest per frame", people, fmt.Sprintf("Frame %d holds 12,000 people, frame %d 5,000 and frame %d 345: 17,345 in all.", id1, id3, id2), ""},
		{"another frame's value", people, fmt.Sprintf("Frame %d is the busiest, with 12,000 people.", id2), "wrong subject"},
		{"honest report", report, fmt.Sprintf("## Population\n- %d: 12,000 people\n- %d: 5,000 people\n- %d: 345 people\n## Total\n- 17,345 people in 3 frames", id1, id3, id2), ""},
		{"a report with another frame's value", report, fmt.Sprintf("## Frame %d\n- 5,000 people", id1), "wrong subject"},
	}
	kept := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			model.SetReply(tc.reply)
			a, r := srv.ask(t, key, tc.body)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Data)
			}
			if tc.kind == "" {
				if a.Engine != "llm" || !strings.Contains(string(r.Data), `"narrative"`) {
					t.Fatalf("an honest wording was discarded: %s\nlog:\n%s", r.Data, srv.stderr)
				}
				kept++
				return
			}
			if a.Engine != "deterministic" || strings.Contains(string(r.Data), `"narrative"`) {
				t.Fatalf("a wording with a %s was kept: %s", tc.kind, r.Data)
			}
		})
	}
	// The log is flushed every 200 ms: each discard is logged by kind.
	for deadline := time.Now().Add(3 * time.Second); strings.Count(srv.stderr.String(), "wording discarded") < len(tests)-kept; {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	logs := srv.stderr.String()
	for _, tc := range tests {
		if tc.kind != "" && !strings.Contains(logs, `"kind":"`+tc.kind+`"`) {
			t.Errorf("no discard of kind %q in the log:\n%s", tc.kind, logs)
		}
	}
	if strings.Contains(logs, "how many people") {
		t.Errorf("the question reached the log:\n%s", logs)
	}
	// Discarded wordings were refunded: only the kept ones count.
	if out := mustCLI(t, "usage", "--org", "acme", "--data", data); !strings.Contains(out, fmt.Sprintf("%d of 100", kept)) {
		t.Fatalf("%d wordings kept; usage:\n%s", kept, out)
	}
	// The model was told what each number is.
	reqs := model.Requests()
	if msg := firstUserMessage(reqs); !strings.Contains(msg, "What each number is") || !strings.Contains(msg, "- 1 | states | the selection | State") {
		t.Errorf("the prompt does not say what each number is: %d requests, %q", len(reqs), firstUserMessage(reqs))
	}
	srv.stop(t, syscall.SIGTERM)
}

// firstUserMessage is the user message of the first chat request, "" when
// there is none.
func firstUserMessage(reqs []api.ChatRequest) string {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role == "user" {
				return m.Content
			}
		}
	}
	return ""
}
