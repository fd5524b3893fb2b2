package statetest

import (
	"testing"
	"time"

	"frameindex/state"
)

// cheapHashing makes argon2id cheap for the test: hashes still verify by
// the parameters they carry.
func cheapHashing(t *testing.T) {
	old := state.PasswordHashParams
	state.PasswordHashParams = state.HashParams{Memory: 64, Time: 1, Threads: 1}
	t.Cleanup(func() { state.PasswordHashParams = old })
}

// ownPassword is a password that passes state.CheckPassword.
const ownPassword = "copper kettle under lagoon rain"

// addUser adds a person and returns their one-time password ("" when
// they joined).
func addUser(t *testing.T, s state.Store, name, email, org, role string) string {
	t.Helper()
	_, otp, err := s.AddUser(state.NewUser{Name: name, Email: email, Org: org, Role: role, Now: T0})
	must(t, err)
	return otp
}

func orgsOf(u state.User) string {
	out := ""
	for _, m := range u.Orgs {
		out += m.Org + ":" + m.Role + " "
	}
	return out
}

func testPeople(t *testing.T, e Env) {
	cheapHashing(t)
	s := e.Store
	if users, err := s.Users(""); err != nil || users != nil {
		t.Fatalf("an empty store's people: %#v %v", users, err)
	}
	addOrg(t, s, "acme")
	addOrg(t, s, "rival")
	u, otp, err := s.AddUser(state.NewUser{Name: "olu", Email: " Olu@Example.NG", Org: "acme", Role: state.RoleOwner, Now: T0})
	must(t, err)
	if otp == "" || u.Email != "olu@example.ng" || !u.MustChange || !u.TempExpires.Equal(T0.Add(state.OneTimePasswordTTL)) ||
		!u.Created.Equal(T0) || !u.PasswordSet.Equal(T0) || orgsOf(u) != "acme:owner " {
		t.Fatalf("AddUser: %+v %q", u, otp)
	}
	_, _, err = s.AddUser(state.NewUser{Name: "olu", Org: "acme", Role: state.RoleMember})
	wantErr(t, err, state.ErrExists, "AddUser to an organisation the person is in")
	_, _, err = s.AddUser(state.NewUser{Name: "olu", Email: "other@example.ng", Org: "rival", Role: state.RoleMember})
	wantErr(t, err, state.ErrInvalid, "AddUser of an existing person with another e-mail address")
	_, _, err = s.AddUser(state.NewUser{Name: "ada", Email: "OLU@example.ng", Org: "acme", Role: state.RoleMember})
	wantErr(t, err, state.ErrExists, "AddUser with another person's e-mail address")
	_, _, err = s.AddUser(state.NewUser{Name: "ada", Org: "nowhere", Role: state.RoleMember})
	wantErr(t, err, state.ErrNotFound, "AddUser to an unknown organisation")
	_, _, err = s.AddUser(state.NewUser{Name: "Ada!", Org: "acme", Role: state.RoleMember})
	wantErr(t, err, state.ErrInvalid, "AddUser with a bad name")
	_, _, err = s.AddUser(state.NewUser{Name: "ada", Org: "acme", Role: "boss"})
	wantErr(t, err, state.ErrInvalid, "AddUser with a bad role")
	joined, again, err := s.AddUser(state.NewUser{Name: "olu", Org: "rival", Role: state.RoleMember, Now: T0})
	must(t, err)
	if again != "" || orgsOf(joined) != "acme:owner rival:member " || !joined.MustChange {
		t.Fatalf("AddUser of an existing person: %+v %q", joined, again)
	}
	addUser(t, s, "ada", "", "acme", state.RoleMember)
	names := func(org string) string {
		t.Helper()
		users, err := s.Users(org)
		must(t, err)
		out := ""
		for _, u := range users {
			out += u.Name + " "
		}
		return out
	}
	if got := names("acme"); got != "ada olu " {
		t.Fatalf("Users(acme): %q", got)
	}
	if got := names("rival"); got != "olu " {
		t.Fatalf("Users(rival): %q", got)
	}
	_, err = s.Users("nowhere")
	wantErr(t, err, state.ErrNotFound, "Users of an unknown organisation")
	if got, err := s.User("olu"); err != nil || orgsOf(got) != orgsOf(joined) || got.Email != u.Email {
		t.Fatalf("User(olu): %+v %v", got, err)
	}
	_, err = s.User("nobody")
	wantErr(t, err, state.ErrNotFound, "User of nobody")
	if got, err := s.UserByLogin("OLU@example.ng "); err != nil || got.Name != "olu" {
		t.Fatalf("UserByLogin by e-mail: %+v %v", got, err)
	}
	if got, err := s.UserByLogin("OLU"); err != nil || got.Name != "olu" {
		t.Fatalf("UserByLogin by name: %+v %v", got, err)
	}
	_, err = s.UserByLogin("nobody@example.ng")
	wantErr(t, err, state.ErrNotFound, "UserByLogin of nobody")

	// Signing in, and choosing a password.
	if got, err := s.SignIn("olu@example.ng", otp, T0.Add(time.Hour)); err != nil || got.Name != "olu" || !got.MustChange {
		t.Fatalf("SignIn with the one-time password: %+v %v", got, err)
	}
	_, err = s.SignIn("olu", "wrong password", T0)
	wantErr(t, err, state.ErrBadSignIn, "SignIn with a wrong password")
	_, err = s.SignIn("nobody", otp, T0)
	wantErr(t, err, state.ErrBadSignIn, "SignIn of nobody")
	_, err = s.SignIn("olu", otp, T0.Add(state.OneTimePasswordTTL))
	wantErr(t, err, state.ErrPasswordExpired, "SignIn with a one-time password past its time")
	_, err = s.ChangePassword("olu", "wrong password", ownPassword, T0)
	wantErr(t, err, state.ErrBadSignIn, "ChangePassword with a wrong current password")
	_, err = s.ChangePassword("olu", otp, "short", T0)
	wantErr(t, err, state.ErrInvalid, "ChangePassword to a short password")
	_, err = s.ChangePassword("nobody", otp, ownPassword, T0)
	wantErr(t, err, state.ErrNotFound, "ChangePassword of nobody")
	changed, err := s.ChangePassword("olu", otp, ownPassword, T0.Add(time.Hour))
	must(t, err)
	if changed.MustChange || !changed.TempExpires.IsZero() || !changed.PasswordSet.Equal(T0.Add(time.Hour)) {
		t.Fatalf("ChangePassword: %+v", changed)
	}
	_, err = s.ChangePassword("olu", ownPassword, ownPassword, T0)
	wantErr(t, err, state.ErrInvalid, "ChangePassword to the same password")
	if _, err := s.SignIn("olu", ownPassword, T0.Add(30*24*time.Hour)); err != nil {
		t.Fatalf("SignIn with a chosen password, long after: %v", err)
	}
	_, err = s.SignIn("olu", otp, T0)
	wantErr(t, err, state.ErrBadSignIn, "SignIn with the old one-time password")
	reset, otp2, err := s.ResetPassword("olu", T0.Add(2*time.Hour))
	must(t, err)
	if otp2 == "" || otp2 == otp || !reset.MustChange || !reset.TempExpires.Equal(T0.Add(2*time.Hour+state.OneTimePasswordTTL)) {
		t.Fatalf("ResetPassword: %+v %q", reset, otp2)
	}
	_, err = s.SignIn("olu", ownPassword, T0.Add(3*time.Hour))
	wantErr(t, err, state.ErrBadSignIn, "SignIn with the password before the reset")
	_, _, err = s.ResetPassword("nobody", T0)
	wantErr(t, err, state.ErrNotFound, "ResetPassword of nobody")

	// Roles: an organisation always keeps an owner.
	_, err = s.SetRole("olu", "acme", state.RoleAdmin)
	wantErr(t, err, state.ErrInvalid, "SetRole demoting the only owner")
	_, err = s.SetRole("olu", "acme", "boss")
	wantErr(t, err, state.ErrInvalid, "SetRole to a bad role")
	_, err = s.SetRole("ada", "rival", state.RoleAdmin)
	wantErr(t, err, state.ErrNotFound, "SetRole in an organisation the person is not in")
	if got, err := s.SetRole("olu", "acme", state.RoleOwner); err != nil || orgsOf(got) != "acme:owner rival:member " {
		t.Fatalf("SetRole to the role held: %+v %v", got, err)
	}
	if got, err := s.SetRole("ada", "acme", state.RoleOwner); err != nil || orgsOf(got) != "acme:owner " {
		t.Fatalf("SetRole(ada, owner): %+v %v", got, err)
	}
	if got, err := s.SetRole("olu", "acme", state.RoleAdmin); err != nil || orgsOf(got) != "acme:admin rival:member " {
		t.Fatalf("SetRole(olu, admin) with another owner: %+v %v", got, err)
	}
	_, _, err = s.RemoveMember("ada", "acme")
	wantErr(t, err, state.ErrInvalid, "RemoveMember of the only owner")
	_, err = s.RemoveUser("ada")
	wantErr(t, err, state.ErrInvalid, "RemoveUser of the only owner")
	_, _, err = s.RemoveMember("ada", "rival")
	wantErr(t, err, state.ErrNotFound, "RemoveMember from an organisation the person is not in")
	left, deleted, err := s.RemoveMember("olu", "rival")
	if err != nil || deleted || orgsOf(left) != "acme:admin " {
		t.Fatalf("RemoveMember(olu, rival): %+v %v %v", left, deleted, err)
	}
	gone, deleted, err := s.RemoveMember("olu", "acme")
	if err != nil || !deleted || gone.Name != "olu" {
		t.Fatalf("RemoveMember(olu, acme), the last: %+v %v %v", gone, deleted, err)
	}
	_, err = s.User("olu")
	wantErr(t, err, state.ErrNotFound, "User after the last membership went")
	// The e-mail address is free again.
	addUser(t, s, "bola", "olu@example.ng", "rival", state.RoleOwner)
	addUser(t, s, "chidi", "", "acme", state.RoleOwner)
	if got, err := s.RemoveUser("ada"); err != nil || got.Name != "ada" {
		t.Fatalf("RemoveUser(ada) with another owner: %+v %v", got, err)
	}
	_, err = s.RemoveUser("ada")
	wantErr(t, err, state.ErrNotFound, "RemoveUser of nobody")
	if got := names(""); got != "bola chidi " {
		t.Fatalf("Users(): %q", got)
	}
}

