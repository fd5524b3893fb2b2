package grid

import (
	"encoding/json"
	"testing"
)

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r\x00\x1f", "Kano – Nassarawa <&>", "\u2028"} {
		got := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("AppendJSONString(%q) = %s, reads back as %q (%v)", s, got, back, err)
		}
	}
	if got := string(AppendJSONString(nil, "a<b&c\u00e9")); got != `"a<b&c`+"\u00e9"+`"` {
		t.Errorf("got %s: want the text kept, without HTML escapes", got)
	}
}
