package bolt

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"frameindex/state"
)

// cheapHashing makes argon2id cheap for the test (hashes still verify by
// the parameters they carry).
func cheapHashing(tb testing.TB) {
	tb.Helper()
	old := state.PasswordHashParams
	state.PasswordHashParams = state.HashParams{Memory: 64, Time: 1, Threads: 1}
	tb.Cleanup(func() { state.PasswordHashParams = old })
}

var otpPattern = regexp.MustCompile(`^[a-hj-km-np-z2-9]{4}(-[a-hj-km-np-z2-9]{4}){3}$`)

// mustUserStore returns a store with organisations acme and rival and the
// owner "olu" of acme, whose one-time password it returns.
func mustUserStore(t *testing.T) (*Store, string) {
	t.Helper()
	cheapHashing(t)
	s := MustOpenStore(t)
	for _, id := range []string{"acme", "rival"} {
		if _, err := s.AddOrg(state.Org{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	_, otp, err := s.AddUser(state.NewUser{Name: "olu", Email: "Olu@Example.NG", Org: "acme", Role: state.RoleOwner})
	if err != nil {
		t.Fatal(err)
	}
	return s, otp
}

func TestStore_AddUser(t *testing.T) {
	tests := []struct {
		name    string
		req     state.NewUser
		wantErr error
		text    string
		joined  bool // an existing person joined: no password
	}{
		{name: "new member", req: state.NewUser{Name: "ada", Org: "acme", Role: state.RoleMember}},
		{name: "new admin with e-mail", req: state.NewUser{Name: "bola.k", Email: " Bola@X.ng ", Org: "acme", Role: state.RoleAdmin}},
		{name: "existing person joins another organisation", req: state.NewUser{Name: "olu", Org: "rival", Role: state.RoleAdmin}, joined: true},
		{name: "existing person, own e-mail", req: state.NewUser{Name: "olu", Email: "olu@example.ng", Org: "rival", Role: state.RoleMember}, joined: true},
		{name: "already a member", req: state.NewUser{Name: "olu", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrExists, text: `user "olu" already belongs to organisation "acme"`},
		{name: "existing person, other e-mail", req: state.NewUser{Name: "olu", Email: "x@y.z", Org: "rival", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "another e-mail address"},
		{name: "e-mail taken", req: state.NewUser{Name: "ada", Email: "OLU@example.ng", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrExists, text: "belongs to another user"},
		{name: "unknown organisation", req: state.NewUser{Name: "ada", Org: "nope", Role: state.RoleMember}, wantErr: state.ErrNotFound, text: `organisation "nope" not found`},
		{name: "bad role", req: state.NewUser{Name: "ada", Org: "acme", Role: "boss"}, wantErr: state.ErrInvalid, text: `invalid role "boss"`},
		{name: "capital letters", req: state.NewUser{Name: "Ada", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "invalid user name"},
		{name: "at sign", req: state.NewUser{Name: "ada@x", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "invalid user name"},
		{name: "empty", req: state.NewUser{Org: "acme", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "invalid user name"},
		{name: "bad e-mail", req: state.NewUser{Name: "ada", Email: "a@b@c", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "invalid e-mail address"},
		{name: "e-mail with space", req: state.NewUser{Name: "ada", Email: "a b@c", Org: "acme", Role: state.RoleMember}, wantErr: state.ErrInvalid, text: "invalid e-mail address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := mustUserStore(t)
			u, otp, err := s.AddUser(tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				assertErrText(t, err, tt.text)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if role, ok := u.Role(tt.req.Org); !ok || role != tt.req.Role {
				t.Errorf("role in %s = %q, %v", tt.req.Org, role, ok)
			}
			if tt.joined {
				if otp != "" {
					t.Errorf("joining: password %q; want none", otp)
				}
				if len(u.Orgs) != 2 || u.Orgs[0].Org != "acme" || u.Orgs[1].Org != "rival" {
					t.Errorf("orgs = %v", u.Orgs)
				}
				return
			}
			if !otpPattern.MatchString(otp) {
				t.Errorf("one-time password %q", otp)
			}
			if !u.MustChange || !u.TempExpires.Equal(testNow.Round(0).Add(state.OneTimePasswordTTL)) {
				t.Errorf("MustChange %v, TempExpires %v", u.MustChange, u.TempExpires)
			}
			got, err := s.User(u.Name)
			if err != nil || got.Email != strings.ToLower(strings.TrimSpace(tt.req.Email)) {
				t.Errorf("User = %+v, %v", got, err)
			}
			if _, err := s.SignIn(u.Name, otp, testNow); err != nil {
				t.Errorf("sign in with the one-time password: %v", err)
			}
		})
	}
}

func TestStore_SignIn(t *testing.T) {
	s, otp := mustUserStore(t)
	tests := []struct {
		name            string
		login, password string
		now             time.Time
		wantErr         error
	}{
		{name: "user name", login: "olu", password: otp, now: testNow},
		{name: "user name in capitals", login: " OLU ", password: otp, now: testNow},
		{name: "e-mail", login: "olu@example.ng", password: otp, now: testNow},
		{name: "e-mail in capitals", login: "OLU@EXAMPLE.NG", password: otp, now: testNow},
		{name: "wrong password", login: "olu", password: otp + "x", now: testNow, wantErr: state.ErrBadSignIn},
		{name: "empty password", login: "olu", password: "", now: testNow, wantErr: state.ErrBadSignIn},
		{name: "unknown user", login: "nobody", password: otp, now: testNow, wantErr: state.ErrBadSignIn},
		{name: "unknown e-mail", login: "no@example.ng", password: otp, now: testNow, wantErr: state.ErrBadSignIn},
		{name: "huge password", login: "olu", password: strings.Repeat("x", 1<<20), now: testNow, wantErr: state.ErrBadSignIn},
		{name: "one-time password expired", login: "olu", password: otp, now: testNow.Add(state.OneTimePasswordTTL), wantErr: state.ErrPasswordExpired},
		{name: "expired and wrong", login: "olu", password: "nope", now: testNow.Add(state.OneTimePasswordTTL), wantErr: state.ErrBadSignIn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := s.SignIn(tt.login, tt.password, tt.now)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("SignIn error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && u.Name != "olu" {
				t.Errorf("signed in as %q", u.Name)
			}
			if err != nil && strings.Contains(err.Error(), otp) {
				t.Errorf("error %q holds the password", err)
			}
		})
	}
}

func TestStore_UserByLogin(t *testing.T) {
	s, _ := mustUserStore(t)
	for _, login := range []string{"olu", " OLU", "olu@example.ng", "Olu@Example.NG"} {
		if u, err := s.UserByLogin(login); err != nil || u.Name != "olu" {
			t.Errorf("UserByLogin(%q) = %v, %v", login, u, err)
		}
	}
	for _, login := range []string{"", "nobody", "no@example.ng", "olu@"} {
		if _, err := s.UserByLogin(login); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("UserByLogin(%q): %v", login, err)
		}
	}
}

func TestStore_ChangePassword(t *testing.T) {
	const good = "correct horse battery"
	tests := []struct {
		name          string
		current, next string
		wantErr       error
		text          string
	}{
		{name: "ok", next: good},
		{name: "wrong current", current: "wrong", next: good, wantErr: state.ErrBadSignIn},
		{name: "too short", next: "abc123", wantErr: state.ErrInvalid, text: "at least 12 characters"},
		{name: "user name", next: "OLU", wantErr: state.ErrInvalid, text: "too short"},
		{name: "e-mail", next: "olu@example.ng", wantErr: state.ErrInvalid, text: "user name or e-mail"},
		{name: "one character", next: strings.Repeat("a", 20), wantErr: state.ErrInvalid, text: "repeats one character"},
		{name: "too long", next: strings.Repeat("ab", 129), wantErr: state.ErrInvalid, text: "at most 256"},
		// NIST SP 800-63B: not among the most common passwords, nor a
		// sequence, nor one with digits added or repeated.
		{name: "digits (the issue's)", next: "123456789012", wantErr: state.ErrInvalid, text: "too easy to guess"},
		{name: "digits in sequence", next: "987654321098", wantErr: state.ErrInvalid, text: "sequence"},
		{name: "a common password", next: "1qaz2wsx3edc", wantErr: state.ErrInvalid, text: "most common passwords"},
		{name: "a common password with digits", next: "Sunshine2031!", wantErr: state.ErrInvalid, text: "digits or symbols added"},
		{name: "a repeated password", next: "qwertyqwerty", wantErr: state.ErrInvalid, text: "repeats a shorter password"},
		{name: "not UTF-8", next: "abcdefghijkl\xff", wantErr: state.ErrInvalid, text: "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, otp := mustUserStore(t)
			cur := tt.current
			if cur == "" {
				cur = otp
			}
			tok, _, err := s.CreateSession("olu", "acme", "", testNow)
			if err != nil {
				t.Fatal(err)
			}
			u, err := s.ChangePassword("olu", cur, tt.next, testNow)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				if tt.text != "" {
					assertErrText(t, err, tt.text)
				}
				if strings.Contains(err.Error(), tt.next) {
					t.Errorf("error %q quotes the password", err)
				}
				if _, _, err := s.Session(tok, testNow, state.SessionLimits{}); err != nil {
					t.Errorf("a refused change ended the session: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.MustChange || !u.TempExpires.IsZero() {
				t.Errorf("after the change MustChange %v TempExpires %v", u.MustChange, u.TempExpires)
			}
			if _, err := s.SignIn("olu", otp, testNow); !errors.Is(err, state.ErrBadSignIn) {
				t.Errorf("old password still works: %v", err)
			}
			// Chosen passwords do not expire like one-time ones.
			if _, err := s.SignIn("olu", good, testNow.Add(400*24*time.Hour)); err != nil {
				t.Errorf("new password: %v", err)
			}
			if _, _, err := s.Session(tok, testNow, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
				t.Errorf("session after a password change: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestStore_RolesKeepAnOwner(t *testing.T) {
	type step struct {
		do      func(s *Store) error
		wantErr error
		text    string
	}
	setRole := func(name, org, role string) func(*Store) error {
		return func(s *Store) error { _, err := s.SetRole(name, org, role); return err }
	}
	removeMember := func(name, org string) func(*Store) error {
		return func(s *Store) error { _, _, err := s.RemoveMember(name, org); return err }
	}
	removeUser := func(name string) func(*Store) error {
		return func(s *Store) error { _, err := s.RemoveUser(name); return err }
	}
	addUser := func(name, org, role string) func(*Store) error {
		return func(s *Store) error {
			_, _, err := s.AddUser(state.NewUser{Name: name, Org: org, Role: role})
			return err
		}
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "last owner cannot be demoted", steps: []step{{do: setRole("olu", "acme", state.RoleAdmin), wantErr: state.ErrInvalid, text: "always keeps an owner"}}},
		{name: "last owner cannot leave", steps: []step{{do: removeMember("olu", "acme"), wantErr: state.ErrInvalid, text: "only owner"}}},
		{name: "last owner cannot be deleted", steps: []step{{do: removeUser("olu"), wantErr: state.ErrInvalid, text: "only owner"}}},
		{name: "a second owner lets the first go", steps: []step{
			{do: addUser("ada", "acme", state.RoleMember)},
			{do: setRole("ada", "acme", state.RoleOwner)},
			{do: setRole("olu", "acme", state.RoleMember)},
			{do: setRole("ada", "acme", state.RoleAdmin), wantErr: state.ErrInvalid},
			{do: removeMember("olu", "acme")},
		}},
		{name: "setting the same role changes nothing", steps: []step{{do: setRole("olu", "acme", state.RoleOwner)}}},
		{name: "not a member", steps: []step{
			{do: setRole("olu", "rival", state.RoleMember), wantErr: state.ErrNotFound, text: `does not belong to organisation "rival"`},
			{do: removeMember("olu", "rival"), wantErr: state.ErrNotFound},
		}},
		{name: "unknown person", steps: []step{{do: setRole("nobody", "acme", state.RoleMember), wantErr: state.ErrNotFound, text: `user "nobody" not found`}}},
		{name: "bad role", steps: []step{{do: setRole("olu", "acme", "king"), wantErr: state.ErrInvalid}}},
		{name: "a member of an organisation without owners can leave", steps: []step{
			{do: addUser("ada", "rival", state.RoleAdmin)},
			{do: removeMember("ada", "rival")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := mustUserStore(t)
			for i, st := range tt.steps {
				err := st.do(s)
				if !errors.Is(err, st.wantErr) || (err == nil) != (st.wantErr == nil) {
					t.Fatalf("step %d: error = %v, want %v", i, err, st.wantErr)
				}
				if st.text != "" {
					assertErrText(t, err, st.text)
				}
			}
		})
	}
}

func TestStore_RemoveMember(t *testing.T) {
	s, _ := mustUserStore(t)
	_, otp, err := s.AddUser(state.NewUser{Name: "ada", Email: "ada@x.ng", Org: "acme", Role: state.RoleMember})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddUser(state.NewUser{Name: "ada", Org: "rival", Role: state.RoleMember}); err != nil {
		t.Fatal(err)
	}
	tokAcme, _, _ := s.CreateSession("ada", "acme", "", testNow)
	tokRival, _, _ := s.CreateSession("ada", "rival", "", testNow)

	u, deleted, err := s.RemoveMember("ada", "acme")
	if err != nil || deleted || len(u.Orgs) != 1 || u.Orgs[0].Org != "rival" {
		t.Fatalf("RemoveMember = %+v, %v, %v", u, deleted, err)
	}
	if _, _, err := s.Session(tokAcme, testNow, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session in acme survived: %v", err)
	}
	if _, _, err := s.Session(tokRival, testNow, state.SessionLimits{}); err != nil {
		t.Errorf("session in rival ended: %v", err)
	}
	_, deleted, err = s.RemoveMember("ada", "rival")
	if err != nil || !deleted {
		t.Fatalf("last membership: deleted %v, %v", deleted, err)
	}
	if _, err := s.User("ada"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("User after deletion: %v", err)
	}
	if _, _, err := s.Session(tokRival, testNow, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session survived deletion: %v", err)
	}
	if _, err := s.SignIn("ada@x.ng", otp, testNow); !errors.Is(err, state.ErrBadSignIn) {
		t.Errorf("deleted person signs in: %v", err)
	}
	// The e-mail address is free again.
	if _, _, err := s.AddUser(state.NewUser{Name: "ada2", Email: "ada@x.ng", Org: "acme", Role: state.RoleMember}); err != nil {
		t.Errorf("reuse of the address: %v", err)
	}
	users, err := s.Users("acme")
	if err != nil || len(users) != 2 || users[0].Name != "ada2" || users[1].Name != "olu" {
		t.Errorf("Users(acme) = %v, %v", users, err)
	}
	if _, err := s.Users("nope"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Users(nope): %v", err)
	}
}

func TestStore_ResetPassword(t *testing.T) {
	s, otp := mustUserStore(t)
	if _, err := s.ChangePassword("olu", otp, "a long enough password", testNow); err != nil {
		t.Fatal(err)
	}
	tok, _, _ := s.CreateSession("olu", "acme", "", testNow)
	later := testNow.Add(time.Hour)
	u, otp2, err := s.ResetPassword("olu", later)
	if err != nil || !otpPattern.MatchString(otp2) || otp2 == otp || !u.MustChange {
		t.Fatalf("ResetPassword = %+v, %q, %v", u, otp2, err)
	}
	if _, _, err := s.Session(tok, later, state.SessionLimits{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("session survived a reset: %v", err)
	}
	if _, err := s.SignIn("olu", "a long enough password", later); !errors.Is(err, state.ErrBadSignIn) {
		t.Errorf("old password after reset: %v", err)
	}
	if u, err := s.SignIn("olu", otp2, later); err != nil || !u.MustChange {
		t.Errorf("one-time password after reset: %+v, %v", u, err)
	}
	if _, _, err := s.ResetPassword("nobody", later); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("reset of nobody: %v", err)
	}
}

func TestVerifyPassword(t *testing.T) {
	cheapHashing(t)
	s := MustOpenStore(t)
	h, err := s.hashPassword("pässwörd with spaces")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("hash %q", h)
	}
	tests := []struct {
		name, hash, password string
		ok                   bool
		err                  bool
	}{
		{name: "right", hash: h, password: "pässwörd with spaces", ok: true},
		{name: "wrong", hash: h, password: "password with spaces"},
		{name: "empty hash", hash: "", err: true},
		{name: "argon2i", hash: strings.Replace(h, "argon2id", "argon2i", 1), err: true},
		{name: "other version", hash: strings.Replace(h, "v=19", "v=16", 1), err: true},
		{name: "huge memory", hash: strings.Replace(h, "m=64", "m=4000000", 1), err: true},
		{name: "many passes", hash: strings.Replace(h, "t=1", "t=1000", 1), err: true},
		{name: "no lanes", hash: strings.Replace(h, "p=1", "p=0", 1), err: true},
		{name: "parameters swapped", hash: strings.Replace(h, "m=64,t=1", "t=1,m=64", 1), err: true},
		{name: "bad salt", hash: strings.Replace(h, "$m=64,t=1,p=1$", "$m=64,t=1,p=1$!!", 1), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := verifyPassword(tt.hash, tt.password)
			if ok != tt.ok || (err != nil) != tt.err {
				t.Errorf("verifyPassword = %v, %v", ok, err)
			}
		})
	}
}

// FuzzVerifyPassword: a stored hash is read from the file; whatever it
// holds, verifying never panics, and only a well-formed hash verifies.
func FuzzVerifyPassword(f *testing.F) {
	f.Add("$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g", "x")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "")
	f.Add("$argon2id$v=19$m=,t=,p=$$", "pw")
	f.Add("$$$$$$$", "")
	f.Fuzz(func(t *testing.T, hash, pw string) {
		ok, err := verifyPassword(hash, pw)
		if ok && err != nil {
			t.Fatalf("ok with error %v", err)
		}
		if ok && !strings.HasPrefix(hash, "$argon2id$v=19$") {
			t.Fatalf("verified against %q", hash)
		}
	})
}

func TestStore_OneTimePasswordsAreUniform(t *testing.T) {
	cheapHashing(t)
	s := MustOpenStore(t)
	// Bytes at and above 248 are rejected, so 248..255 never decide a
	// character: the password below comes from the bytes after them.
	chunk := []byte{255, 248, 0, 30, 31, 247}
	s.rand = &seqReader{chunks: [][]byte{chunk, chunk, chunk, chunk}}
	otp, err := s.newOneTimePassword()
	if err != nil {
		t.Fatal(err)
	}
	if otp != "a9a9-a9a9-a9a9-a9a9" {
		t.Errorf("one-time password %q", otp)
	}
}
