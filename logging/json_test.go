package logging

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"
)

// The fast handler must write exactly what slog.JSONHandler writes.
func TestFastJSONHandler_MatchesJSONHandler(t *testing.T) {
	at := time.Date(2026, 11, 22, 2, 50, 18, 588658800, time.UTC)
	cases := []struct {
		name  string
		msg   string
		attrs []slog.Attr
	}{
		{"access line", "request", []slog.Attr{slog.String("id", "31d7a099bcd0615e"), slog.String("method", "GET"),
			slog.String("path", "/v1/frames"), slog.Int("status", 200), slog.Int64("bytes", 551),
			slog.Duration("duration", 66059*time.Nanosecond), slog.String("route", "GET /v1/frames"), slog.String("key", "key_ysm3x7mlq2gy")}},
		{"no attrs", "stopped", nil},
		{"bools and uints", "x", []slog.Attr{slog.Bool("aborted", true), slog.Uint64("n", math.MaxUint64), slog.Int("neg", -5)}},
		{"escapes in a value", "x", []slog.Attr{slog.String("path", "/a\"b\\c<d>&\n\u00e9")}},
		{"escapes in the message", "line\nbreak", nil},
		{"escapes in a key", "x", []slog.Attr{slog.String("k\"", "v")}},
		{"float", "x", []slog.Attr{slog.Float64("ms", 0.846), slog.Float64("big", 1e21)}},
		{"error", "x", []slog.Attr{slog.Any("err", errors.New("boom"))}},
		{"group", "x", []slog.Attr{slog.Group("g", slog.Int("a", 1))}},
		{"time", "x", []slog.Attr{slog.Time("t", at)}},
		{"empty string", "", []slog.Attr{slog.String("", "")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, level := range []slog.Level{slog.LevelInfo, slog.LevelError, slog.LevelWarn + 1} {
				var fast, std bytes.Buffer
				r := slog.NewRecord(at, level, tc.msg, 0)
				r.AddAttrs(tc.attrs...)
				if err := NewJSONHandler(&fast, nil).Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				if err := slog.NewJSONHandler(&std, nil).Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				if fast.String() != std.String() {
					t.Fatalf("fast:     %s\nstandard: %s", fast.String(), std.String())
				}
				var parts bytes.Buffer
				if err := NewJSONHandler(&parts, nil).(AttrsHandler).HandleAttrs(context.Background(), at, level, tc.msg, tc.attrs); err != nil {
					t.Fatal(err)
				}
				if parts.String() != std.String() {
					t.Fatalf("HandleAttrs: %s\nstandard:    %s", parts.String(), std.String())
				}
			}
		})
	}
}

func TestFastJSONHandler_LevelAndDerived(t *testing.T) {
	var buf bytes.Buffer
	h := NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelError) {
		t.Fatal("level not honoured")
	}
	slog.New(h).With("svc", "frameindex").Error("x", "n", 1)
	if got := buf.String(); got == "" || !bytes.Contains(buf.Bytes(), []byte(`"svc":"frameindex","n":1`)) {
		t.Fatalf("derived logger wrote %q", got)
	}
}

func BenchmarkAccessLine(b *testing.B) {
	attrs := []slog.Attr{slog.String("id", "31d7a099bcd0615e"), slog.String("method", "GET"),
		slog.String("path", "/v1/frames/at"), slog.Int("status", 200), slog.Int64("bytes", 300),
		slog.Duration("duration", 3*time.Microsecond), slog.String("route", "GET /v1/frames/at"), slog.String("key", "key_ysm3x7mlq2gy")}
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{{"fast", NewJSONHandler(discard{}, nil)}, {"standard", slog.NewJSONHandler(discard{}, nil)}} {
		b.Run(bc.name, func(b *testing.B) {
			l := slog.New(bc.h)
			b.ReportAllocs()
			for b.Loop() {
				l.LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
			}
		})
	}
	// The access log's own paths: a record handed to the handler, and the
	// attributes handed over as they are.
	h := NewJSONHandler(discard{}, nil)
	b.Run("record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
			r.AddAttrs(attrs...)
			_ = h.Handle(context.Background(), r)
		}
	})
	b.Run("attrs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.(AttrsHandler).HandleAttrs(context.Background(), time.Now(), slog.LevelInfo, "request", attrs)
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
