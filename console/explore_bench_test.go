package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frameindex/admin"
	"frameindex/bolt"
)

// BenchmarkExploreTile: the web application's share of a map tile: the
// session check, the Explore key read and the hand-over to the API (a
// stand-in that answers at once).
func BenchmarkExploreTile(b *testing.B) {
	store, err := bolt.Open(filepath.Join(b.TempDir(), "frames.db"), bolt.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	if _, err := store.AddOrg(bolt.Org{ID: "acme", Plan: bolt.PlanPro}); err != nil {
		b.Fatal(err)
	}
	_, otp, err := store.AddUser(bolt.NewUser{Name: "mo", Email: "mo@example.ng", Org: "acme", Role: bolt.RoleMember, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.ChangePassword("mo", otp, passwords["mo"], time.Now()); err != nil {
		b.Fatal(err)
	}
	token, _, err := store.CreateSession("mo", "acme", "127.0.0.1", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	con := New(Config{Ops: &admin.Ops{Store: store}, FlushEvery: time.Hour})
	defer con.Close()
	con.Wrap(&fakeAPI{body: "x"})
	if _, _, err := store.MintKey(bolt.MintRequest{OrgID: "acme", Preset: "full", Name: consoleKeyName("mo")}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/console/explore/tiles/frames/9/%d/270", i%512), nil)
		r.AddCookie(&http.Cookie{Name: cookieSession, Value: token})
		w := httptest.NewRecorder()
		con.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkPlaceSearch: a search among 10,000 places.
func BenchmarkPlaceSearch(b *testing.B) {
	pd := &placeData{}
	for i := range 10000 {
		p := place{Name: fmt.Sprintf("Place %d Ward", i), Kind: "Ward"}
		pd.places = append(pd.places, p)
		pd.lower = append(pd.lower, strings.ToLower(p.Name))
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(pd.search("place 12", 12)) == 0 {
			b.Fatal("nothing found")
		}
	}
}
