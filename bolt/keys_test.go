package bolt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

var (
	secretPattern = regexp.MustCompile(`^svc_sk_[0-9A-Za-z]{43}$`)
	keyIDPattern  = regexp.MustCompile(`^key_[a-z2-7]{12}$`)
)

// mustStoreWithOrg returns a test store holding organisations "acme" and
// "globex".
func mustStoreWithOrg(t *testing.T) *Store {
	t.Helper()
	s := MustOpenStore(t)
	for _, id := range []string{"acme", "globex"} {
		mustAddOrg(t, s, id, "", 0)
	}
	return s
}

func TestStore_MintKey(t *testing.T) {
	mintAt := time.Date(2025, 6, 1, 12, 0, 0, 123, time.UTC)
	tests := []struct {
		name string
		req  state.MintRequest
		want state.Key // ID and Digest are checked separately
	}{
		{
			name: "locality, defaults",
			req:  state.MintRequest{OrgID: "acme", Preset: "locality"},
			want: state.Key{OrgID: "acme", Preset: "locality", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead},
				Created: testNow, Expires: testNow.Add(90 * 24 * time.Hour)},
		},
		{
			name: "analyst, named, narrowed, one day",
			req: state.MintRequest{OrgID: "acme", Preset: "analyst", Name: "field team", Datasets: []string{"pop", "buildings", "pop"},
				TTL: 24 * time.Hour, Now: mintAt},
			want: state.Key{OrgID: "acme", Name: "field team", Preset: "analyst", Caps: []state.Capability{state.CapFrameRead, state.CapAskQuery},
				Datasets: []string{"buildings", "pop"}, Created: mintAt, Expires: mintAt.Add(24 * time.Hour)},
		},
		{
			name: "full, longest lifetime",
			req:  state.MintRequest{OrgID: "globex", Preset: "full", TTL: state.MaxTTL, Now: mintAt},
			want: state.Key{OrgID: "globex", Preset: "full", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead, state.CapAskQuery},
				Created: mintAt, Expires: mintAt.Add(366 * 24 * time.Hour)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustStoreWithOrg(t)
			k, secret, err := s.MintKey(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if !secretPattern.MatchString(secret) || len(secret) != state.SecretLen {
				t.Errorf("secret %q does not look like svc_sk_ + 43 base62 characters", secret)
			}
			if !keyIDPattern.MatchString(k.ID) {
				t.Errorf("key id %q does not look like key_ + 12 base32 characters", k.ID)
			}
			if k.Digest != sha256.Sum256([]byte(secret)) {
				t.Error("Digest is not the SHA-256 of the secret")
			}
			got := k
			got.ID, got.Digest = "", [32]byte{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("MintKey = %+v\nwant %+v", fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", tt.want))
			}
			stored, err := s.Key(k.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(stored, k) {
				t.Errorf("Key(%q) = %#v\nwant %#v", k.ID, stored, k)
			}
			if err := k.Active(tt.want.Created); err != nil {
				t.Errorf("new key not active: %v", err)
			}
		})
	}
}

func TestStore_MintKeyInvalid(t *testing.T) {
	tests := []struct {
		name    string
		req     state.MintRequest
		wantErr error
		text    string
	}{
		{"unknown org", state.MintRequest{OrgID: "initech", Preset: "full"}, state.ErrNotFound, `organisation "initech" not found`},
		{"no org", state.MintRequest{Preset: "full"}, state.ErrNotFound, `organisation "" not found`},
		{"unknown preset", state.MintRequest{OrgID: "acme", Preset: "admin"}, state.ErrInvalid, `invalid preset "admin": must be one of analyst, full, locality`},
		{"preset in capitals", state.MintRequest{OrgID: "acme", Preset: "Full"}, state.ErrInvalid, "must be one of"},
		{"negative TTL", state.MintRequest{OrgID: "acme", Preset: "full", TTL: -time.Hour}, state.ErrInvalid, "must be more than zero"},
		{"TTL over 366 days", state.MintRequest{OrgID: "acme", Preset: "full", TTL: state.MaxTTL + time.Nanosecond}, state.ErrInvalid, "at most 366 days"},
		{"bad dataset id", state.MintRequest{OrgID: "acme", Preset: "full", Datasets: []string{"pop", "Pop 2"}}, state.ErrInvalid, `invalid dataset id "Pop 2"`},
		{"empty dataset id", state.MintRequest{OrgID: "acme", Preset: "full", Datasets: []string{""}}, state.ErrInvalid, `invalid dataset id ""`},
		{"name with newline", state.MintRequest{OrgID: "acme", Preset: "full", Name: "a\nb"}, state.ErrInvalid, "invalid key name"},
	}
	s := mustStoreWithOrg(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, secret, err := s.MintKey(tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("MintKey error = %v, want %v", err, tt.wantErr)
			}
			assertErrText(t, err, tt.text)
			if secret != "" {
				t.Errorf("a refused mint returned a secret")
			}
		})
	}
	if keys, err := s.Keys(""); err != nil || len(keys) != 0 {
		t.Errorf("after refusals Keys() = %v, %v; want none", keys, err)
	}
}

