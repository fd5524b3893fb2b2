package console

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"frameindex/admin"
	"frameindex/state"
)

// historyLimit is how many of the newest ledger entries the usage page
// shows and charts.
const historyLimit = 100

type dayRow struct {
	Day     string
	Answers int64
}

type chargeRow struct {
	Dataset  string
	Requests int64
	Credits  int64
}

type ledgerRow struct {
	Time    string
	Kind    string
	Change  string
	Balance int64
	About   string
}

type usageData struct {
	OrgName, Plan                string
	Month, Day                   string
	Allowance, AnswersMonth      int64
	DailyCeiling, AnswersToday   int64
	FromCredits                  int64 // worded answers this month beyond the allowance
	Credits                      int64
	MonthChart, TodayChart       template.HTML
	MonthShare, TodayShare       string // "12%"
	Daily                        []dayRow
	DailyChart                   template.HTML
	Charges                      []chargeRow
	ChargesChart                 template.HTML
	ChargeRequests, ChargeCredit int64
	Ledger                       []ledgerRow
	BalanceChart                 template.HTML
}

// planLabels name the plans for people.
var planLabels = map[string]string{state.PlanTrial: "Trial", state.PlanPro: "Pro", state.PlanScale: "Scale"}

func (s *Server) handleUsage(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	u, err := s.ops.Usage(s.as(r), admin.UsageReq{OrgID: rq.org})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	org, err := s.ops.ShowOrg(s.as(r), admin.OrgShow{ID: rq.org, Limit: historyLimit})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := usageData{OrgName: org.Name, Plan: planLabels[u.Plan], Month: u.Month, Day: u.Day,
		Allowance: int64(u.Allowance), AnswersMonth: int64(u.AnswersThisMonth), DailyCeiling: int64(u.DailyCeiling),
		AnswersToday: int64(u.AnswersToday), Credits: u.Credits}
	if d.Plan == "" {
		d.Plan = u.Plan
	}
	d.FromCredits = max(0, d.AnswersMonth-d.Allowance)
	d.MonthShare, d.TodayShare = share(d.AnswersMonth, d.Allowance), share(d.AnswersToday, d.DailyCeiling)
	d.MonthChart = meterChart("month", "Worded answers this month against the plan's allowance", d.AnswersMonth, d.Allowance)
	d.TodayChart = meterChart("today", "Worded answers today against the daily ceiling", d.AnswersToday, d.DailyCeiling)

	// Worded answers day by day this month, from the daily counters.
	now := s.now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 12, 0, 0, 0, time.UTC)
	var labels []string
	var values []int64
	for day := first; day.Month() == now.Month() && !day.After(now.Add(12*time.Hour)); day = day.AddDate(0, 0, 1) {
		du, err := s.state.Usage(rq.org, day)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		d.Daily = append(d.Daily, dayRow{Day: day.Format("2 Jan"), Answers: int64(du.AnswersToday)})
		labels = append(labels, day.Format("2"))
		values = append(values, int64(du.AnswersToday))
	}
	d.DailyChart = columnChart("daily", "Worded answers per day, "+now.Format("January 2006"), "answers", labels, values)

	labels, values = nil, nil
	for _, c := range u.Charges {
		d.Charges = append(d.Charges, chargeRow{Dataset: c.Dataset, Requests: int64(c.Requests), Credits: c.Credits})
		d.ChargeRequests += int64(c.Requests)
		d.ChargeCredit += c.Credits
		labels = append(labels, c.Dataset)
		values = append(values, c.Credits)
	}
	if len(d.Charges) > 0 {
		d.ChargesChart = barChart("charges", "Credits charged per dataset this month", "credits", labels, values)
	}

	var times []time.Time
	values = nil
	for _, e := range org.Ledger {
		times = append(times, e.Time)
		values = append(values, e.Balance)
	}
	if len(times) > 0 {
		d.BalanceChart = stepChart("balance", "Credit balance over time", times, values)
	}
	for i := len(org.Ledger) - 1; i >= 0; i-- {
		e := org.Ledger[i]
		change := thousands(e.Credits)
		if e.Credits > 0 {
			change = "+" + change
		}
		var about []string
		if e.Note != "" {
			about = append(about, e.Note)
		}
		if e.Dataset != "" {
			about = append(about, "dataset "+e.Dataset)
		}
		if e.KeyID != "" {
			about = append(about, "key "+e.KeyID)
		}
		d.Ledger = append(d.Ledger, ledgerRow{Time: timeText(e.Time), Kind: e.Kind, Change: change, Balance: e.Balance,
			About: strings.Join(about, ", ")})
	}
	p := s.newPage(r, "Usage and credits", "usage")
	p.Data = d
	s.render(w, r, http.StatusOK, "usage", p)
}

// share is used as a percentage of total, rounded: "0%", "37%", "112%".
func share(used, total int64) string {
	if total <= 0 {
		return "0%"
	}
	return strconv.FormatInt((used*100+total/2)/total, 10) + "%"
}

type auditRow struct {
	Time, Actor, Addr, Action, Target, Outcome, Detail string
}

// auditLimit is how many of the newest audit entries the page shows.
const auditLimit = 200

func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	if !can(rq.role, actAudit) {
		s.deny(w, r, admin.OpAuditList, "", "only owners read the audit log")
		return
	}
	entries, err := s.ops.AuditLog(s.as(r), admin.AuditList{OrgID: rq.org, Limit: auditLimit})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rows []auditRow
	for _, e := range entries {
		detail := e.Detail
		if e.Reason != "" {
			detail = strings.TrimSpace(detail + " " + e.Reason)
		}
		rows = append(rows, auditRow{Time: e.Time.UTC().Format("2006-01-02 15:04:05"), Actor: e.Actor, Addr: e.Addr,
			Action: e.Action, Target: e.Target, Outcome: e.Outcome, Detail: detail})
	}
	p := s.newPage(r, "Audit log", "audit")
	p.Data = rows
	s.render(w, r, http.StatusOK, "audit", p)
}
