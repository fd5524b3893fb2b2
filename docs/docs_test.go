// Package docs holds frameindex's documentation; its test runs the
// commands the documentation marks as runnable, so that every one of them
// runs as written.
//
// The convention. A shell block is runnable when the line before its
// opening fence is
//
//	<!-- runnable -->                 run while the demo serves
//	<!-- runnable: stopped -->        run after the demo has stopped (standard
//	                                  input imports, anything that needs the
//	                                  file to itself)
//	<!-- runnable: needs T1 T2 -->    run while the demo serves when the
//	                                  tools T1, T2 are installed (GDAL's);
//	                                  skipped, and logged, when one is not
//
// and the fence is ```sh. The test runs the runnable blocks of README.md and
// then of docs/*.md (in name order), each block in its own bash with
// `set -euo pipefail`, in one scratch folder where a newcomer would be after
// the README's first command:
//
//   - ./frames.db is the demo, built and served by `frameindex demo`
//     (its synthetic datasets, organisations demo and geodata), so that
//     commands without --data act on it, through its admin socket while
//     it serves. Its grid is not the national one but the lattice over
//     Lagos Island and central Abuja (4,480 frames; `frameindex demo` builds
//     its datasets over the grid it finds), so that the test takes seconds:
//     every place the examples name lies in it;
//   - `frameindex` on PATH is the binary built from this tree;
//   - KEY holds the demo's key (preset full, organisation demo);
//   - the demo serves on a free loopback port, and every
//     "127.0.0.1:8080" in a block (the documented default address) is
//     replaced by it;
//   - curl is a function that adds --fail-with-body --silent --show-error,
//     so that an HTTP error fails the block while its body is still shown;
//   - no model is reachable (OLLAMA_HOST points nowhere), so answers are
//     the computed ones.
//
// Blocks run in order and may use files earlier blocks of the same run
// wrote. The demo keeps its default rate limits, so the blocks together
// stay within a key's burst of 120 requests, as a reader's would. A block
// that needs something else (PostgreSQL, Redis, systemd, root, a second
// node) is left unmarked. Each block has
// 60 s; a marked block that fails fails the test with its output.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// block is a runnable shell block of a Markdown file.
type block struct {
	file    string   // path relative to the repository root
	line    int      // line of the opening fence
	stopped bool     // run after the server stopped
	needs   []string // tools the block needs
	text    string
}

func (b block) name() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var markerRe = regexp.MustCompile(`^<!--\s*runnable(?::\s*(\S+)((?:\s+[\w.-]+)*))?\s*-->\s*$`)

// runnableBlocks returns the marked blocks of the Markdown file at root/file.
// A marker not followed by a ```sh block, or with an unknown mode, is an
// error: a mistyped marker must not silently leave a block untested.
func runnableBlocks(root, file string) ([]block, error) {
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		m := markerRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		needs := strings.Fields(m[2])
		switch {
		case m[1] == "" || m[1] == "stopped" && len(needs) == 0:
		case m[1] == "needs" && len(needs) > 0:
		default:
			return nil, fmt.Errorf("%s:%d: unknown runnable mode %q (\"stopped\", or \"needs\" and the tools)", file, i+1, strings.TrimSpace(m[1]+m[2]))
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			return nil, fmt.Errorf("%s:%d: a runnable marker must be followed by a ```sh block", file, i+1)
		}
		b := block{file: file, line: i + 2, stopped: m[1] == "stopped", needs: needs}
		var body []string
		j := i + 2
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s:%d: the runnable block is not closed", file, b.line)
		}
		b.text = strings.Join(body, "\n") + "\n"
		out = append(out, b)
		i = j
	}
	return out, nil
}

// docFiles lists README.md and then docs/*.md in name order, relative to
// the repository root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	md, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(md)
	files := []string{"README.md"}
	for _, f := range md {
		files = append(files, filepath.Join("docs", filepath.Base(f)))
	}
	return files
}