// seqReader returns its chunks in turn, then errors.
type seqReader struct{ chunks [][]byte }

func (r *seqReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, errors.New("random source exhausted")
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func TestStore_MintKeyRandomness(t *testing.T) {
	idA := bytes.Repeat([]byte{0x00}, 8) // key_aaaaaaaaaaaa
	idB := bytes.Repeat([]byte{0xff}, 8) // key_777777777777
	sec1 := bytes.Repeat([]byte{0x00}, 32)
	sec2 := bytes.Repeat([]byte{0xff}, 32)

	s := mustStoreWithOrg(t)
	s.rand = &seqReader{chunks: [][]byte{idA, sec1, idA, idB, sec2}}
	k1, secret1, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	if err != nil {
		t.Fatal(err)
	}
	if k1.ID != "key_aaaaaaaaaaaa" || secret1 != "svc_sk_"+strings.Repeat("0", 43) {
		t.Errorf("first mint = %s, %q", k1.ID, secret1)
	}
	// The second mint draws the same id, retries, and gets the next one.
	k2, secret2, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	if err != nil {
		t.Fatal(err)
	}
	if k2.ID != "key_777777777777" {
		t.Errorf("second mint id = %s, want key_777777777777 after a clash", k2.ID)
	}
	// The secret is the second draw of 32 bytes, encoded (state's
	// TestEncodeBase62 checks the encoding).
	if want, _ := state.NewSecret(bytes.NewReader(sec2)); secret2 != want {
		t.Errorf("second secret = %q, want %q", secret2, want)
	}

	// A source that keeps repeating one id gives up rather than looping.
	s.rand = &seqReader{chunks: slicesRepeat(idA, 2*keyIDRetries)}
	_, _, err = s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	assertErrText(t, err, "no unused key id after 10 tries")

	// A broken source is an error, and nothing is stored.
	s.rand = &seqReader{}
	_, _, err = s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	assertErrText(t, err, "read random bytes", "random source exhausted")
	if keys, _ := s.Keys(""); len(keys) != 2 {
		t.Errorf("%d keys stored, want 2", len(keys))
	}
}

func slicesRepeat(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = bytes.Clone(b)
	}
	return out
}

func TestDigest(t *testing.T) {
	// FIPS 180-2 test vector.
	want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got := state.Digest("abc"); hex.EncodeToString(got[:]) != want {
		t.Errorf("Digest(abc) = %x, want %s", got, want)
	}
}

