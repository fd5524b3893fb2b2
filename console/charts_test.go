package console

import (
	"encoding/xml"
	"path"
	"strings"
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {20000, "20,000"}, {1234567, "1,234,567"},
		{-1, "-1"}, {-1234, "-1,234"}, {-9223372036854775808, "-9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		if got := thousands(tt.in); got != tt.want {
			t.Errorf("thousands(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNiceMax(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 1}, {1, 1}, {1.5, 2}, {3, 5}, {7, 10}, {11, 20}, {21, 25}, {26, 50}, {999, 1000}, {1001, 2000},
	}
	for _, tt := range tests {
		if got := niceMax(tt.in); got != tt.want {
			t.Errorf("niceMax(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Every chart is well-formed XML, escapes its labels and carries a text
// alternative.
func TestCharts(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	evil := `<script>alert("x")</script>&`
	tests := []struct {
		name string
		svg  string
	}{
		{"meter", string(meterChart("m", "Answers "+evil, 12, 100))},
		{"meter full", string(meterChart("m", "Answers", 150, 100))},
		{"meter of nothing", string(meterChart("m", "Answers", 0, 0))},
		{"columns", string(columnChart("c", "Per day", "answers", []string{"1", "2", evil}, []int64{0, 5, 12}))},
		{"columns, none", string(columnChart("c", "Per day", "answers", nil, nil))},
		{"columns, many", string(columnChart("c", "Per day", "answers", make([]string, 31), make([]int64, 31)))},
		{"bars", string(barChart("b", "Charges", "credits", []string{"nightlights", evil + strings.Repeat("x", 30)}, []int64{3, 0}))},
		{"steps", string(stepChart("s", "Balance", []time.Time{day, day.Add(time.Hour), day.AddDate(0, 0, 3)}, []int64{50, 49, 100}))},
		{"one step", string(stepChart("s", "Balance", []time.Time{day}, []int64{50}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.svg, "<script") {
				t.Fatal("label not escaped")
			}
			dec := xml.NewDecoder(strings.NewReader(tt.svg))
			for {
				_, err := dec.Token()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("not well-formed: %v\n%s", err, tt.svg)
					}
					break
				}
			}
			if !strings.Contains(tt.svg, `role="img"`) || !strings.Contains(tt.svg, "<title") || !strings.Contains(tt.svg, "<desc") {
				t.Error("no text alternative")
			}
			if strings.Contains(tt.svg, "NaN") || strings.Contains(tt.svg, "Inf") {
				t.Errorf("bad number in %s", tt.svg)
			}
		})
	}
}

// FuzzLocalNext: whatever the sign-in form's "next" holds, the redirect
// stays inside the web application.
func FuzzLocalNext(f *testing.F) {
	for _, s := range []string{"/console/usage", "https://evil.example", "//evil", "/console/../v1", "/console/%2e%2e/", "/console/\\x", "", "/console/keys?x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := localNext(next)
		if !strings.HasPrefix(got, Prefix) || strings.Contains(got, "//") || strings.ContainsAny(got, "\\\r\n") {
			t.Fatalf("localNext(%q) = %q", next, got)
		}
		if c := path.Clean(got); !strings.HasPrefix(c+"/", Prefix) {
			t.Fatalf("localNext(%q) = %q, which cleans to %q", next, got, c)
		}
	})
}
