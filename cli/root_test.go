package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command explains itself: a one-line purpose in the root's help and
// examples in its own.
func TestRootCommand_HelpForEveryCommand(t *testing.T) {
	root := NewRootCommand(Assets{})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"serve", "demo", "grid", "org", "key"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("frameindex --help does not list %s", name)
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			t.Run(sub.CommandPath(), func(t *testing.T) {
				if sub.Short == "" || sub.Example == "" {
					t.Errorf("%s: Short %q, Example %q", sub.CommandPath(), sub.Short, sub.Example)
				}
				// state migrate acts on the database alone.
				if sub.Runnable() && sub.Flags().Lookup("data") == nil && sub.CommandPath() != "frameindex state migrate" {
					t.Errorf("%s has no --data flag", sub.CommandPath())
				}
			})
			walk(sub)
		}
	}
	walk(root)
}

func TestDataFlag_EnvironmentDefault(t *testing.T) {
	t.Setenv(envData, "/srv/from-env.db")
	cmd := newGridInfoCommand()
	if got := cmd.Flags().Lookup("data").DefValue; got != "/srv/from-env.db" {
		t.Fatalf("--data default %q, want the environment's", got)
	}
	t.Setenv(envData, "")
	if got := newGridInfoCommand().Flags().Lookup("data").DefValue; got != "./frames.db" {
		t.Fatalf("--data default %q", got)
	}
}

func TestKeyMint_RequiresOrgAndPreset(t *testing.T) {
	root := NewRootCommand(Assets{})
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"key", "mint", "--data", t.TempDir() + "/x.db"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "--org and --preset") {
		t.Fatalf("got %v", err)
	}
}

func TestParseAttr(t *testing.T) {
	tests := []struct {
		spec    string
		want    string // name/type/agg/unit/year/label, or "error"
		wantErr bool
	}{
		{"population_2020:number:sum:people:2020:Estimated population", "population_2020/number/sum/people/2020/Estimated population", false},
		{"state:category", "state/category////state", false},
		{"x:number:mean", "x/number/mean///x", false},
		{"label:text::::A: label with colons", "label/text////A: label with colons", false},
		{"x", "", true},
		{":number", "", true},
		{"x:number:sum:u:twenty", "", true},
	}
	for _, tc := range tests {
		a, err := parseAttr(tc.spec)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%q: err %v", tc.spec, err)
		}
		if err != nil {
			continue
		}
		year := ""
		if a.Year != 0 {
			year = strconv.Itoa(a.Year)
		}
		if got := strings.Join([]string{a.Name, a.Type, a.Aggregation, a.Unit, year, a.Label}, "/"); got != tc.want {
			t.Errorf("%q: got %s, want %s", tc.spec, got, tc.want)
		}
	}
}

func FuzzParseAttr(f *testing.F) {
	f.Add("population_2020:number:sum:people:2020:Estimated population") // every part
	f.Add("state:category")                                              // the shortest valid form
	f.Add("::::::")                                                      // only separators
	f.Add("x:number:sum:u:-5:")                                          // a negative year
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := parseAttr(spec)
		if err != nil {
			return
		}
		if a.Name == "" || a.Type == "" || a.Label == "" || !strings.HasPrefix(spec, a.Name+":"+a.Type) {
			t.Fatalf("%q parsed to %+v", spec, a)
		}
	})
}
