package cli

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"frameindex/bolt"
)

// TestUserCommands runs the user and audit commands on a data file with no
// server running, as an operator would.
func TestUserCommands(t *testing.T) {
	data := filepath.Join(t.TempDir(), "frames.db")
	s, err := bolt.Open(data, bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	run := func(args ...string) (string, error) {
		t.Helper()
		root := NewRootCommand(Assets{})
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append(args, "--data", data))
		err := root.Execute()
		return out.String(), err
	}
	otpLine := regexp.MustCompile(`one-time password: [a-z2-9]{4}(-[a-z2-9]{4}){3}\n`)
	steps := []struct {
		args    []string
		want    []string // in the output
		wantErr string
	}{
		{args: []string{"org", "add", "acme"}},
		{args: []string{"org", "add", "rival"}},
		{args: []string{"user", "add", "amina", "--org", "acme"}, wantErr: "--org and --role are required"},
		{args: []string{"user", "add", "amina", "--org", "acme", "--role", "owner", "--email", "amina@acme.ng"},
			want: []string{"user amina added to organisation acme as owner", "must choose a new password at first sign-in"}},
		{args: []string{"user", "add", "amina", "--org", "rival", "--role", "member"}, want: []string{"joined organisation rival", "password is unchanged"}},
		{args: []string{"user", "add", "tunde", "--org", "acme", "--role", "boss"}, wantErr: `invalid role "boss"`},
		{args: []string{"user", "add", "tunde", "--org", "acme", "--role", "member"}, want: []string{"user tunde added"}},
		{args: []string{"user", "list", "--org", "acme"}, want: []string{"amina  amina@acme.ng  acme (owner), rival (member)  one-time, not yet changed", "tunde"}},
		{args: []string{"user", "role", "tunde", "--org", "acme", "--role", "admin"}, want: []string{"user tunde is admin of organisation acme"}},
		{args: []string{"user", "role", "amina", "--org", "acme", "--role", "member"}, wantErr: "always keeps an owner"},
		{args: []string{"user", "reset", "tunde"}, want: []string{"password of tunde reset", "one-time password: "}},
		{args: []string{"user", "remove", "amina", "--org", "acme"}, wantErr: "only owner"},
		{args: []string{"user", "remove", "tunde", "--org", "acme"}, want: []string{"user tunde deleted"}},
		{args: []string{"user", "remove", "amina", "--org", "rival"}, want: []string{"user amina removed from organisation rival"}},
		{args: []string{"audit", "--org", "acme", "--limit", "3"}, want: []string{"user.remove", "tunde", "refused", "operator", "command line"}},
	}
	for _, st := range steps {
		out, err := run(st.args...)
		name := strings.Join(st.args, " ")
		if st.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), st.wantErr) {
				t.Errorf("%s: error %v, want %q", name, err, st.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range st.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", name, w, out)
			}
		}
		if strings.Contains(name, "user add amina --org acme") || strings.Contains(name, "user reset") {
			if !otpLine.MatchString(out) {
				t.Errorf("%s: no one-time password line:\n%s", name, out)
			}
		}
	}
	out, _ := run("audit", "--json")
	if strings.Count(out, `"action"`) < 8 || strings.Contains(out, "one-time password:") {
		t.Errorf("audit --json:\n%s", out)
	}
}
