package state

import "time"

// Usage is what an organisation has used in the current calendar month and
// day (UTC), against its plan, with its credit balance.
type Usage struct {
	OrgID            string          `json:"org"`
	Plan             string          `json:"plan"`
	Month            string          `json:"month"`             // "2026-11", UTC
	Day              string          `json:"day"`               // "2026-11-22", UTC
	Allowance        int             `json:"allowance"`         // worded answers the plan includes this month
	AnswersThisMonth int             `json:"answersThisMonth"`  // worded answers given this month, allowance and credits alike
	DailyCeiling     int             `json:"dailyCeiling"`      // DailyCeiling
	AnswersToday     int             `json:"answersToday"`      // worded answers given today
	Credits          int64           `json:"credits"`           // the balance now
	Charges          []DatasetCharge `json:"charges,omitempty"` // per-query charges this month, by dataset id
}

// DatasetCharge is what one per-query dataset cost an organisation in a
// month: the requests it was charged on and the credits they took.
type DatasetCharge struct {
	Dataset  string `json:"dataset"`
	Requests int    `json:"requests"`
	Credits  int64  `json:"credits"`
}

// UsageCounter is one usage counter of an organisation as stored: a count
// and the credits it took, never negative.
type UsageCounter struct {
	Name    string
	Count   int64
	Credits int64
}

// Names of usage counters: "answers:" and a UTC month or day, or
// "charges:", a UTC month, ':' and a dataset id. Dataset ids hold no ':',
// so a name reads back one way only.
const (
	counterAnswers = "answers:"
	counterCharges = "charges:"
	// MonthLayout and DayLayout are the time layouts of a month and a
	// day in counter names and reservations.
	MonthLayout = "2006-01"
	DayLayout   = "2006-01-02"
)

// MonthOf and DayOf name the UTC month ("2026-11") and day ("2026-11-22")
// of t, as usage counters and reservations do.
func MonthOf(t time.Time) string { return t.UTC().Format(MonthLayout) }

// DayOf: see MonthOf.
func DayOf(t time.Time) string { return t.UTC().Format(DayLayout) }

// AnswersCounter names the worded-answer usage counter of a month or day.
func AnswersCounter(period string) string { return counterAnswers + period }

// ChargesPrefix is the start of the names of a month's charge counters.
func ChargesPrefix(month string) string { return counterCharges + month + ":" }

// ChargesCounter names the usage counter of a dataset's per-query charges
// in a month.
func ChargesCounter(month, dataset string) string { return ChargesPrefix(month) + dataset }

// Sources a worded answer is paid from (Reservation.Source).
const (
	SourceAllowance = "allowance" // the plan's monthly allowance
	SourceCredits   = "credits"   // the organisation's credits
)

// Reservation is one worded answer reserved by ReserveAnswer: counted in
// the organisation's usage and, when paid in credits, debited, but not yet
// committed (delivered) or refunded. Pass it back unchanged to
// CommitAnswer or RefundAnswer.
type Reservation struct {
	ID        uint64    `json:"id"` // 1, 2, 3... across the store, never reused
	OrgID     string    `json:"org"`
	KeyID     string    `json:"keyId,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
	Source    string    `json:"source"`            // SourceAllowance or SourceCredits
	Credits   int64     `json:"credits,omitempty"` // credits debited: 0 from the allowance
	Month     string    `json:"month"`             // UTC month it counts in, "2026-11"
	Day       string    `json:"day"`               // UTC day it counts in, "2026-11-22"
	Time      time.Time `json:"time"`              // when it was reserved, UTC
}
