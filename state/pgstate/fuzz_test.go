package pgstate_test

import (
	"net/url"
	"strings"
	"testing"

	"frameindex/state/pgstate"
)

// FuzzRedact: whatever --state holds, Redact never panics and never
// returns a password the URL carries (as user information or as the
// password parameter).
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"postgres://u:pw@h:5432/db?sslmode=require",
		"postgres://h/db?password=pw&sslmode=disable",
		"postgresql://u:p%40ss@[::1]:5432/db",
		"host=h password=pw",
		"postgres://u:pw@h/db?password=other",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out := pgstate.Redact(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" {
			return
		}
		var secrets []string
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
		secrets = append(secrets, u.Query()["password"]...)
		for _, p := range secrets {
			// A password of a few characters may appear by chance
			// elsewhere in the URL (the host, "xxxxx"): only longer
			// ones that appear nowhere else are checked.
			if len(p) < 6 || strings.Count(raw, p) > 1 || strings.Contains("xxxxx", p) {
				continue
			}
			rest := strings.Replace(raw, p, "", 1)
			if strings.Contains(out, p) && !strings.Contains(rest, p) {
				t.Fatalf("Redact(%q) = %q shows the password %q", raw, out, p)
			}
		}
	})
}
