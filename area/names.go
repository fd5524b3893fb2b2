package area

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"frameindex/plan"
)

// Place names are compared by a key: lower case, accents removed, every
// run of punctuation or space dropped, doubled letters made single
// ("Nassarawa" and "Nasarawa", "Port-Harcourt" and "Port Harcourt" meet),
// after a trailing kind word ("LGA", "State", "Local Government Area")
// has been taken off and remembered as the kind the name asked for.

// kindWords are trailing words that say a name's kind, longest first.
var kindWords = []struct {
	words []string
	kind  string
}{
	{[]string{"local", "government", "area"}, "lga"},
	{[]string{"local", "government", "council"}, "lga"},
	{[]string{"local", "government"}, "lga"},
	{[]string{"l", "g", "a"}, "lga"},
	{[]string{"lga"}, "lga"},
	{[]string{"state"}, "state"},
	{[]string{"ward"}, "ward"},
}

// leadWords are leading words that say a kind: "Kano State" is also
// written "State of Kano".
var leadWords = []struct {
	words []string
	kind  string
}{
	{[]string{"state", "of"}, "state"},
}

// synonymPairs are other names of places that no spelling rule joins:
// each is looked up as the second name when the first matches no stored
// name itself ("Abuja" is an LGA of the demo's data, and the Federal
// Capital Territory where no LGA is called so).
var synonymPairs = [][2]string{
	{"FCT", "Federal Capital Territory"},
	{"Abuja", "Federal Capital Territory"},
	{"FCT Abuja", "Federal Capital Territory"},
	{"Abuja FCT", "Federal Capital Territory"},
	{"Abuja Federal Capital Territory", "Federal Capital Territory"},
	{"Federal Capital Territory Abuja", "Federal Capital Territory"},
	{"AMAC", "Municipal Area Council"},
	{"Abuja Municipal", "Municipal Area Council"},
	{"Abuja Municipal Area Council", "Municipal Area Council"},
	{"Koton Karfe", "Kogi"},
	{"Egbado North", "Yewa North"},
	{"Egbado South", "Yewa South"},
	{"Obi Ngwa", "Obi Nwga"},
	{"Yenagoa", "Yenegoa"},
	{"Arewa", "Arewa Dandi"},
}

// synonyms maps the key of each first name of synonymPairs to the key of
// its second.
var synonyms = func() map[string]string {
	m := make(map[string]string, len(synonymPairs))
	for _, p := range synonymPairs {
		m[nameKey(words(p[0]))] = nameKey(words(p[1]))
	}
	return m
}()

// countryKeys name the whole grid.
var countryKeys = map[string]bool{"nigeria": true, "national": true, "nationwide": true,
	"thewholecountry": true, "wholecountry": true, "thecountry": true, "federalrepublicofnigeria": true}

// IsCountry reports a name of the whole grid ("Nigeria", "national",
// "the whole country"): a selection of frames is always inside it.
func IsCountry(name string) bool {
	key, kind := Key(name)
	return (kind == "" || kind == "country") && countryKeys[key]
}

// words splits a name into lower-case words without accents; every
// character that is not a letter or digit separates words.
func words(s string) []string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// an accent: dropped
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// Qua'an: one word
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

// nameKey is the comparison key of a name given as words.
func nameKey(ws []string) string { return joinKey(ws, true) }

// joinKey joins words into a key, doubled letters made single when
// collapse is set.
func joinKey(ws []string, collapse bool) string {
	var b strings.Builder
	var last rune
	for _, w := range ws {
		for _, r := range w {
			if collapse && r == last && unicode.IsLetter(r) {
				continue
			}
			b.WriteRune(r)
			last = r
		}
	}
	return b.String()
}

// Key returns the comparison key of a place name and the kind its words
// ask for ("lga", "state", "ward", or "" when none): "Dala LGA" is
// ("dala", "lga"), "Akwa-Ibom State" ("akwaibom", "state").
func Key(name string) (key, kind string) {
	ws, kind := nameWords(name)
	return nameKey(ws), kind
}

// spelling is a name's key with its doubled letters kept: between two
// places whose keys meet ("Nassarawa" and "Nasarawa"), the one spelt as
// asked wins.
func spelling(name string) string {
	ws, _ := nameWords(name)
	return joinKey(ws, false)
}

// nameWords are a name's words without its kind words, and the kind
// they say.
func nameWords(name string) (ws []string, kind string) {
	ws = words(name)
	for _, k := range kindWords {
		n := len(k.words)
		if len(ws) > n && equalWords(ws[len(ws)-n:], k.words) {
			ws, kind = ws[:len(ws)-n], k.kind
			break
		}
	}
	if kind == "" {
		for _, k := range leadWords {
			n := len(k.words)
			if len(ws) > n && equalWords(ws[:n], k.words) {
				ws, kind = ws[n:], k.kind
				break
			}
		}
	}
	return ws, kind
}

// storedKey is the key of a name as a boundary dataset stores it: its
// kind words are part of the name ("Kano Municipal", "Ward 3") unless
// they repeat the attribute's own kind.
func storedKey(name, kind string) (key, spelt string) {
	ws, said := nameWords(name)
	if said != "" && said != kind {
		ws = words(name)
	}
	return nameKey(ws), joinKey(ws, false)
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// closeEnough reports whether a key typed differs from a stored key by a
// light misspelling: one letter added, dropped, changed or two
// neighbours swapped, in names of 6 letters or more. (Two edits would
// take "Ibadan North" for "Ibadan South".)
func closeEnough(typed, stored string) bool {
	if min(len([]rune(typed)), len([]rune(stored))) < 6 {
		return false
	}
	return plan.EditDistance(typed, stored, 1) <= 1
}