func TestRunnableBlocks_Markers(t *testing.T) {
	dir := t.TempDir()
	doc := "# x\n\n<!-- runnable -->\n```sh\necho a\n```\n\n<!-- runnable: stopped -->\n```sh\necho b\necho c\n```\n\n```sh\nnot marked\n```\n" +
		"<!-- runnable: needs ogrinfo ogr2ogr -->\n```sh\nogrinfo\n```\n"
	os.WriteFile(filepath.Join(dir, "a.md"), []byte(doc), 0o644)
	got, err := runnableBlocks(dir, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []block{
		{file: "a.md", line: 4, text: "echo a\n"},
		{file: "a.md", line: 9, stopped: true, text: "echo b\necho c\n"},
		{file: "a.md", line: 18, needs: []string{"ogrinfo", "ogr2ogr"}, text: "ogrinfo\n"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{
		"<!-- runnable -->\n\n```sh\necho\n```\n",      // not right before the fence
		"<!-- runnable -->\n```bat\necho\n```\n",       // not a shell block
		"<!-- runnable: later -->\n```sh\necho\n```\n", // unknown mode
		"<!-- runnable: needs -->\n```sh\necho\n```\n", // needs nothing named
		"<!-- runnable: stopped bash -->\n```sh\necho\n```\n",
		"<!-- runnable -->\n```sh\necho\n", // never closed
	} {
		os.WriteFile(filepath.Join(dir, "b.md"), []byte(bad), 0o644)
		if _, err := runnableBlocks(dir, "b.md"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestReadme_FrontDoor checks what the README promises a newcomer first:
// the two commands at the very top, the test command being the one CI
// runs, a first screen under 250 lines, and a map of every docs/ file.
func TestReadme_FrontDoor(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	if n := len(lines); n > 250 {
		t.Errorf("README.md has %d lines; the front door stays under 250 (move detail to docs/)", n)
	}
	head := strings.Join(lines[:min(6, len(lines))], "\n")
	const testCmd = "go test -timeout 30m ./..."
	for _, cmd := range []string{"go run . demo", testCmd} {
		if !strings.Contains(head, "\n"+cmd+" ") {
			t.Errorf("README.md does not open with %q:\n%s", cmd, head)
		}
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(testCmd) + `$`).Match(ci) {
		t.Error(".ci/run does not run the README's test command, `" + testCmd + "`")
	}
	md, _ := filepath.Glob("*.md")
	for _, f := range md {
		if !strings.Contains(string(readme), "(docs/"+f+")") {
			t.Errorf("README.md's map of the documentation does not link docs/%s", f)
		}
	}
}

var (
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRe = regexp.MustCompile(`^#+\s+(.*)$`)
	anchorDel = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// anchors returns the heading anchors GitHub makes for a Markdown file.
func anchors(text string) map[string]bool {
	a := map[string]bool{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if m := headingRe.FindStringSubmatch(l); m != nil && !fence {
			s := strings.ToLower(strings.TrimSpace(m[1]))
			a[strings.ReplaceAll(anchorDel.ReplaceAllString(s, ""), " ", "-")] = true
		}
	}
	return a
}

// TestDocs_Links checks that every relative link of README.md and docs/
// reaches a file of the repository, and its #anchor a heading there.
func TestDocs_Links(t *testing.T) {
	for _, f := range docFiles(t, "..") {
		text, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRe.FindAllStringSubmatch(string(text), -1) {
			u := m[1]
			if strings.Contains(u, "://") || strings.HasPrefix(u, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(u, "#")
			target := filepath.Join("..", f)
			if path != "" {
				target = filepath.Join("..", filepath.Dir(f), path)
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s: link %s: %v", f, u, err)
				continue
			}
			if frag != "" && !anchors(string(body))[frag] {
				t.Errorf("%s: link %s: no heading %q in %s", f, u, frag, path)
			}
		}
	}
}

// runBlock runs b with bash in dir, under env, with the documented
// address replaced by addr and curl failing on HTTP errors, and returns
// its combined output.
func runBlock(b block, dir string, env []string, addr string) ([]byte, error) {
	script := "set -euo pipefail\n" +
		"curl() { command curl --fail-with-body --silent --show-error \"$@\"; }\n" +
		strings.ReplaceAll(b.text, "127.0.0.1:8080", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

// TestRunBlock_Fails checks that a block fails on what a reader would call
// a failure: a command's exit status anywhere in the block, a pipeline's,
// an unset variable, and an HTTP error answered to curl (whose body is
// still shown).
func TestRunBlock_Fails(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"not_found"}}`)
			return
		}
		io.WriteString(w, `{"data":{}}`)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	env := append(os.Environ(), "KEY=k")
	for _, c := range []struct {
		text string
		fail bool
	}{
		{"echo one\ncurl http://127.0.0.1:8080/ok\n", false},
		{"curl -H \"Authorization: Bearer $KEY\" http://127.0.0.1:8080/ok\n", false},
		{"false\necho after\n", true},
		{"false | cat\n", true},
		{"echo $UNSET_IN_THIS_TEST\n", true},
		{"curl http://127.0.0.1:8080/missing\necho after\n", true},
	} {
		out, err := runBlock(block{text: c.text}, dir, env, addr)
		if (err != nil) != c.fail {
			t.Errorf("%q: error %v, want failure %v\n%s", c.text, err, c.fail, out)
		}
		if strings.Contains(c.text, "missing") && !strings.Contains(string(out), "not_found") {
			t.Errorf("curl's error body is not shown: %q", out)
		}
	}
}

// boundary covers Lagos Island (the README's point) and central Abuja (the
// boxes, frames and tile of the examples).
const boundary = `{"type": "Feature", "properties": {}, "geometry": {"type": "MultiPolygon", "coordinates": [
  [[[3.30, 6.40], [3.50, 6.40], [3.50, 6.55], [3.30, 6.55], [3.30, 6.40]]],
  [[[7.20, 8.85], [7.80, 8.85], [7.80, 9.30], [7.20, 9.30], [7.20, 8.85]]]]}}`

var (
	servingRe = regexp.MustCompile(`serving \d+ frames on http://(\S+)`)
	keyRe     = regexp.MustCompile(`svc_sk_[0-9A-Za-z]{43}`)
)

// TestDocs_RunnableBlocks runs every marked block against the demo (see the
// package comment for the convention).
func TestDocs_RunnableBlocks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	var blocks []block
	for _, f := range docFiles(t, "..") {
		bs, err := runnableBlocks("..", f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	if len(blocks) < 10 {
		t.Fatalf("only %d runnable blocks found; the markers are missing", len(blocks))
	}

	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "frameindex"), "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FRAMEINDEX_DATA=", "FRAMEINDEX_ADDR=", "FRAMEINDEX_STATE=", "FRAMEINDEX_LIMITER=",
		"FRAMEINDEX_METRICS_ADDR=", "FRAMEINDEX_EMBED_MODEL=", "OLLAMA_HOST=127.0.0.1:1")

	if err := os.WriteFile(filepath.Join(work, "boundary.geojson"), []byte(boundary), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(filepath.Join(bin, "frameindex"), "grid", "build", "--boundary", "boundary.geojson")
	build.Dir, build.Env = work, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("grid build: %v\n%s", err, out)
	}
	demo := exec.Command(filepath.Join(bin, "frameindex"), "demo", "--addr", "127.0.0.1:0")
	demo.Dir, demo.Env = work, env
	var stderr bytes.Buffer
	demo.Stderr = &stderr
	stdout, err := demo.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		if demo.ProcessState == nil {
			demo.Process.Kill()
			<-done
		}
	})
	type ready struct{ addr, key string }
	readyc := make(chan ready, 1)
	var banner bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stdout)
		var r ready
		for sc.Scan() {
			banner.WriteString(sc.Text() + "\n")
			if m := servingRe.FindStringSubmatch(sc.Text()); m != nil {
				r.addr = m[1]
			}
			if k := keyRe.FindString(sc.Text()); k != "" && r.key == "" {
				r.key = k
			}
			if r.addr != "" && r.key != "" && strings.HasPrefix(sc.Text(), "Stop with") {
				readyc <- r
				break
			}
		}
		io.Copy(io.Discard, stdout)
		done <- demo.Wait()
	}()
	var r ready
	select {
	case r = <-readyc:
	case err := <-done:
		t.Fatalf("demo exited before serving: %v\n%s%s", err, &banner, &stderr)
	case <-time.After(time.Minute):
		t.Fatalf("the demo did not serve within a minute\n%s%s", &banner, &stderr)
	}
	env = append(env, "KEY="+r.key)

	run := func(b block) {
		for _, tool := range b.needs {
			if _, err := exec.LookPath(tool); err != nil {
				t.Logf("%s: skipped: %s is not installed", b.name(), tool)
				return
			}
		}
		if out, err := runBlock(b, work, env, r.addr); err != nil {
			t.Errorf("%s: %v\n--- block ---\n%s--- output ---\n%s", b.name(), err, b.text, out)
		}
	}
	for _, b := range blocks {
		if !b.stopped {
			run(b)
		}
	}
	demo.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the demo did not stop within 40 s of SIGINT")
	}
	for _, b := range blocks {
		if b.stopped {
			run(b)
		}
	}
}

// TestContract_ImportDiagram checks the diagram of docs/contract.md §9
// against `go list`: every package imports only packages on lower lines,
// and every package of the program is on a line (test helpers, tools and
// the tests' own packages aside).
func TestContract_ImportDiagram(t *testing.T) {
	text, err := os.ReadFile("contract.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(text), "(`go list -deps` shows it; no cycle is possible):\n\n```\n")
	diagram, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("contract.md §9 has no import diagram after \"no cycle is possible\"")
	}
	level := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(diagram), "\n") {
		line, _, _ = strings.Cut(line, "   wires")
		for _, p := range strings.Fields(line) {
			level[p] = i
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "frameindex"
	for _, row := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(row)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		if pkg == "" {
			pkg = "main"
		}
		at, listed := level[pkg]
		if !listed {
			last := pkg[strings.LastIndex(pkg, "/")+1:]
			if pkg == "e2e" || pkg == "docs" || strings.HasPrefix(pkg, "scripts/") ||
				strings.HasPrefix(pkg, "internal/") || strings.Contains(last, "test") {
				continue
			}
			t.Errorf("package %s is not in the import diagram of docs/contract.md §9", pkg)
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			imp = strings.TrimPrefix(imp, mod+"/")
			if l, ok := level[imp]; !ok {
				t.Errorf("%s imports %s, which the diagram of docs/contract.md §9 does not show", pkg, imp)
			} else if l <= at {
				t.Errorf("%s imports %s, on its own line or above it in docs/contract.md §9: move one of them or change the import", pkg, imp)
			}
		}
	}
}
