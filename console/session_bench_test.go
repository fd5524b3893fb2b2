package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
	"frameindex/state"
	"frameindex/state/pgstate"
	"frameindex/state/pgstate/pgtest"
)

// BenchmarkConsolePage: the keys page of a signed-in person, with people,
// sessions, organisations and keys in the node's file and in PostgreSQL
// (a node of several, serve --state). The difference is what reading the
// session (one statement) and the page's state from the database adds.
func BenchmarkConsolePage(b *testing.B) {
	old := state.PasswordHashParams
	state.PasswordHashParams = state.HashParams{Memory: 64, Time: 1, Threads: 1}
	b.Cleanup(func() { state.PasswordHashParams = old })
	file, err := bolt.Open(filepath.Join(b.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { file.Close() })
	// fill gives st an organisation with a key and a signed-in owner, and
	// returns the session's token.
	fill := func(st state.Store) string {
		if _, err := st.AddOrg(state.Org{ID: "acme", Plan: state.PlanPro}); err != nil {
			b.Fatal(err)
		}
		if _, _, err := st.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Name: "acme app"}); err != nil {
			b.Fatal(err)
		}
		_, otp, err := st.AddUser(state.NewUser{Name: "olu", Org: "acme", Role: state.RoleOwner})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.ChangePassword("olu", otp, passwords["olu"], time.Time{}); err != nil {
			b.Fatal(err)
		}
		token, _, err := st.CreateSession("olu", "acme", "127.0.0.1", time.Now())
		if err != nil {
			b.Fatal(err)
		}
		return token
	}
	page := func(b *testing.B, ops *admin.Ops, token string) {
		con := New(Config{Ops: ops, FlushEvery: time.Hour})
		defer con.Close()
		b.ReportAllocs()
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			r := httptest.NewRequest(http.MethodGet, "/console/keys", nil)
			r.AddCookie(&http.Cookie{Name: cookieSession, Value: token})
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			w := httptest.NewRecorder()
			con.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %.300s", w.Code, w.Body)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds()), "median-µs/page")
	}
	fileToken := fill(file)
	b.Run("file", func(b *testing.B) { page(b, &admin.Ops{Store: file}, fileToken) })

	c := pgtest.Start(b)
	url := c.NewDatabase(b)
	if _, err := pgstate.Migrate(context.Background(), url); err != nil {
		b.Fatal(err)
	}
	pg, err := pgstate.Open(context.Background(), url, pgstate.Options{Catalogue: file})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pg.Close)
	pgToken := fill(pg)
	b.Run("postgres", func(b *testing.B) { page(b, &admin.Ops{Store: file, State: pg}, pgToken) })
}
