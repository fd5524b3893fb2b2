package state

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Org is an organisation.
type Org struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Plan    string    `json:"plan"`
	Created time.Time `json:"created"`
	// Credits is the balance: the sum of the changes in the organisation's
	// ledger, never below zero. It changes only in the transaction that
	// appends the ledger entry recording the change.
	Credits int64 `json:"credits"`
}

// Plans an organisation can be on (docs/contract.md §6).
const (
	PlanTrial = "trial"
	PlanPro   = "pro"
	PlanScale = "scale"
)

// PlanAllowance is the number of worded answers a month (calendar month,
// UTC) each plan includes (spec, Allowances); beyond it answers draw on the
// organisation's credits. Its keys are the only plans there are. Treat as
// read-only.
var PlanAllowance = map[string]int{PlanTrial: 100, PlanPro: 2000, PlanScale: 20000}

// DailyCeiling is the most worded answers an organisation gets in one UTC
// day, whatever its plan and credits (spec, Allowances).
const DailyCeiling = 1000

// CheckPlan refuses a plan that is not a key of PlanAllowance, listing the
// plans from the smallest allowance up: `must be trial, pro or scale`.
// Errors: ErrInvalid.
func CheckPlan(plan string) error {
	if _, ok := PlanAllowance[plan]; ok {
		return nil
	}
	names := make([]string, 0, len(PlanAllowance))
	for n := range PlanAllowance {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(PlanAllowance[a], PlanAllowance[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " or " + list
	}
	return Errorf(ErrInvalid, "invalid plan %q: must be %s", plan, list)
}

// IDRule is the syntax of organisation and dataset ids: lowercase ASCII
// letters, digits, '_' and '-', starting with a letter or digit, 1 to 64
// characters. Ids appear in URLs, file names and logs unescaped.
const IDRule = `^[a-z0-9][a-z0-9_-]{0,63}$`

// idPattern is IDRule compiled; ValidID checks the same by hand, as ids
// are checked on every charge (FuzzValidID compares the two).
var idPattern = regexp.MustCompile(IDRule)

// ValidID reports whether id follows IDRule.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// MaxNameLen bounds the display names of organisations, keys, datasets
// and attributes, in bytes.
const MaxNameLen = 200

// CheckName checks a display name: at most MaxNameLen bytes of UTF-8
// without control characters (names are printed in one-line listings).
// Errors: ErrInvalid naming what.
func CheckName(what, name string) error {
	if len(name) > MaxNameLen || !utf8.ValidString(name) {
		return Errorf(ErrInvalid, "invalid %s name: must be UTF-8 text of at most %d bytes", what, MaxNameLen)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return Errorf(ErrInvalid, "invalid %s name: control character %U", what, r)
		}
	}
	return nil
}

// CheckText checks a free text (description, source, unit, alias, licence
// text): UTF-8 of at most max bytes; control characters other than
// newline and tab only where multiline allows them. Errors: ErrInvalid
// naming what.
func CheckText(what, text string, max int, multiline bool) error {
	if len(text) > max || !utf8.ValidString(text) {
		return Errorf(ErrInvalid, "invalid %s: must be UTF-8 text of at most %d bytes", what, max)
	}
	for _, r := range text {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) {
			return Errorf(ErrInvalid, "invalid %s: control character %U", what, r)
		}
	}
	return nil
}

// Clip shortens text quoted in a message to n bytes of valid UTF-8,
// marking the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// CheckNewOrg applies AddOrg's checks and defaults to o and returns it as
// AddOrg stores it: o.ID must follow IDRule; o.Name defaults to the id;
// o.Plan to trial; o.Created to now, in UTC. o.Credits must be zero:
// credits come only through AddCredits, so that the ledger accounts for
// every one. Errors: ErrInvalid naming the rule broken.
func CheckNewOrg(o Org, now time.Time) (Org, error) {
	if !ValidID(o.ID) {
		return Org{}, Errorf(ErrInvalid, "invalid organisation id %q: must match %s (lowercase letters, digits, '_' and '-', up to 64)", o.ID, IDRule)
	}
	if o.Name == "" {
		o.Name = o.ID
	}
	if err := CheckName("organisation", o.Name); err != nil {
		return Org{}, err
	}
	if o.Plan == "" {
		o.Plan = PlanTrial
	}
	if err := CheckPlan(o.Plan); err != nil {
		return Org{}, err
	}
	if o.Credits != 0 {
		return Org{}, Errorf(ErrInvalid, "invalid organisation %q: a new organisation starts with 0 credits (asked for %d); grant credits with a ledger entry", o.ID, o.Credits)
	}
	if o.Created.IsZero() {
		o.Created = now
	}
	o.Created = o.Created.Round(0).UTC()
	return o, nil
}
