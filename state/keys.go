package state

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Capability is a permission a key may carry.
type Capability string

const (
	CapFrameRead   Capability = "frame.read"
	CapFeatureRead Capability = "feature.read"
	CapAskQuery    Capability = "ask.query"
)

// Presets are the capability sets a key can be minted with (docs/contract.md §6).
// Treat as read-only.
var Presets = map[string][]Capability{
	"locality": {CapFrameRead, CapFeatureRead},
	"analyst":  {CapFrameRead, CapAskQuery},
	"full":     {CapFrameRead, CapFeatureRead, CapAskQuery},
}

// Key lifetimes (docs/contract.md §6).
const (
	DefaultTTL = 90 * 24 * time.Hour
	MaxTTL     = 366 * 24 * time.Hour // a year, leap years included
)

// Secret and public id format. A secret is SecretPrefix and the base62 form
// of secretBytes random bytes, zero-padded to secretDigits so that every
// secret has the same length (SecretLen); a public id is "key_" and
// keyIDChars lowercase base32 characters (60 random bits).
const (
	SecretPrefix = "svc_sk_"
	secretBytes  = 32
	secretDigits = 43 // 62^43 > 2^256
	SecretLen    = len(SecretPrefix) + secretDigits
	keyIDPrefix  = "key_"
	keyIDChars   = 12
)

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

var keyIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Key is an API key as stored: never the secret, only its SHA-256 digest.
// Its String and LogValue methods show the public id only, so printing or
// logging a Key shows nothing that opens anything.
type Key struct {
	ID       string // public id, safe to log
	OrgID    string
	Name     string
	Preset   string
	Caps     []Capability
	Datasets []string // narrowed to these datasets; empty = all readable
	// Member is the user name of the member whose Explore map the key
	// serves: set only when the console mints it for the signed-in person
	// (admin.KeyMint.ForMember), never from a name anyone types. "" for
	// every other key.
	Member  string
	Digest  [32]byte
	Created time.Time
	Expires time.Time
	Revoked time.Time // zero when not revoked
}

// Has reports whether the key carries capability c.
func (k Key) Has(c Capability) bool {
	for _, x := range k.Caps {
		if x == c {
			return true
		}
	}
	return false
}

// String returns the key's public id, which is safe to log.
func (k Key) String() string { return k.ID }

// LogValue makes log/slog show a key as its public id and organisation.
func (k Key) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", k.ID), slog.String("org", k.OrgID))
}

// Active reports whether the key can be used at now: nil, ErrRevokedKey
// (revoked at any time, which wins over expiry) or ErrExpiredKey (now is at
// or after Expires).
func (k Key) Active(now time.Time) error {
	switch {
	case !k.Revoked.IsZero():
		return fmt.Errorf("%w: %s", ErrRevokedKey, k.ID)
	case !now.Before(k.Expires):
		return fmt.Errorf("%w: %s", ErrExpiredKey, k.ID)
	}
	return nil
}

// Digest returns the SHA-256 digest of a secret, the only form in which a
// secret is stored.
func Digest(secret string) [32]byte {
	// A secret of ordinary length is hashed from a stack buffer, so that a
	// request-time lookup allocates nothing.
	var buf [128]byte
	return sha256.Sum256(append(buf[:0], secret...))
}

