package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

// stallReader gives its text, then blocks until its channel closes.
type stallReader struct {
	text  string
	block chan struct{}
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.text != "" {
		n := copy(p, s.text)
		s.text = s.text[n:]
		return n, nil
	}
	<-s.block
	return 0, io.EOF
}

func TestOpenInput_StdinThatStalls(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ctx, cancel := context.WithCancel(context.Background())
	r, _, err := OpenInput(ctx, Stdin, &stallReader{text: "frame_id\n", block: block})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := r.Read(buf); n != len("frame_id\n") {
		t.Fatalf("read %d bytes", n)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
}

// stdinOpener opens "-" as stdin, files as files.
func stdinOpener(stdin io.Reader) Opener {
	return func(path, _ string) (io.Reader, func() error, error) {
		r, _, err := OpenInput(context.Background(), path, stdin)
		if err != nil {
			return nil, nil, err
		}
		return r, r.Close, nil
	}
}

func TestImport_FromStdin(t *testing.T) {
	s := testStore(t)
	tests := []struct {
		name  string
		in    Input
		stdin string
		want  int // frames
	}{
		{"csv", Input{CSV: Stdin}, fmt.Sprintf("frame_id,pop\n%d,5\n%d,7\n", cell(row0, col0), cell(row0, col0+1)), 2},
		{"GeoJSON text sequence", Input{Features: Stdin, Count: "pop"}, point(row0, col0, `{}`) + "\n" + point(row0+1, col0, `{}`) + "\n", 2},
		{"GeoJSON with record separators", Input{Features: Stdin, Count: "pop"}, "\x1e" + point(row0, col0, `{}`) + "\n", 1},
		{"GeoJSON collection", Input{Features: Stdin, Count: "pop"}, `{"type":"FeatureCollection","features":[` + point(row0, col0, `{}`) + `]}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Manifest{ID: "piped", Owner: "agency", Attributes: []state.Attribute{attrPop}, Inputs: []Input{tt.in}}
			_, recs, _, err := Gather(context.Background(), m, s, stdinOpener(strings.NewReader(tt.stdin)))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tt.want {
				t.Fatalf("%d records, want %d", len(recs), tt.want)
			}
		})
	}
	t.Run("GeoPackage refused", func(t *testing.T) {
		m := Manifest{ID: "piped", Owner: "agency", Attributes: []state.Attribute{attrPop}, Inputs: []Input{{Features: Stdin, Count: "pop"}}}
		_, _, _, err := Gather(context.Background(), m, s, stdinOpener(strings.NewReader("SQLite format 3\x00rest")))
		if !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), "cannot be read from a pipe") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("two inputs from standard input", func(t *testing.T) {
		m := Manifest{ID: "piped", Owner: "agency", Attributes: []state.Attribute{attrPop}, Inputs: []Input{{CSV: Stdin}, {CSV: Stdin}}}
		_, _, _, err := Gather(context.Background(), m, s, stdinOpener(strings.NewReader("")))
		if !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), "can feed one input only") {
			t.Fatalf("err = %v", err)
		}
	})
}

// repeatReader gives n bytes of b over and over, then EOF.
type repeatReader struct {
	b []byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.b[int(r.n)%len(r.b):])
		c = min(c, int(r.n))
		k += c
		r.n -= int64(c)
	}
	return k, nil
}

// TestImport_RecordLimits: a record over MaxRecordBytes is refused with
// its line or feature number, having read little more than the limit.
func TestImport_RecordLimits(t *testing.T) {
	s := testStore(t)
	over := int64(MaxRecordBytes + 4<<20)
	tests := []struct {
		name string
		in   Input
		r    io.Reader
		want string
	}{
		{"CSV line without an end (/dev/zero)", Input{CSV: Stdin},
			io.MultiReader(strings.NewReader(fmt.Sprintf("frame_id,pop\n%d,2\n", cell(row0, col0))), &repeatReader{b: []byte{0}, n: over}),
			"line 3: a line longer than 64 MiB"},
		{"CSV record with an unclosed quote", Input{CSV: Stdin},
			io.MultiReader(strings.NewReader("frame_id,pop\n1,\""), &repeatReader{b: []byte("short line\n"), n: over}),
			"a record running on for more than 64 MiB (an unclosed quote?)"},
		{"GeoJSON feature", Input{Features: Stdin, Count: "pop"},
			io.MultiReader(strings.NewReader(`{"type":"FeatureCollection","features":[`+point(row0, col0, `{}`)+`,{"type":"Feature","properties":{"pad":"`),
				&repeatReader{b: []byte("x"), n: over}),
			"feature 1 (by line 1): more than 64 MiB of JSON"},
		{"GeoJSON text sequence line", Input{Features: Stdin, Count: "pop"},
			io.MultiReader(strings.NewReader(point(row0, col0, `{}`)+"\n"+`{"type":"Feature","properties":{"pad":"`),
				&repeatReader{b: []byte("x"), n: over}),
			"line 2: longer than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Manifest{ID: "big", Owner: "agency", Attributes: []state.Attribute{attrPop}, Inputs: []Input{tt.in}}
			_, _, _, err := Gather(context.Background(), m, s, stdinOpener(tt.r))
			if !errors.Is(err, state.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