func TestKeyring_Lookup(t *testing.T) {
	s := mustStoreWithOrg(t)
	mintAt := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	live, liveSecret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "analyst", TTL: 48 * time.Hour, Now: mintAt})
	if err != nil {
		t.Fatal(err)
	}
	revoked, revokedSecret, err := s.MintKey(state.MintRequest{OrgID: "globex", Preset: "full", Now: mintAt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RevokeKey(revoked.ID, mintAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	kr, err := s.Keyring()
	if err != nil {
		t.Fatal(err)
	}
	if kr.Len() != 2 {
		t.Errorf("Len() = %d, want 2", kr.Len())
	}
	tests := []struct {
		name    string
		secret  string
		now     time.Time
		wantID  string
		wantErr error
	}{
		{"live", liveSecret, mintAt.Add(time.Hour), live.ID, nil},
		{"at creation", liveSecret, mintAt, live.ID, nil},
		{"last moment", liveSecret, mintAt.Add(48*time.Hour - time.Nanosecond), live.ID, nil},
		{"at expiry", liveSecret, mintAt.Add(48 * time.Hour), "", state.ErrExpiredKey},
		{"long expired", liveSecret, mintAt.AddDate(1, 0, 0), "", state.ErrExpiredKey},
		{"revoked", revokedSecret, mintAt.Add(2 * time.Hour), "", state.ErrRevokedKey},
		{"revoked, asked about before the revocation", revokedSecret, mintAt, "", state.ErrRevokedKey},
		{"wrong secret", "svc_sk_" + strings.Repeat("0", 43), mintAt, "", state.ErrUnknownKey},
		{"one character off", liveSecret[:len(liveSecret)-1] + "!", mintAt, "", state.ErrUnknownKey},
		{"empty", "", mintAt, "", state.ErrUnknownKey},
		{"digest presented as secret", hex.EncodeToString(live.Digest[:]), mintAt, "", state.ErrUnknownKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := kr.Lookup(tt.secret, tt.now)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Lookup error = %v, want %v", err, tt.wantErr)
			}
			if k.ID != tt.wantID {
				t.Errorf("Lookup id = %q, want %q", k.ID, tt.wantID)
			}
			if err != nil && tt.secret != "" && strings.Contains(err.Error(), tt.secret) {
				t.Errorf("error %q holds the secret", err)
			}
		})
	}

	var nilRing *state.Keyring
	if _, err := nilRing.Lookup(liveSecret, mintAt); !errors.Is(err, state.ErrUnknownKey) {
		t.Errorf("nil Keyring Lookup error = %v, want ErrUnknownKey", err)
	}
	if nilRing.Len() != 0 {
		t.Errorf("nil Keyring Len = %d", nilRing.Len())
	}

	// The keyring is a snapshot: a key minted later is not in it.
	_, later, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Now: mintAt})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Lookup(later, mintAt); !errors.Is(err, state.ErrUnknownKey) {
		t.Errorf("old keyring found a later key: %v", err)
	}
	kr2, _ := s.Keyring()
	if _, err := kr2.Lookup(later, mintAt); err != nil {
		t.Errorf("reloaded keyring: %v", err)
	}
}

