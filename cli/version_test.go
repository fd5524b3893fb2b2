package cli

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want func(t *testing.T, out string)
	}{
		{"text", []string{"version"}, func(t *testing.T, out string) {
			for _, w := range []string{"frameindex ", "commit:", "built:", "go:      " + runtime.Version(), "schema:  1"} {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
		}},
		{"json", []string{"version", "--json"}, func(t *testing.T, out string) {
			var b BuildInfo
			if err := json.Unmarshal([]byte(out), &b); err != nil || b.Go != runtime.Version() || b.Version == "" || b.Schema != 1 {
				t.Errorf("%+v, %v", b, err)
			}
		}},
		{"flag", []string{"--version"}, func(t *testing.T, out string) {
			if out != Build().String()+"\n" {
				t.Errorf("--version printed %q", out)
			}
		}},
		{"help", []string{"--help"}, func(t *testing.T, out string) {
			if !strings.Contains(out, Build().String()) {
				t.Errorf("--help lacks the version:\n%s", out)
			}
		}},
		{"a file this build cannot open", []string{"version", "--data", "/nonexistent/frames.db"}, func(t *testing.T, out string) {
			if !strings.Contains(out, "data:    /nonexistent/frames.db: data file") || !strings.Contains(out, "does not exist") {
				t.Errorf("%s", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := NewRootCommand(Assets{})
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetArgs(tt.args)
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			tt.want(t, out.String())
		})
	}
}

func TestBuild_LinkerValues(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v1.2.0", "0123456789abcdef0123", "2026-01-02T03:04:05Z"
	b := Build()
	if b.Version != "v1.2.0" || b.Commit != "0123456789abcdef0123" || b.Date != "2026-01-02T03:04:05Z" {
		t.Fatalf("%+v", b)
	}
	if s := b.String(); !strings.HasPrefix(s, "frameindex v1.2.0 (commit 0123456789ab, built 2026-01-02T03:04:05Z, go") {
		t.Fatalf("%s", s)
	}
}
