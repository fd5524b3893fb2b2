package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/state"
)

func TestDatasetOfferCommands(t *testing.T) {
	data := filepath.Join(t.TempDir(), "frames.db")
	s, err := bolt.Open(data, bolt.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddOrg(state.Org{ID: "acme", Plan: "pro"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportDataset(state.Dataset{ID: "pop", Owner: "acme"}, nil, time.Now()); err != nil {
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
	tests := []struct {
		args    []string
		want    string
		wantErr string
	}{
		{args: []string{"dataset", "offer", "pop"}, wantErr: "--mode is required"},
		{args: []string{"dataset", "offer", "pop", "--mode", "free"}, wantErr: `invalid offer mode "free"`},
		{args: []string{"dataset", "offer", "nope", "--mode", "per_query"}, wantErr: "not found"},
		{args: []string{"dataset", "offer", "pop", "--mode", "per_query", "--price", "2", "--licence-text", "CC BY 4.0"},
			want: "dataset pop offered per query at 2 credits a request"},
		{args: []string{"dataset", "show", "pop"}, want: "2"},
		{args: []string{"dataset", "offer", "pop", "--mode", "subscription", "--price", "50"}, want: "offered by subscription for 50 credits"},
		{args: []string{"dataset", "withdraw", "pop"}, want: "dataset pop withdrawn"},
		{args: []string{"audit"}, want: "dataset.withdraw"},
	}
	for _, tt := range tests {
		name := strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			out, err := run(tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(out, tt.want) {
				t.Fatalf("output %q, error %v; want %q", out, err, tt.want)
			}
		})
	}
}
