package state

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kinds of ledger entry.
const (
	LedgerGrant  = "grant"  // credits added by an administrator
	LedgerAdjust = "adjust" // credits removed by an administrator
	// LedgerCharge is a per-query dataset charge: Credits is minus what
	// the price rule asked (the licence's price per started 100 frames
	// read), KeyID, Dataset and RequestID say what was charged, and Note
	// the frames read.
	LedgerCharge = "charge"
	// LedgerAnswer and LedgerRefund are a worded answer paid in credits
	// (Credits minus its cost) and the refund of one whose wording was
	// discarded or never delivered (Credits plus the cost). Both name the
	// key and the request.
	LedgerAnswer = "answer"
	LedgerRefund = "refund"
	// LedgerLicence debits a subscription's price when an organisation
	// licenses an offered dataset.
	LedgerLicence = "licence"
)

// Ledger notes of worded answers and their refunds.
const (
	NoteAnswer = "worded answer"
	NoteRefund = "worded answer refunded"
)

// maxNoteLen bounds a ledger note, in characters (Unicode code points).
const maxNoteLen = 200

// LedgerEntry is one change to an organisation's credit balance. Entries
// are append-only: never changed or removed once written.
type LedgerEntry struct {
	Seq     uint64    `json:"seq"`     // 1, 2, 3... per organisation, in the order written
	Time    time.Time `json:"time"`    // when, UTC
	Kind    string    `json:"kind"`    // LedgerGrant, LedgerAdjust, ...
	Credits int64     `json:"credits"` // the signed change; never zero
	Balance int64     `json:"balance"` // the balance after the change; never below zero

	Note      string `json:"note,omitempty"`      // why, as the administrator wrote it
	KeyID     string `json:"keyId,omitempty"`     // public id of the key whose request was charged
	Dataset   string `json:"dataset,omitempty"`   // dataset a per-query charge was for
	RequestID string `json:"requestId,omitempty"` // request that was charged
}

// CheckNote checks an administrator's note: required, at most 200
// characters of UTF-8 without control characters (notes are listed one a
// line). Errors: ErrInvalid.
func CheckNote(note string) error {
	switch {
	case strings.TrimSpace(note) == "":
		return Errorf(ErrInvalid, "a note is required: say why the credits change")
	case !utf8.ValidString(note):
		return Errorf(ErrInvalid, "invalid note: not UTF-8 text")
	case utf8.RuneCountInString(note) > maxNoteLen:
		return Errorf(ErrInvalid, "invalid note: %d characters, at most %d", utf8.RuneCountInString(note), maxNoteLen)
	}
	for _, r := range note {
		if unicode.IsControl(r) {
			return Errorf(ErrInvalid, "invalid note: control character %U", r)
		}
	}
	return nil
}

// CheckCreditChange is AddCredits's check of its arguments and returns the
// kind of the ledger entry (LedgerGrant or LedgerAdjust). Errors:
// ErrInvalid for n == 0 or a bad note.
func CheckCreditChange(n int64, note string) (kind string, err error) {
	if n == 0 {
		return "", Errorf(ErrInvalid, "invalid credit change: 0 credits; give a positive number to grant or a negative one to remove")
	}
	if err := CheckNote(note); err != nil {
		return "", err
	}
	if n < 0 {
		return LedgerAdjust, nil
	}
	return LedgerGrant, nil
}

// CreditsText formats |n| credits: "1 credit", "5 credits".
func CreditsText(n int64) string {
	if u := abs(n); u != 1 {
		return strconv.FormatUint(u, 10) + " credits"
	}
	return "1 credit"
}

// abs returns |n| as a uint64, which holds it even for math.MinInt64.
func abs(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// GroupDigits formats n with a comma between groups of three digits:
// 20,000.
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
