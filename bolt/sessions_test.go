package bolt

import (
	"errors"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

func TestStore_Sessions(t *testing.T) {
	lim := state.SessionLimits{Idle: 30 * time.Minute, Absolute: 12 * time.Hour}
	tests := []struct {
		name    string
		touch   []time.Duration // touches after the start
		at      time.Duration   // lookup after the start
		wantErr error
	}{
		{name: "fresh", at: 0},
		{name: "idle just under the limit", at: 30*time.Minute - time.Second},
		{name: "idle at the limit", at: 30 * time.Minute, wantErr: state.ErrSessionExpired},
		{name: "touched keeps it alive", touch: []time.Duration{20 * time.Minute, 40 * time.Minute}, at: 60 * time.Minute},
		{name: "touches do not pass the absolute limit", touch: []time.Duration{5 * time.Hour, 10 * time.Hour, 11*time.Hour + 50*time.Minute}, at: 12 * time.Hour, wantErr: state.ErrSessionExpired},
		{name: "a touch in the past does not rewind", touch: []time.Duration{20 * time.Minute, 10 * time.Minute}, at: 49 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := mustUserStore(t)
			tok, se, err := s.CreateSession("olu", "acme", "192.0.2.7", testNow)
			if err != nil {
				t.Fatal(err)
			}
			if len(tok) != 43 || strings.Contains(se.CSRF, tok) || se.CSRF == "" || se.Addr != "192.0.2.7" {
				t.Fatalf("token %q, session %+v", tok, se)
			}
			for _, d := range tt.touch {
				if err := s.TouchSession(tok, testNow.Add(d)); err != nil {
					t.Fatal(err)
				}
			}
			got, u, err := s.Session(tok, testNow.Add(tt.at), lim)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Session error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (got.User != "olu" || got.Org != "acme" || got.CSRF != se.CSRF || u.Name != "olu") {
				t.Errorf("Session = %+v, %v", got, u)
			}
		})
	}
}

func TestStore_SessionLookups(t *testing.T) {
	s, _ := mustUserStore(t)
	if _, _, err := s.AddUser(state.NewUser{Name: "olu", Org: "rival", Role: state.RoleMember}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSession("olu", "nope", "", testNow); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session in a foreign organisation: %v", err)
	}
	if _, _, err := s.CreateSession("nobody", "acme", "", testNow); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session of nobody: %v", err)
	}
	tok, _, err := s.CreateSession("olu", "acme", "", testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "x", strings.Repeat("A", 43), tok[:42] + "!", tok + "A"} {
		if _, _, err := s.Session(bad, testNow, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", bad, err)
		}
	}
	se, err := s.SetSessionOrg(tok, "rival")
	if err != nil || se.Org != "rival" {
		t.Fatalf("SetSessionOrg = %+v, %v", se, err)
	}
	if _, err := s.SetSessionOrg(tok, "nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("SetSessionOrg(nope) = %v", err)
	}
	if _, err := s.SetSessionOrg("x", "acme"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("SetSessionOrg of a bad token = %v", err)
	}
	if err := s.EndSession(tok); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Session(tok, testNow, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("after EndSession: %v", err)
	}
	if err := s.EndSession(tok); err != nil {
		t.Errorf("second EndSession: %v", err)
	}
	if err := s.TouchSession(tok, testNow); err != nil {
		t.Errorf("touch of an ended session: %v", err)
	}
}

func TestStore_PruneSessions(t *testing.T) {
	s, _ := mustUserStore(t)
	old, _, _ := s.CreateSession("olu", "acme", "", testNow)
	fresh, _, _ := s.CreateSession("olu", "acme", "", testNow.Add(time.Hour))
	n, err := s.PruneSessions(testNow.Add(time.Hour+time.Minute), state.SessionLimits{Idle: 30 * time.Minute, Absolute: time.Hour * 12})
	if err != nil || n != 1 {
		t.Fatalf("PruneSessions = %d, %v; want 1", n, err)
	}
	if _, _, err := s.Session(old, testNow.Add(time.Hour), state.SessionLimits{Idle: 2 * time.Hour}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("pruned session: %v", err)
	}
	if _, _, err := s.Session(fresh, testNow.Add(time.Hour), state.SessionLimits{}); err != nil {
		t.Errorf("fresh session: %v", err)
	}
}
