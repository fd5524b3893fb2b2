package password

import (
	"strings"
	"testing"
)

func TestWeak(t *testing.T) {
	weak := []string{
		"123456789012", // the issue's: a sequence, and all digits
		"1qaz2wsx3edc", "qazwsxedcrfv", "leavemealone",
		"PASSWORD", "Password1234!", "sunshine2024", "!!iloveyou!!",
		"qwertyqwerty", "abcabcabcabc", "aaaaaaaaaaaa", "abcdefghijkl", "210987654321",
		"monkeymonkeymonkey",
	}
	for _, pw := range weak {
		if Weak(pw) == "" {
			t.Errorf("%q accepted", pw)
		}
	}
	strong := []string{
		"correct horse battery staple", "Kano market at dawn 7", "tr0mb0ne-under-the-baobab",
		"vG8#qL2!mZ5w", "abc-xyz-2020-lagos", "1234 wooden spoons",
	}
	for _, pw := range strong {
		if r := Weak(pw); r != "" {
			t.Errorf("%q refused: %s", pw, r)
		}
	}
}

func TestCommonList(t *testing.T) {
	once.Do(load)
	if len(common) < 40_000 {
		t.Fatalf("%d common passwords loaded", len(common))
	}
	for w := range common {
		if w != strings.ToLower(w) || strings.TrimSpace(w) != w {
			t.Fatalf("list entry %q is not lower case and trimmed", w)
		}
	}
}

func FuzzWeak(f *testing.F) {
	for _, s := range []string{"", "a", "123456789012", "password", "ßßß", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Weak(s)
		if _, ok := common[strings.ToLower(s)]; ok && r == "" {
			t.Errorf("%q is in the list but was accepted", s)
		}
	})
}

func BenchmarkWeak(b *testing.B) {
	Weak("warm-up")
	b.ReportAllocs()
	for b.Loop() {
		Weak("Kano market at dawn 7")
	}
}
