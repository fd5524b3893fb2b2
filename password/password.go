// Package password says why a password is too easy to guess, after NIST
// SP 800-63B (5.1.1.2): a password is refused when it is one of the
// passwords most common in breach corpora (a list of about 49,000 in the
// binary: password/common.txt, MIT, vendored by
// scripts/vendor-passwords.sh), such a password with digits or symbols
// around it ("password1234!"), one repeated ("qwertyqwerty"), a run of
// one character, or a sequence ("123456789012", "abcdefghijkl"). Length
// and the person's own names are the caller's rules.
//
// It imports nothing of ours; Weak is safe for concurrent use.
package password

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
)

//go:embed common.txt
var commonText string

var (
	once   sync.Once
	common map[string]struct{}
)

func load() {
	common = make(map[string]struct{}, 50_000)
	for _, w := range strings.Split(commonText, "\n") {
		if w != "" {
			common[w] = struct{}{}
		}
	}
}

// minCore is the shortest common password that still refuses a password
// built around it: shorter ones ("abc", "2020") are parts of good
// passphrases too.
const minCore = 6

// Weak returns why pw is too easy to guess, for a person to read ("it is
// one of the most common passwords"), or "" when it is not.
func Weak(pw string) string {
	once.Do(load)
	lower := strings.ToLower(pw)
	if _, ok := common[lower]; ok {
		return "it is one of the most common passwords, which are tried first"
	}
	if isRun(lower) {
		return "it repeats one character"
	}
	if isSequence(lower) {
		return "it is a sequence of characters (like 123456789012 or abcdefghijkl)"
	}
	core := strings.TrimFunc(lower, func(r rune) bool {
		return unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r)
	})
	if core != lower && len(core) >= minCore {
		if _, ok := common[core]; ok {
			return "it is a common password with digits or symbols added, which are tried early"
		}
	}
	if w, ok := repeated(lower); ok && len(w) >= 3 {
		return "it repeats a shorter password (" + w + ")"
	}
	return ""
}

func isRun(s string) bool {
	r := []rune(s)
	for i := 1; i < len(r); i++ {
		if r[i] != r[0] {
			return false
		}
	}
	return len(r) > 0
}

// isSequence reports characters that climb or fall by one (digits wrap:
// 7890123...).
func isSequence(s string) bool {
	r := []rune(s)
	if len(r) < 4 {
		return false
	}
	for _, step := range []int{1, -1} {
		ok := true
		for i := 1; i < len(r) && ok; i++ {
			a, b := r[i-1], r[i]
			switch {
			case unicode.IsDigit(a) && unicode.IsDigit(b):
				ok = (int(a-'0')+step+10)%10 == int(b-'0')
			default:
				ok = int(b)-int(a) == step
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// repeated returns w when s is w written two or more times.
func repeated(s string) (string, bool) {
	for n := 1; n <= len(s)/2; n++ {
		if len(s)%n != 0 {
			continue
		}
		if strings.Repeat(s[:n], len(s)/n) == s {
			return s[:n], true
		}
	}
	return "", false
}
