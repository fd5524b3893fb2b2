package cli

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"frameindex/limiter"
)

func TestOpenLimiter(t *testing.T) {
	tests := []struct {
		name, url string
		err       string // in the error; "" = none
		log       string // in the log
	}{
		{"default", "", "", "in this process"},
		{"memory", "memory", "", "in this process"},
		{"redis down at start-up", "redis://ops:hunter2@127.0.0.1:1/0", "", "requests pass unmetered"},
		{"not a store", "http://cache:6379", "invalid URL scheme", ""},
		{"bad port, password kept out", "redis://ops:hunter2@cache:port/0", "invalid port", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			lim, closeLim, err := openLimiter(context.Background(), tc.url, limiter.DefaultConfig(), log)
			if strings.Contains(buf.String(), "hunter2") || (err != nil && strings.Contains(err.Error(), "hunter2")) {
				t.Fatalf("password shown: %v\n%s", err, buf.String())
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--limiter") {
					t.Fatalf("error %v, want one naming --limiter with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer closeLim()
			if !strings.Contains(buf.String(), tc.log) {
				t.Fatalf("log %q, want %q", buf.String(), tc.log)
			}
			if tc.url != "" && tc.url != "memory" && !strings.Contains(buf.String(), "xxxxx@127.0.0.1:1") {
				t.Fatalf("log does not name the server: %s", buf.String())
			}
			// A store that does not answer: the request passes, unmetered.
			if _, err := lim.Request("k", "o", false); err != nil && !strings.Contains(tc.name, "down") {
				t.Fatal(err)
			}
		})
	}
}
