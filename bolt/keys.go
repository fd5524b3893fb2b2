package bolt

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Errors of a presented secret (Keyring.Lookup, Key.Active). Their messages
// never hold the secret.
var (
	ErrUnknownKey = errors.New("unknown API key")
	ErrExpiredKey = errors.New("API key has expired")
	ErrRevokedKey = errors.New("API key has been revoked")
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
	keyIDRetries = 10
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
	Digest   [32]byte
	Created  time.Time
	Expires  time.Time
	Revoked  time.Time // zero when not revoked
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
			return 0, errorf(ErrInvalid, nil, "invalid TTL %q: at most 366 days", s)
		}
		d = time.Duration(v) * unit
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errorf(ErrInvalid, nil, "invalid TTL %q: %s", s, hint)
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
		return errorf(ErrInvalid, nil, "invalid TTL %q: must be more than zero", text)
	case d > MaxTTL:
		return errorf(ErrInvalid, nil, "invalid TTL %q: at most 366 days", text)
	}
	return nil
}

// keyRecord is a Key as stored (JSON) in the keys bucket under its id.
type keyRecord struct {
	ID       string       `json:"id"`
	OrgID    string       `json:"org"`
	Name     string       `json:"name,omitempty"`
	Preset   string       `json:"preset"`
	Caps     []Capability `json:"caps"`
	Datasets []string     `json:"datasets,omitempty"`
	Digest   string       `json:"digest"` // hex SHA-256 of the secret
	Created  time.Time    `json:"created"`
	Expires  time.Time    `json:"expires"`
	Revoked  *time.Time   `json:"revoked,omitempty"`
}

func (k Key) record() keyRecord {
	r := keyRecord{
		ID: k.ID, OrgID: k.OrgID, Name: k.Name, Preset: k.Preset, Caps: k.Caps, Datasets: k.Datasets,
		Digest: hex.EncodeToString(k.Digest[:]), Created: k.Created, Expires: k.Expires,
	}
	if !k.Revoked.IsZero() {
		t := k.Revoked
		r.Revoked = &t
	}
	return r
}

// decodeKey decodes a stored key record, checking that it is one this
// package could have written under that id.
func decodeKey(id string, v []byte) (Key, error) {
	var r keyRecord
	if err := decodeStrict(v, &r); err != nil {
		return Key{}, err
	}
	k := Key{
		ID: r.ID, OrgID: r.OrgID, Name: r.Name, Preset: r.Preset, Caps: r.Caps, Datasets: r.Datasets,
		Created: r.Created, Expires: r.Expires,
	}
	if r.Revoked != nil {
		if r.Revoked.IsZero() {
			return Key{}, errors.New("zero revocation time")
		}
		k.Revoked = *r.Revoked
	}
	d, err := hex.DecodeString(r.Digest)
	switch {
	case r.ID != id:
		return Key{}, fmt.Errorf("record holds id %q", r.ID)
	case err != nil || len(d) != len(k.Digest):
		return Key{}, errors.New("digest is not 64 hex digits")
	case r.OrgID == "":
		return Key{}, errors.New("no organisation")
	case len(r.Caps) == 0:
		return Key{}, errors.New("no capabilities")
	case r.Expires.IsZero():
		return Key{}, errors.New("no expiry")
	}
	copy(k.Digest[:], d)
	return k, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown members and
// trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the record")
	}
	return nil
}

// putJSON stores v, encoded as JSON, under key in b.
func putJSON(b *bbolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}

// MintRequest asks for a new key.
type MintRequest struct {
	OrgID    string        // organisation the key acts for; must exist
	Preset   string        // a name in Presets
	Name     string        // optional label shown in listings
	Datasets []string      // optional narrowing to these dataset ids
	TTL      time.Duration // lifetime; zero means DefaultTTL
	Now      time.Time     // creation time; zero means now
}

// MintKey creates a key and returns it with its secret, the only time the
// secret exists outside the caller: the file holds its SHA-256 digest. The
// secret is SecretLen characters: SecretPrefix and 32 random bytes in
// base62. Dataset ids are checked for syntax (like organisation ids), not
// for existence, and stored sorted without duplicates.
//
// Errors: ErrNotFound when the organisation does not exist; ErrInvalid for
// an unknown preset (listing the presets), a TTL not in (0, 366 days], a
// bad dataset id or name; errors from the random source or the file.
func (s *Store) MintKey(req MintRequest) (Key, string, error) {
	caps, ttl, datasets, err := checkMint(req)
	if err != nil {
		return Key{}, "", err
	}

	now := req.Now
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	k := Key{
		OrgID: req.OrgID, Name: req.Name, Preset: req.Preset,
		Caps: slices.Clone(caps), Datasets: datasets,
		Created: now, Expires: now.Add(ttl),
	}

	var secret string
	err = s.update(func(tx *bbolt.Tx) error {
		if _, err := s.getOrg(tx, req.OrgID); err != nil {
			return err
		}
		keys, err := tx.CreateBucketIfNotExists(bucketKeys)
		if err != nil {
			return err
		}
		digests, err := tx.CreateBucketIfNotExists(bucketKeyDigests)
		if err != nil {
			return err
		}
		for try := 0; ; try++ {
			if try == keyIDRetries {
				return fmt.Errorf("mint key: no unused key id after %d tries: is the random source broken?", keyIDRetries)
			}
			if k.ID, err = s.newKeyID(); err != nil {
				return err
			}
			if keys.Get([]byte(k.ID)) == nil {
				break
			}
		}
		for try := 0; ; try++ {
			if try == keyIDRetries {
				return fmt.Errorf("mint key: no unused secret after %d tries: is the random source broken?", keyIDRetries)
			}
			if secret, err = s.newSecret(); err != nil {
				return err
			}
			k.Digest = Digest(secret)
			if digests.Get(k.Digest[:]) == nil {
				break
			}
		}
		if err := putJSON(keys, []byte(k.ID), k.record()); err != nil {
			return err
		}
		return digests.Put(k.Digest[:], []byte(k.ID))
	})
	if err != nil {
		return Key{}, "", err
	}
	return k, secret, nil
}

func presetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *Store) random(b []byte) error {
	r := s.rand
	if r == nil {
		r = rand.Reader
	}
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("mint key: read random bytes: %w", err)
	}
	return nil
}

func (s *Store) newKeyID() (string, error) {
	var b [8]byte // 64 bits, of which the 12 characters keep 60
	if err := s.random(b[:]); err != nil {
		return "", err
	}
	return keyIDPrefix + keyIDEncoding.EncodeToString(b[:])[:keyIDChars], nil
}

func (s *Store) newSecret() (string, error) {
	var b [secretBytes]byte
	if err := s.random(b[:]); err != nil {
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

// Keys returns the keys of one organisation, or of all when orgID is "",
// sorted by creation time, then id. Errors: ErrNotFound for an unknown
// organisation; ErrCorrupt.
func (s *Store) Keys(orgID string) ([]Key, error) {
	var out []Key
	err := s.view(func(tx *bbolt.Tx) error {
		if orgID != "" {
			if _, err := s.getOrg(tx, orgID); err != nil {
				return err
			}
		}
		return s.forEachKey(tx, func(k Key) {
			if orgID == "" || k.OrgID == orgID {
				out = append(out, k)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Key) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func (s *Store) forEachKey(tx *bbolt.Tx, fn func(Key)) error {
	b := tx.Bucket(bucketKeys)
	if b == nil {
		return nil
	}
	return b.ForEach(func(id, v []byte) error {
		k, err := decodeKey(string(id), v)
		if err != nil {
			return s.corruptKey(string(id), err)
		}
		fn(k)
		return nil
	})
}

func (s *Store) corruptKey(id string, err error) error {
	return errorf(ErrCorrupt, err, "data file %q is corrupt: key %q: %v", s.path, id, err)
}

// Key returns the key with the given public id. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Key(id string) (Key, error) {
	return viewValue(s, func(tx *bbolt.Tx) (Key, error) { return s.getKey(tx, id) })
}

func (s *Store) getKey(tx *bbolt.Tx, id string) (Key, error) {
	v := lookup(tx, bucketKeys, id)
	if v == nil {
		return Key{}, errorf(ErrNotFound, nil, "key %q not found", id)
	}
	k, err := decodeKey(id, v)
	if err != nil {
		return Key{}, s.corruptKey(id, err)
	}
	return k, nil
}

// RevokeKey marks the key revoked at now (zero means the current time) and
// returns it. Revoking a revoked key changes nothing and returns it with
// its first revocation time. Running servers see the change when they next
// load their Keyring. Errors: ErrNotFound; ErrCorrupt.
func (s *Store) RevokeKey(id string, now time.Time) (Key, error) {
	if now.IsZero() {
		now = s.clock()
	}
	var k Key
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if k, err = s.getKey(tx, id); err != nil || !k.Revoked.IsZero() {
			return err
		}
		k.Revoked = now.Round(0).UTC()
		return putJSON(tx.Bucket(bucketKeys), []byte(id), k.record())
	})
	if err != nil {
		return Key{}, err
	}
	return k, nil
}

// Keyring is an immutable in-memory snapshot of all keys, for request-time
// lookups without touching the file. Safe for concurrent use. A nil
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

// Keyring loads every key in one read transaction. Errors: ErrCorrupt.
func (s *Store) Keyring() (*Keyring, error) {
	kr := &Keyring{keys: make(map[[32]byte]Key)}
	err := s.view(func(tx *bbolt.Tx) error {
		return s.forEachKey(tx, func(k Key) {
			// Clip the shared slices so that an append by a caller
			// never writes into the keyring's copy.
			k.Caps = slices.Clip(k.Caps)
			k.Datasets = slices.Clip(k.Datasets)
			kr.keys[k.Digest] = k
		})
	})
	if err != nil {
		return nil, err
	}
	return kr, nil
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

// checkMint applies MintKey's checks to req and returns the capabilities
// of its preset, its lifetime (DefaultTTL when zero) and its datasets,
// sorted without duplicates. Errors: ErrInvalid naming the rule broken.
func checkMint(req MintRequest) (caps []Capability, ttl time.Duration, datasets []string, err error) {
	caps, ok := Presets[req.Preset]
	if !ok {
		return nil, 0, nil, errorf(ErrInvalid, nil, "invalid preset %q: must be one of %s", req.Preset, strings.Join(presetNames(), ", "))
	}
	ttl = req.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if err := checkTTL(ttl, ""); err != nil {
		return nil, 0, nil, err
	}
	if err := checkName("key", req.Name); err != nil {
		return nil, 0, nil, err
	}
	for _, d := range req.Datasets {
		if !idPattern.MatchString(d) {
			return nil, 0, nil, errorf(ErrInvalid, nil, "invalid dataset id %q: must match %s", d, idRule)
		}
		datasets = append(datasets, d)
	}
	slices.Sort(datasets)
	return caps, ttl, slices.Compact(datasets), nil
}
