package ingest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzRecordLimiter: the limiter passes its input on unchanged, counts its
// lines, and fails exactly when a line passes its limit, naming that line.
func FuzzRecordLimiter(f *testing.F) {
	f.Add([]byte("frame_id,pop\n1,2\n"), uint8(8))
	f.Add([]byte("no line break at all"), uint8(4))
	f.Add([]byte("\n\n\n"), uint8(0))
	f.Add([]byte("a\r\nlonger line here\nx"), uint8(5))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		maxLine := int64(max) + 1
		lim := &recordLimiter{r: iotest.HalfReader(bytes.NewReader(in)), maxLine: maxLine}
		out, err := io.ReadAll(lim)
		// The first line past the limit, if any.
		want := 0
		for i, line := range bytes.Split(in, []byte("\n")) {
			if int64(len(line)) > maxLine {
				want = i + 1
				break
			}
		}
		if want == 0 {
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("err %v; passed %q of %q", err, out, in)
			}
			if lim.lines != bytes.Count(in, []byte("\n")) {
				t.Fatalf("counted %d lines in %q", lim.lines, in)
			}
			return
		}
		e := tooLong(err)
		if e == nil || e.line != want || e.record {
			t.Fatalf("err %v, want line %d too long in %q (limit %d)", err, want, in, maxLine)
		}
		if !bytes.HasPrefix(in, out) {
			t.Fatalf("passed %q, not a prefix of %q", out, in)
		}
	})
}

// A record counter restarts on reset.
func TestRecordLimiter_Reset(t *testing.T) {
	lim := &recordLimiter{r: bytes.NewReader(bytes.Repeat([]byte("ab\n"), 10)), maxRecord: 6}
	buf := make([]byte, 3)
	for i := range 10 {
		if _, err := io.ReadFull(lim, buf); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		lim.reset()
	}
	lim = &recordLimiter{r: bytes.NewReader(bytes.Repeat([]byte("ab\n"), 10)), maxRecord: 6}
	_, err := io.ReadAll(iotest.OneByteReader(lim))
	if e := tooLong(err); e == nil || !e.record || e.line != 3 {
		t.Fatalf("err = %v, want a record too long by line 3", err)
	}
}
