package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxRecordBytes bounds one record of an input, so that no input can make
// an import's memory grow without bound (a CSV whose file is a link to
// /dev/zero, a GeoJSON feature that never closes): a CSV line, or a CSV
// record of several lines (a quoted field holding line breaks); a GeoJSON
// feature; a line of a GeoJSON text sequence (maxLineBytes, the same).
// Larger ones are refused with the line or feature number.
const MaxRecordBytes = 64 << 20

// errTooLong is returned by a recordLimiter past its limit.
type errTooLong struct {
	line   int  // the line where the limit was passed, from 1
	record bool // a record (several lines) rather than one line
}

func (e *errTooLong) Error() string {
	if e.record {
		return fmt.Sprintf("a record running on for more than %d MiB (an unclosed quote?)", MaxRecordBytes>>20)
	}
	return fmt.Sprintf("a line longer than %d MiB", MaxRecordBytes>>20)
}

// recordLimiter passes its reader's bytes on, failing with *errTooLong
// once a line (maxLine, when not zero) or the bytes since the last reset
// (maxRecord, when not zero) pass their limit. It counts what its reader
// gives, ahead of what the parser above has used: maxRecord must allow for
// the parser's read-ahead buffer.
type recordLimiter struct {
	r          io.Reader
	maxLine    int64
	maxRecord  int64
	lines      int   // line breaks passed
	sinceLine  int64 // bytes since the last line break
	sinceReset int64
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	l.sinceReset += int64(n)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.sinceLine += int64(len(b))
			break
		}
		if l.maxLine > 0 && l.sinceLine+int64(i) > l.maxLine {
			return n, &errTooLong{line: l.lines + 1}
		}
		l.lines++
		l.sinceLine = 0
		b = b[i+1:]
	}
	switch {
	case l.maxLine > 0 && l.sinceLine > l.maxLine:
		return n, &errTooLong{line: l.lines + 1}
	case l.maxRecord > 0 && l.sinceReset > l.maxRecord:
		return n, &errTooLong{line: l.lines + 1, record: true}
	}
	return n, err
}

// reset starts counting a new record.
func (l *recordLimiter) reset() { l.sinceReset = 0 }

// tooLong returns the *errTooLong in err's chain, or nil.
func tooLong(err error) *errTooLong {
	var e *errTooLong
	if errors.As(err, &e) {
		return e
	}
	return nil
}