// ParseTTL parses a key lifetime: a whole number of days, weeks or years
// ("90d", "52w", "1y" = 365 days) or anything time.ParseDuration accepts
// ("12h", "90m"). It must be more than zero and at most 366 days. Errors:
// ErrInvalid saying what is accepted.
func ParseTTL(s string) (time.Duration, error) {
	const hint = `use a whole number of days, weeks or years ("90d", "52w", "1y") or a Go duration ("12h")`
	var d time.Duration
	if n := len(s); n >= 2 && strings.IndexByte("dwy", s[n-1]) >= 0 && isDigits(s[:n-1]) {
		unit := 24 * time.Hour
		switch s[n-1] {
		case 'w':
			unit *= 7
		case 'y':
			unit *= 365
		}
		v, err := strconv.ParseUint(s[:n-1], 10, 64)
		if err != nil || v > uint64(MaxTTL/unit) {
			return 0, Errorf(ErrInvalid, "invalid TTL %q: at most 366 days", s)
		}
		d = time.Duration(v) * unit
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, Errorf(ErrInvalid, "invalid TTL %q: %s", s, hint)
		}
	}
	return d, checkTTL(d, s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func checkTTL(d time.Duration, text string) error {
	if text == "" {
		text = d.String()
	}
	switch {
	case d <= 0:
		return Errorf(ErrInvalid, "invalid TTL %q: must be more than zero", text)
	case d > MaxTTL:
		return Errorf(ErrInvalid, "invalid TTL %q: at most 366 days", text)
	}
	return nil
}

// MintRequest asks for a new key.
type MintRequest struct {
	OrgID    string        // organisation the key acts for; must exist
	Preset   string        // a name in Presets
	Name     string        // optional label shown in listings
	Member   string        // the member whose Explore map the key serves (Key.Member)
	Datasets []string      // optional narrowing to these dataset ids
	TTL      time.Duration // lifetime; zero means DefaultTTL
	Now      time.Time     // creation time; zero means now
}

func presetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckMint applies MintKey's checks to req and returns the capabilities
// of its preset (shared with Presets: clone before changing), its
// lifetime (DefaultTTL when zero) and its datasets, sorted without
// duplicates. Dataset ids are checked for syntax (IDRule), not for
// existence. Errors: ErrInvalid naming the rule broken: an unknown preset
// (listing the presets), a TTL not in (0, 366 days], a bad dataset id or
// name.
func CheckMint(req MintRequest) (caps []Capability, ttl time.Duration, datasets []string, err error) {
	caps, ok := Presets[req.Preset]
	if !ok {
		return nil, 0, nil, Errorf(ErrInvalid, "invalid preset %q: must be one of %s", req.Preset, strings.Join(presetNames(), ", "))
	}
	ttl = req.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if err := checkTTL(ttl, ""); err != nil {
		return nil, 0, nil, err
	}
	if err := CheckName("key", req.Name); err != nil {
		return nil, 0, nil, err
	}
	for _, d := range req.Datasets {
		if !ValidID(d) {
			return nil, 0, nil, Errorf(ErrInvalid, "invalid dataset id %q: must match %s", d, IDRule)
		}
		datasets = append(datasets, d)
	}
	slices.Sort(datasets)
	return caps, ttl, slices.Compact(datasets), nil
}

// readRandom fills b from random (crypto/rand when nil).
func readRandom(random io.Reader, b []byte) error {
	if random == nil {
		random = rand.Reader
	}
	if _, err := io.ReadFull(random, b); err != nil {
		return fmt.Errorf("read random bytes: %w", err)
	}
	return nil
}

// NewKeyID draws a key's public id from random (crypto/rand when nil):
// "key_" and 12 lowercase base32 characters.
func NewKeyID(random io.Reader) (string, error) {
	var b [8]byte // 64 bits, of which the 12 characters keep 60
	if err := readRandom(random, b[:]); err != nil {
		return "", err
	}
	return keyIDPrefix + keyIDEncoding.EncodeToString(b[:])[:keyIDChars], nil
}

// NewSecret draws a key's secret from random (crypto/rand when nil):
// SecretPrefix and 32 random bytes in base62, SecretLen characters.
func NewSecret(random io.Reader) (string, error) {
	var b [secretBytes]byte
	if err := readRandom(random, b[:]); err != nil {
		return "", err
	}
	out := make([]byte, len(SecretPrefix)+secretDigits)
	copy(out, SecretPrefix)
	encodeBase62(out[len(SecretPrefix):], b)
	clear(b[:])
	return string(out), nil
}

// encodeBase62 writes n as len(dst) base62 digits, most significant first,
// zero-padded. It does the same work whatever n is. dst must be long
// enough for n (43 digits hold any 32 bytes).
func encodeBase62(dst []byte, n [secretBytes]byte) {
	for i := len(dst) - 1; i >= 0; i-- {
		// Divide n by 62 in place, most significant byte first.
		rem := 0
		for j := range n {
			cur := rem<<8 | int(n[j])
			n[j] = byte(cur / 62)
			rem = cur % 62
		}
		dst[i] = base62Digits[rem]
	}
}

// PrepareKey applies MintKey's checks to req and makes the key: a new
// public id and secret drawn from random (crypto/rand when nil), the
// secret's digest, the capabilities of its preset, its datasets sorted
// without duplicates, Created (req.Now, or now when zero) and Expires. It
// does not check that the organisation exists. Errors: ErrInvalid as
// CheckMint; errors of the random source.
func PrepareKey(req MintRequest, now time.Time, random io.Reader) (Key, string, error) {
	caps, ttl, datasets, err := CheckMint(req)
	if err != nil {
		return Key{}, "", err
	}
	if !req.Now.IsZero() {
		now = req.Now
	}
	now = now.Round(0).UTC()
	id, err := NewKeyID(random)
	if err != nil {
		return Key{}, "", err
	}
	secret, err := NewSecret(random)
	if err != nil {
		return Key{}, "", err
	}
	k := Key{
		ID: id, OrgID: req.OrgID, Name: req.Name, Member: req.Member, Preset: req.Preset,
		Caps: slices.Clone(caps), Datasets: datasets, Digest: Digest(secret),
		Created: now, Expires: now.Add(ttl),
	}
	return k, secret, nil
}

// Keyring is an immutable in-memory snapshot of all keys, for request-time
// lookups without touching a store. Safe for concurrent use. A nil
// *Keyring holds no keys.
//
// Keys are found by the SHA-256 digest of the presented secret. The map
// lookup is not constant-time, but what it could leak through timing is
// how close the digest of a guess lies to stored digests, and that says
// nothing about the secrets: SHA-256 is preimage resistant, so a digest
// cannot be turned back into a secret, nor a guess steered towards one.
// The found digest is then compared in constant time anyway
// (crypto/subtle), so the one comparison of secret-derived bytes leaks no
// timing either way.
type Keyring struct {
	keys map[[32]byte]Key
}

// NewKeyring returns a Keyring of keys. A later key with the digest of an
// earlier one replaces it.
func NewKeyring(keys []Key) *Keyring {
	kr := &Keyring{keys: make(map[[32]byte]Key, len(keys))}
	for _, k := range keys {
		// Clip the shared slices so that an append by a caller never
		// writes into the keyring's copy.
		k.Caps = slices.Clip(k.Caps)
		k.Datasets = slices.Clip(k.Datasets)
		kr.keys[k.Digest] = k
	}
	return kr
}

// Len returns the number of keys in the keyring, active or not.
func (kr *Keyring) Len() int {
	if kr == nil {
		return 0
	}
	return len(kr.keys)
}

// Lookup finds the key for a presented secret and checks that it is active
// at now. Errors: ErrUnknownKey, ErrExpiredKey, ErrRevokedKey; their
// messages never hold the secret (an expired or revoked key's public id is
// named). The returned Key's Caps and Datasets are shared with the keyring:
// do not modify their elements.
func (kr *Keyring) Lookup(secret string, now time.Time) (Key, error) {
	if kr == nil {
		return Key{}, ErrUnknownKey
	}
	d := Digest(secret)
	k, ok := kr.keys[d]
	if !ok || subtle.ConstantTimeCompare(k.Digest[:], d[:]) != 1 {
		return Key{}, ErrUnknownKey
	}
	if err := k.Active(now); err != nil {
		return Key{}, err
	}
	return k, nil
}

// SortKeys sorts keys as Keys returns them: by creation time, then id.
func SortKeys(keys []Key) {
	slices.SortFunc(keys, func(a, b Key) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