func TestKeyring_ConcurrentLookup(t *testing.T) {
	s := mustStoreWithOrg(t)
	now := testNow.Add(time.Hour)
	var secrets []string
	for i := 0; i < 20; i++ {
		_, secret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "locality"})
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	kr, err := s.Keyring()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				secret := secrets[(g+i)%len(secrets)]
				k, err := kr.Lookup(secret, now)
				if err != nil || k.Digest != state.Digest(secret) || !k.Has(state.CapFeatureRead) {
					errs <- fmt.Errorf("goroutine %d lookup %d: %v", g, i, err)
					return
				}
				if _, err := kr.Lookup(secret+"x", now); !errors.Is(err, state.ErrUnknownKey) {
					errs <- fmt.Errorf("goroutine %d: bad secret gave %v", g, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestStore_KeysAndRevoke(t *testing.T) {
	s := mustStoreWithOrg(t)
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	mint := func(org string, at time.Time) state.Key {
		k, _, err := s.MintKey(state.MintRequest{OrgID: org, Preset: "full", Now: at})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k3 := mint("acme", day(3))
	k1 := mint("globex", day(1))
	k2a := mint("acme", day(2))
	k2b := mint("acme", day(2))
	first, second := k2a, k2b
	if second.ID < first.ID {
		first, second = second, first
	}

	ids := func(keys []state.Key) []string {
		var out []string
		for _, k := range keys {
			out = append(out, k.ID)
		}
		return out
	}
	tests := []struct {
		org  string
		want []string
	}{
		{"", []string{k1.ID, first.ID, second.ID, k3.ID}},
		{"acme", []string{first.ID, second.ID, k3.ID}},
		{"globex", []string{k1.ID}},
	}
	for _, tt := range tests {
		t.Run("keys of "+tt.org, func(t *testing.T) {
			keys, err := s.Keys(tt.org)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(keys); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Keys(%q) = %v, want %v", tt.org, got, tt.want)
			}
		})
	}
	_, err := s.Keys("initech")
	if !errors.Is(err, state.ErrNotFound) {
		t.Errorf("Keys(unknown org) error = %v, want ErrNotFound", err)
	}

	// Revoke, then revoke again: the first time stays.
	r1, err := s.RevokeKey(k3.ID, day(10))
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Revoked.Equal(day(10)) {
		t.Errorf("Revoked = %v, want %v", r1.Revoked, day(10))
	}
	r2, err := s.RevokeKey(k3.ID, day(20))
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Revoked.Equal(day(10)) {
		t.Errorf("second revoke moved Revoked to %v", r2.Revoked)
	}
	if got, _ := s.Key(k3.ID); !got.Revoked.Equal(day(10)) {
		t.Errorf("stored Revoked = %v, want %v", got.Revoked, day(10))
	}
	if err := r2.Active(day(5)); !errors.Is(err, state.ErrRevokedKey) {
		t.Errorf("Active of a revoked key = %v", err)
	}
	// Revoking with a zero time uses the clock.
	r3, err := s.RevokeKey(k1.ID, time.Time{})
	if err != nil || !r3.Revoked.Equal(testNow) {
		t.Errorf("RevokeKey(zero time) = %v, %v; want revoked at %v", r3.Revoked, err, testNow)
	}

	for _, id := range []string{"key_nothere1234", ""} {
		_, err = s.RevokeKey(id, day(1))
		if !errors.Is(err, state.ErrNotFound) {
			t.Fatalf("RevokeKey(%q) error = %v, want ErrNotFound", id, err)
		}
		assertErrText(t, err, fmt.Sprintf("key %q not found", id))
		if _, err := s.Key(id); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Key(%q) error = %v, want ErrNotFound", id, err)
		}
	}
}

func TestKey_Active(t *testing.T) {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	k := state.Key{ID: "key_x", Created: created, Expires: created.Add(time.Hour)}
	revoked := k
	revoked.Revoked = created.Add(time.Minute)
	tests := []struct {
		name string
		k    state.Key
		now  time.Time
		want error
	}{
		{"fresh", k, created, nil},
		{"just before expiry", k, created.Add(time.Hour - 1), nil},
		{"at expiry", k, created.Add(time.Hour), state.ErrExpiredKey},
		{"revoked", revoked, created.Add(2 * time.Minute), state.ErrRevokedKey},
		{"revoked and expired", revoked, created.Add(2 * time.Hour), state.ErrRevokedKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.k.Active(tt.now)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("Active = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestKey_NoSecretAnywhere checks that neither the file nor any printed or
// logged form of a key holds the secret.
func TestKey_NoSecretAnywhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	s := mustOpenStoreOpts(t, path, Options{Create: true})
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	var secrets []string
	var keys []state.Key
	for i := 0; i < 5; i++ {
		k, secret, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full", Name: "k"})
		if err != nil {
			t.Fatal(err)
		}
		secrets, keys = append(secrets, secret), append(keys, k)
	}
	if _, err := s.RevokeKey(keys[0].ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Sync(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, secret := range secrets {
		body := secret[len(state.SecretPrefix):]
		if bytes.Contains(data, []byte(body)) {
			t.Errorf("file holds secret %d", i)
		}
		d := state.Digest(secret)
		if !bytes.Contains(data, d[:]) {
			t.Errorf("file lacks the digest of secret %d", i)
		}

		k := keys[i]
		var logged bytes.Buffer
		slog.New(slog.NewJSONHandler(&logged, nil)).Info("request", "key", k)
		for _, form := range []string{
			fmt.Sprint(k), fmt.Sprintf("%v", k), fmt.Sprintf("%+v", k), fmt.Sprintf("%#v", k),
			k.String(), logged.String(),
		} {
			if strings.Contains(form, body) {
				t.Errorf("a printed form of key %d holds its secret: %s", i, form)
			}
		}
		if got := fmt.Sprintf("%+v", k); got != k.ID {
			t.Errorf("%%+v of a key = %q, want its id %q", got, k.ID)
		}
		if want := fmt.Sprintf(`"key":{"id":%q,"org":"acme"}`, k.ID); !strings.Contains(logged.String(), want) {
			t.Errorf("slog output %s lacks %s", logged.String(), want)
		}
	}
}

func TestKey_Corrupt(t *testing.T) {
	s := mustStoreWithOrg(t)
	k, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"})
	if err != nil {
		t.Fatal(err)
	}
	good := recordOf(k)
	for name, mutate := range map[string]func(r *keyRecord){
		"short digest": func(r *keyRecord) { r.Digest = "abcd" },
		"no org":       func(r *keyRecord) { r.OrgID = "" },
		"no caps":      func(r *keyRecord) { r.Caps = nil },
		"no expiry":    func(r *keyRecord) { r.Expires = time.Time{} },
		"other id":     func(r *keyRecord) { r.ID = "key_other" },
	} {
		t.Run(name, func(t *testing.T) {
			r := good
			mutate(&r)
			v, _ := json.Marshal(r)
			if err := s.db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketKeys).Put([]byte(k.ID), v)
			}); err != nil {
				t.Fatal(err)
			}
			for what, err := range map[string]error{
				"Key":     second(s.Key(k.ID)),
				"Keys":    second(s.Keys("")),
				"Keyring": second(s.Keyring()),
			} {
				if !errors.Is(err, state.ErrCorrupt) {
					t.Errorf("%s error = %v, want ErrCorrupt", what, err)
				}
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

func TestParseTTL(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in   string
		want time.Duration // 0: an error
		text string        // in the error
	}{
		{"90d", 90 * day, ""},
		{"1d", day, ""},
		{"366d", 366 * day, ""},
		{"367d", 0, "at most 366 days"},
		{"52w", 52 * 7 * day, ""},
		{"53w", 0, "at most 366 days"},
		{"1y", 365 * day, ""},
		{"2y", 0, "at most 366 days"},
		{"12h", 12 * time.Hour, ""},
		{"90m", 90 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"8784h", 366 * day, ""},
		{"8784h1ns", 0, "at most 366 days"},
		{"0d", 0, "more than zero"},
		{"0", 0, "more than zero"},
		{"-5h", 0, "more than zero"},
		{"-1d", 0, "use a whole number of days"},
		{"1.5d", 0, "use a whole number of days"},
		{"d", 0, "use a whole number"},
		{"", 0, "use a whole number"},
		{" 90d", 0, "use a whole number"},
		{"90D", 0, "use a whole number"},
		{"1d12h", 0, "use a whole number"},
		{"99999999999999999999d", 0, "at most 366 days"},
		{"2562047h", 0, "at most 366 days"},
		{"9999999999999999999h", 0, "use a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := state.ParseTTL(tt.in)
			if tt.want != 0 {
				if err != nil || got != tt.want {
					t.Fatalf("ParseTTL(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, state.ErrInvalid) {
				t.Fatalf("ParseTTL(%q) = %v, %v; want ErrInvalid", tt.in, got, err)
			}
			assertErrText(t, err, tt.text, fmt.Sprintf("%q", tt.in))
		})
	}
}
