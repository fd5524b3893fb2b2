package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/state"
)

// stateCommands are the administrative commands that act on the shared
// state, with the arguments each needs to run.
var stateCommands = [][]string{
	{"org", "add", "newcomer"},
	{"org", "list"},
	{"org", "show", "acme"},
	{"org", "plan", "acme", "--plan", "pro"},
	{"org", "credits", "acme", "--add", "5", "--note", "n"},
	{"usage", "--org", "acme"},
	{"key", "mint", "--org", "acme", "--preset", "analyst"},
	{"key", "list"},
	{"key", "revoke", "k_x"},
	{"licence", "grant", "--org", "acme", "--dataset", "pop", "--mode", "per_query"},
	{"licence", "revoke", "--org", "acme", "--dataset", "pop"},
	{"licence", "list"},
	{"dataset", "list"},
	{"dataset", "show", "pop"},
	{"dataset", "price", "pop", "--credits", "2"},
	{"dataset", "offer", "pop", "--mode", "per_query", "--price", "2"},
	{"dataset", "withdraw", "pop"},
	{"audit"},
}

// dataFile creates a data file with organisation acme owning dataset pop.
func dataFile(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "frames.db")
	s, err := bolt.Open(data, bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportDataset(state.Dataset{ID: "pop", Owner: "acme"}, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	return data
}

// cmdName names a test by a command's first two words.
func cmdName(args []string) string {
	return strings.Join(args[:min(2, len(args))], " ")
}

func runCLI(args ...string) (stdout string, err error) {
	root := NewRootCommand(Assets{})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), err
}

// The placeholder pgstate cannot open anything, so every command given a
// shared state fails, as one that cannot reach its database must: in one
// line, naming the host, hiding the password, saying what to check.
func TestStateFlag_UnreachableDatabase(t *testing.T) {
	const secret = "s3cr%2Fet-pw"
	url := "postgres://frameindex:" + secret + "@db.example:5432/frameindex?sslmode=disable"
	data := dataFile(t)
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		for _, leak := range []string{secret, "s3cr/et-pw", "s3cr"} {
			if strings.Contains(msg, leak) {
				t.Errorf("message shows the password (%q): %s", leak, msg)
			}
		}
		for _, want := range []string{"db.example:5432", "FRAMEINDEX_STATE", "check that PostgreSQL runs"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message lacks %q: %s", want, msg)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("message is not one line: %q", msg)
		}
	}
	for _, args := range stateCommands {
		t.Run(cmdName(args), func(t *testing.T) {
			_, err := runCLI(slices.Concat(args, []string{"--data", data, "--state", url})...)
			check(t, err)
		})
	}
	t.Run("from the environment", func(t *testing.T) {
		t.Setenv(envState, url)
		_, err := runCLI("org", "list", "--data", data)
		check(t, err)
	})
	t.Run("an empty --state turns the environment's off", func(t *testing.T) {
		t.Setenv(envState, url)
		out, err := runCLI("org", "list", "--data", data, "--state=")
		if err != nil || !strings.Contains(out, "acme") {
			t.Fatalf("org list on the data file: %q, %v", out, err)
		}
	})
	t.Run("without it, the data file", func(t *testing.T) {
		t.Setenv(envState, "")
		out, err := runCLI("org", "list", "--data", data)
		if err != nil || !strings.Contains(out, "acme") {
			t.Fatalf("org list on the data file: %q, %v", out, err)
		}
	})
}

// Every command on the shared state has --state, documented, with no
// default that help would print (a password from the environment).
func TestStateFlag_OnEveryStateCommand(t *testing.T) {
	t.Setenv(envState, "postgres://fi:hunter2@db:5432/fi")
	for _, args := range stateCommands {
		t.Run(cmdName(args), func(t *testing.T) {
			root := NewRootCommand(Assets{})
			cmd, _, err := root.Find(args)
			if err != nil {
				t.Fatal(err)
			}
			f := cmd.Flags().Lookup("state")
			if f == nil {
				t.Fatalf("%s has no --state", cmd.CommandPath())
			}
			if f.DefValue != "" || !strings.Contains(f.Usage, envState) {
				t.Errorf("--state default %q, usage %q", f.DefValue, f.Usage)
			}
			path := strings.Fields(cmd.CommandPath())[1:]
			out, err := runCLI(append(path, "--help")...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, "--state") || strings.Contains(out, "hunter2") {
				t.Errorf("help: %s", out)
			}
		})
	}
}

