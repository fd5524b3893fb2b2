package bolt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// keyIDRetries is how many fresh ids (and secrets) MintKey draws when the
// one drawn is taken, before it blames the random source.
const keyIDRetries = 10

// keyRecord is a Key as stored (JSON) in the keys bucket under its id.
type keyRecord struct {
	ID       string             `json:"id"`
	OrgID    string             `json:"org"`
	Name     string             `json:"name,omitempty"`
	Member   string             `json:"member,omitempty"`
	Preset   string             `json:"preset"`
	Caps     []state.Capability `json:"caps"`
	Datasets []string           `json:"datasets,omitempty"`
	Digest   string             `json:"digest"` // hex SHA-256 of the secret
	Created  time.Time          `json:"created"`
	Expires  time.Time          `json:"expires"`
	Revoked  *time.Time         `json:"revoked,omitempty"`
}

func recordOf(k state.Key) keyRecord {
	r := keyRecord{
		ID: k.ID, OrgID: k.OrgID, Name: k.Name, Member: k.Member, Preset: k.Preset, Caps: k.Caps, Datasets: k.Datasets,
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
func decodeKey(id string, v []byte) (state.Key, error) {
	var r keyRecord
	if err := decodeStrict(v, &r); err != nil {
		return state.Key{}, err
	}
	k := state.Key{
		ID: r.ID, OrgID: r.OrgID, Name: r.Name, Member: r.Member, Preset: r.Preset, Caps: r.Caps, Datasets: r.Datasets,
		Created: r.Created, Expires: r.Expires,
	}
	if r.Revoked != nil {
		if r.Revoked.IsZero() {
			return state.Key{}, errors.New("zero revocation time")
		}
		k.Revoked = *r.Revoked
	}
	d, err := hex.DecodeString(r.Digest)
	switch {
	case r.ID != id:
		return state.Key{}, fmt.Errorf("record holds id %q", r.ID)
	case err != nil || len(d) != len(k.Digest):
		return state.Key{}, errors.New("digest is not 64 hex digits")
	case r.OrgID == "":
		return state.Key{}, errors.New("no organisation")
	case len(r.Caps) == 0:
		return state.Key{}, errors.New("no capabilities")
	case r.Expires.IsZero():
		return state.Key{}, errors.New("no expiry")
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
func putJSON(b interface{ Put(k, v []byte) error }, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
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
func (s *Store) MintKey(req state.MintRequest) (state.Key, string, error) {
	caps, ttl, datasets, err := state.CheckMint(req)
	if err != nil {
		return state.Key{}, "", err
	}

	now := req.Now
	if now.IsZero() {
		now = s.clock()
	}
	now = now.Round(0).UTC()
	k := state.Key{
		OrgID: req.OrgID, Name: req.Name, Member: req.Member, Preset: req.Preset,
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
			if k.ID, err = state.NewKeyID(s.rand); err != nil {
				return err
			}
			if keys.Get([]byte(k.ID)) == nil {
				break
			}
		}
		s.audit.setTarget(k.ID)
		for try := 0; ; try++ {
			if try == keyIDRetries {
				return fmt.Errorf("mint key: no unused secret after %d tries: is the random source broken?", keyIDRetries)
			}
			if secret, err = state.NewSecret(s.rand); err != nil {
				return err
			}
			k.Digest = state.Digest(secret)
			if digests.Get(k.Digest[:]) == nil {
				break
			}
		}
		if err := putJSON(keys, []byte(k.ID), recordOf(k)); err != nil {
			return err
		}
		return digests.Put(k.Digest[:], []byte(k.ID))
	})
	if err != nil {
		return state.Key{}, "", err
	}
	return k, secret, nil
}

// Keys returns the keys of one organisation, or of all when orgID is "",
// sorted by creation time, then id. Errors: ErrNotFound for an unknown
// organisation; ErrCorrupt.
func (s *Store) Keys(orgID string) ([]state.Key, error) {
	var out []state.Key
	err := s.view(func(tx *bbolt.Tx) error {
		if orgID != "" {
			if _, err := s.getOrg(tx, orgID); err != nil {
				return err
			}
		}
		return s.forEachKey(tx, func(k state.Key) {
			if orgID == "" || k.OrgID == orgID {
				out = append(out, k)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	state.SortKeys(out)
	return out, nil
}

func (s *Store) forEachKey(tx *bbolt.Tx, fn func(state.Key)) error {
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
	return state.Wrapf(state.ErrCorrupt, err, "data file %q is corrupt: key %q: %v", s.path, id, err)
}

// Key returns the key with the given public id. Errors: ErrNotFound;
// ErrCorrupt.
func (s *Store) Key(id string) (state.Key, error) {
	return viewValue(s, func(tx *bbolt.Tx) (state.Key, error) { return s.getKey(tx, id) })
}

func (s *Store) getKey(tx *bbolt.Tx, id string) (state.Key, error) {
	v := lookup(tx, bucketKeys, id)
	if v == nil {
		return state.Key{}, state.Errorf(state.ErrNotFound, "key %q not found", id)
	}
	k, err := decodeKey(id, v)
	if err != nil {
		return state.Key{}, s.corruptKey(id, err)
	}
	return k, nil
}

// RevokeKey marks the key revoked at now (zero means the current time) and
// returns it. Revoking a revoked key changes nothing and returns it with
// its first revocation time. Running servers see the change when they next
// load their Keyring. Errors: ErrNotFound; ErrCorrupt.
func (s *Store) RevokeKey(id string, now time.Time) (state.Key, error) {
	if now.IsZero() {
		now = s.clock()
	}
	var k state.Key
	err := s.update(func(tx *bbolt.Tx) error {
		var err error
		if k, err = s.getKey(tx, id); err != nil || !k.Revoked.IsZero() {
			return err
		}
		k.Revoked = now.Round(0).UTC()
		return putJSON(tx.Bucket(bucketKeys), []byte(id), recordOf(k))
	})
	if err != nil {
		return state.Key{}, err
	}
	return k, nil
}

// Keyring loads every key in one read transaction. Errors: ErrCorrupt.
func (s *Store) Keyring() (*state.Keyring, error) {
	var keys []state.Key
	err := s.view(func(tx *bbolt.Tx) error {
		return s.forEachKey(tx, func(k state.Key) { keys = append(keys, k) })
	})
	if err != nil {
		return nil, err
	}
	return state.NewKeyring(keys), nil
}
