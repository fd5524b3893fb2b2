package insight

import (
	"math"
	"testing"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{48210, "48,210"},
		{1234567, "1,234,567"},
		{-1234567, "-1,234,567"},
		{206000000, "206,000,000"},
		{1e15, "1,000,000,000,000,000"},
		{12.5, "12.5"},
		{36.625, "36.62"}, // an exact binary tie rounds to even
		{12.345678, "12.35"},
		{1234.5678, "1,234.57"},
		{12.999, "13"},
		{0.5, "0.5"},
		{0.0123, "0.012"},
		{0.000456, "0.00046"},
		{-0.25, "-0.25"},
		{-0.0001, "-0.0001"},
		{1e-20, "0"},
		{math.NaN(), "n/a"},
		{math.Inf(1), "n/a"},
		{math.Inf(-1), "n/a"},
	}
	for _, tc := range tests {
		if got := FormatNumber(tc.v); got != tc.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestPercent(t *testing.T) {
	tests := []struct {
		count, total int
		want         string
	}{
		{2, 3, "67%"}, {1, 3, "33%"}, {3, 3, "100%"}, {0, 3, "0%"}, {3, 5, "60%"},
		{199, 200, "99.5%"}, {1, 200, "1%"}, {1, 1000, "0.1%"}, {1, 5000, "0.1%"}, {4999, 5000, "99.9%"}, {1, 0, "0%"},
	}
	for _, tc := range tests {
		if got := percent(tc.count, tc.total); got != tc.want {
			t.Errorf("percent(%d, %d) = %q, want %q", tc.count, tc.total, got, tc.want)
		}
	}
}

func TestSummarizeNames(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"Kano"}, "Kano"},
		{[]string{"Kano", "Jigawa"}, "Kano, Jigawa (2 states)"},
		{[]string{"Kano", "Jigawa", "Katsina"}, "Kano, Jigawa, Katsina (3 states)"},
		{[]string{"Kano", "Jigawa", "Katsina", "Kaduna", "Lagos", "Oyo", "Ogun"}, "Kano, Jigawa, Katsina and 4 more (7 states)"},
	}
	for _, tc := range tests {
		if got := summarizeNames(tc.names, "states"); got != tc.want {
			t.Errorf("summarizeNames(%v) = %q, want %q", tc.names, got, tc.want)
		}
	}
	if got := namesInProse([]string{"A", "B", "C", "D"}, "states"); got != "A, B, C and 1 other state" {
		t.Errorf("namesInProse = %q", got)
	}
	if got := namesInProse([]string{"A", "B"}, "states"); got != "A and B" {
		t.Errorf("namesInProse = %q", got)
	}
}

func TestPhrases(t *testing.T) {
	for in, want := range map[string]string{
		"state": "states", "local government area": "local government areas", "settlement class": "settlement classes",
		"facility": "facilities", "day": "days", "box": "boxes", "buildings": "buildings", "": "",
	} {
		if got := pluralPhrase(in); got != want {
			t.Errorf("pluralPhrase(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"health facilities": "health facility", "buildings": "building", "Buildings": "Building",
		"settlement classes": "settlement class", "people": "person", "nW/cm²/sr": "nW/cm²/sr", "radiance": "radiance",
	} {
		if got := singularPhrase(in); got != want {
			t.Errorf("singularPhrase(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Estimated population": "estimated population", "LGA count": "LGA count", "Night-time light radiance": "night-time light radiance", "": "",
	} {
		if got := lowerLabel(in); got != want {
			t.Errorf("lowerLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"Buildings": true, "Health facilities": true, "Settlement class": false,
		"Estimated population": false, "Status": false, "Night-time light radiance": false} {
		if got := isCountLabel(in); got != want {
			t.Errorf("isCountLabel(%q) = %v", in, got)
		}
	}
}