// A command that needs the node's datasets reads them from the data file
// itself: it says what to do when a server holds the file, and a missing
// file is reported before the database is tried.
func TestStateFlag_Catalogue(t *testing.T) {
	url := "postgres://fi:pw@db.example/fi"
	t.Run("missing data file", func(t *testing.T) {
		_, err := runCLI("licence", "grant", "--org", "a", "--dataset", "pop", "--mode", "per_query",
			"--data", filepath.Join(t.TempDir(), "none.db"), "--state", url)
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("held by a server", func(t *testing.T) {
		data := dataFile(t)
		s, err := bolt.Open(data, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		l, err := admin.Listen(data)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- admin.Serve(ctx, l, &admin.Ops{Store: s}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		}()
		defer func() { cancel(); <-done }()
		_, err = runCLI("dataset", "price", "pop", "--credits", "3", "--data", data, "--state", url)
		if err == nil || !strings.Contains(err.Error(), "held by the server") || !strings.Contains(err.Error(), "without --state") {
			t.Fatalf("got %v", err)
		}
		// A command on the shared state alone does not need the file.
		_, err = runCLI("org", "list", "--data", data, "--state", url)
		if err == nil || !strings.Contains(err.Error(), "db.example") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestStateHostAndRedaction(t *testing.T) {
	tests := []struct {
		name, url  string
		host       string
		secrets    []string // must not appear in the redacted text
		wantInText string   // must remain
	}{
		{"url", "postgres://fi:pa55@db:5432/fi", "host db:5432", []string{"pa55"}, "fi:xxxxx@db"},
		{"postgresql scheme, no port", "postgresql://fi:pa55@db.local/fi", "host db.local", []string{"pa55"}, "db.local"},
		{"percent-encoded", "postgres://fi:p%40ss%2F1@db/fi", "host db", []string{"p%40ss%2F1", "p@ss/1"}, "fi:xxxxx@db/fi"},
		{"password in the query", "postgres://db/fi?user=fi&password=qu3ry", "host db", []string{"qu3ry"}, "user=fi"},
		{"socket host in the query", "postgres:///fi?host=/run/postgresql", "host /run/postgresql", nil, ""},
		{"no host", "postgres:///fi", "the default host (localhost)", nil, ""},
		{"key=value", "host=pg1 user=fi password=kv-secret dbname=fi", "host pg1", []string{"kv-secret"}, "user=fi"},
		{"key=value quoted", "host='pg 2' password='a b c' dbname=fi", "host pg 2", []string{"a b c"}, "dbname=fi"},
		{"unparseable url", "postgres://fi:bad%zz@db:port/fi", "the host the URL names", []string{"bad%zz"}, "db:port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stateHost(tt.url); got != tt.host {
				t.Errorf("stateHost = %q, want %q", got, tt.host)
			}
			// An error text that repeats the URL and the secrets, over
			// two lines.
			text := "connect " + tt.url + ":\nfailed"
			for _, s := range tt.secrets {
				text += " (" + s + ")"
			}
			got := redactState(tt.url, text)
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("redacted text shows %q: %s", s, got)
				}
			}
			if !strings.Contains(got, tt.wantInText) || strings.Contains(got, "\n") {
				t.Errorf("redacted text %q: want one line keeping %q", got, tt.wantInText)
			}
		})
	}
}

// FuzzRedactState: whatever the password of a postgres URL, an error text
// repeating the URL and the password comes out on one line without it.
func FuzzRedactState(f *testing.F) {
	for _, s := range []string{"pa55", "p%40ss", "a b", "with:colon", "ünï", "%zz", "'quoted'", "password=inner", "\n"} {
		f.Add(s, "db.example:5432")
	}
	f.Fuzz(func(t *testing.T, pw, host string) {
		// A password holding "@" is not one a URL can carry unescaped; one
		// with "x" may be spelled again by the "xxxxx" that replaces it;
		// one with white space is cut where the text is put on one line.
		if pw == "" || strings.ContainsAny(pw, "@x/?#") || strings.ContainsAny(host, "@/?#") ||
			len(strings.Fields(pw)) != 1 || strings.Fields(pw)[0] != pw {
			t.Skip()
		}
		u := "postgres://fi:" + pw + "@" + host + "/fi"
		got := redactState(u, "connect "+u+": failed for "+pw+"\nretry")
		if strings.Contains(got, pw) {
			t.Errorf("password %q shown: %q", pw, got)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("not one line: %q", got)
		}
		_ = stateHost(u)
	})
}