func testSessions(t *testing.T, e Env) {
	cheapHashing(t)
	s := e.Store
	lim := state.SessionLimits{Idle: 30 * time.Minute, Absolute: 12 * time.Hour}
	addOrg(t, s, "acme")
	addOrg(t, s, "rival")
	otp := addUser(t, s, "olu", "", "acme", state.RoleOwner)
	addUser(t, s, "olu", "", "rival", state.RoleMember)
	addUser(t, s, "ada", "", "acme", state.RoleMember)
	tok, se, err := s.CreateSession("olu", "acme", "10.0.0.1", T0)
	must(t, err)
	if !state.ValidToken(tok) || !state.ValidToken(se.CSRF) || se.User != "olu" || se.Org != "acme" || se.Addr != "10.0.0.1" ||
		!se.Created.Equal(T0) || !se.Seen.Equal(T0) {
		t.Fatalf("CreateSession: %q %+v", tok, se)
	}
	_, _, err = s.CreateSession("ada", "rival", "", T0)
	wantErr(t, err, state.ErrNotFound, "CreateSession in an organisation the person is not in")
	_, _, err = s.CreateSession("nobody", "acme", "", T0)
	wantErr(t, err, state.ErrNotFound, "CreateSession of nobody")
	got, u, err := s.Session(tok, T0.Add(time.Minute), lim)
	if err != nil || got != se || u.Name != "olu" || orgsOf(u) != "acme:owner rival:member " {
		t.Fatalf("Session: %+v %+v %v", got, u, err)
	}
	_, _, err = s.Session("not a token", T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session of a malformed token")
	other, err := state.NewToken(nil)
	must(t, err)
	_, _, err = s.Session(other, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session of an unknown token")

	// Idle and absolute limits; a touch restarts the idle time.
	_, _, err = s.Session(tok, T0.Add(lim.Idle), lim)
	wantErr(t, err, state.ErrSessionExpired, "Session idle too long")
	must(t, s.TouchSession(tok, T0.Add(20*time.Minute)))
	must(t, s.TouchSession(tok, T0.Add(10*time.Minute))) // older: kept as it was
	if got, _, err := s.Session(tok, T0.Add(40*time.Minute), lim); err != nil || !got.Seen.Equal(T0.Add(20*time.Minute)) {
		t.Fatalf("Session after a touch: %+v %v", got, err)
	}
	must(t, s.TouchSession(other, T0)) // gone: not an error
	for at := T0.Add(lim.Idle); at.Before(T0.Add(lim.Absolute)); at = at.Add(lim.Idle - time.Minute) {
		must(t, s.TouchSession(tok, at))
	}
	_, _, err = s.Session(tok, T0.Add(lim.Absolute), lim)
	wantErr(t, err, state.ErrSessionExpired, "Session past its absolute life")

	// Moving organisation; a member removed from it is signed out of it.
	tok, _, err = s.CreateSession("olu", "acme", "", T0)
	must(t, err)
	tok2, _, err := s.CreateSession("olu", "acme", "", T0)
	must(t, err)
	moved, err := s.SetSessionOrg(tok, "rival")
	if err != nil || moved.Org != "rival" || moved.User != "olu" || !moved.Created.Equal(T0) {
		t.Fatalf("SetSessionOrg: %+v %v", moved, err)
	}
	_, err = s.SetSessionOrg(tok, "nowhere")
	wantErr(t, err, state.ErrNotFound, "SetSessionOrg to an organisation the person is not in")
	_, err = s.SetSessionOrg(other, "acme")
	wantErr(t, err, state.ErrNotFound, "SetSessionOrg of an unknown session")
	if got, _, err := s.Session(tok, T0, lim); err != nil || got.Org != "rival" {
		t.Fatalf("Session after SetSessionOrg: %+v %v", got, err)
	}
	_, _, err = s.RemoveMember("olu", "rival")
	must(t, err)
	_, _, err = s.Session(tok, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session in an organisation the person was removed from")
	if _, _, err := s.Session(tok2, T0, lim); err != nil {
		t.Fatalf("the person's session in another organisation: %v", err)
	}

	// Signing out ends one session; a password change or reset ends all.
	must(t, s.EndSession(tok2))
	_, _, err = s.Session(tok2, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session after EndSession")
	must(t, s.EndSession(tok2))
	must(t, s.EndSession("not a token"))
	a, _, err := s.CreateSession("olu", "acme", "", T0)
	must(t, err)
	b, _, err := s.CreateSession("ada", "acme", "", T0)
	must(t, err)
	_, err = s.ChangePassword("olu", otp, ownPassword, T0)
	must(t, err)
	_, _, err = s.Session(a, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session after a password change")
	a, _, err = s.CreateSession("olu", "acme", "", T0)
	must(t, err)
	_, _, err = s.ResetPassword("olu", T0)
	must(t, err)
	_, _, err = s.Session(a, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session after a password reset")
	if _, _, err := s.Session(b, T0, lim); err != nil {
		t.Fatalf("another person's session: %v", err)
	}
	_, err = s.RemoveUser("ada")
	must(t, err)
	_, _, err = s.Session(b, T0, lim)
	wantErr(t, err, state.ErrNotFound, "Session of a removed person")

	// Pruning deletes what has expired, and only that.
	old, _, err := s.CreateSession("olu", "acme", "", T0)
	must(t, err)
	fresh, _, err := s.CreateSession("olu", "acme", "", T0.Add(time.Hour))
	must(t, err)
	n, err := s.PruneSessions(T0.Add(time.Hour+time.Minute), lim)
	if err != nil || n != 1 {
		t.Fatalf("PruneSessions: %d %v", n, err)
	}
	_, _, err = s.Session(old, T0.Add(time.Hour), lim)
	wantErr(t, err, state.ErrNotFound, "Session after pruning")
	if _, _, err := s.Session(fresh, T0.Add(time.Hour+time.Minute), lim); err != nil {
		t.Fatalf("a live session after pruning: %v", err)
	}
}

// testAuditedPeople: a person's change through Audited and its entry are
// committed together or not at all, as the other changes are.
func testAuditedPeople(t *testing.T, e Env) {
	cheapHashing(t)
	s := e.Store
	addOrg(t, s, "acme")
	add := &state.AuditEntry{Time: T0, Actor: "operator", Org: "acme", Action: "user.add", Target: "olu", Outcome: state.AuditOK}
	if _, _, err := s.Audited(add).AddUser(state.NewUser{Name: "olu", Org: "acme", Role: state.RoleOwner, Now: T0}); err != nil {
		t.Fatal(err)
	}
	if add.Seq == 0 {
		t.Fatalf("AddUser through Audited: entry not set as stored: %+v", add)
	}
	// The fault: the change is made, then its entry cannot be written.
	bad := &state.AuditEntry{Time: T0, Org: "acme", Action: "user.add", Target: "ada", Outcome: state.AuditOK}
	_, _, err := s.Audited(bad).AddUser(state.NewUser{Name: "ada", Org: "acme", Role: state.RoleMember, Now: T0})
	wantErr(t, err, state.ErrInvalid, "AddUser with an entry the log refuses")
	_, err = s.User("ada")
	wantErr(t, err, state.ErrNotFound, "the person added without their entry")
	bad = &state.AuditEntry{Time: T0, Org: "acme", Action: "user.reset", Target: "olu", Outcome: state.AuditOK}
	before, _ := s.User("olu")
	_, _, err = s.Audited(bad).ResetPassword("olu", T0.Add(time.Hour))
	wantErr(t, err, state.ErrInvalid, "ResetPassword with an entry the log refuses")
	if after, _ := s.User("olu"); !after.PasswordSet.Equal(before.PasswordSet) {
		t.Fatalf("the reset stayed without its entry: %+v", after)
	}
	log, err := s.AuditLog("", 0)
	must(t, err)
	if len(log) != 1 || log[0] != *add {
		t.Fatalf("audit log %+v, want the one user.add", log)
	}
}
