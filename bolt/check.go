package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"

	"frameindex/state"

	bbolt "go.etcd.io/bbolt"
)

// CheckReport is what Check found in a data file: what it holds, the
// staging buckets crashed imports left (harmless: Compact drops them) and
// every problem. A file is sound when Problems is empty.
type CheckReport struct {
	Path          string `json:"path"`
	Size          int64  `json:"size"`      // bytes of the file
	FreeBytes     int64  `json:"freeBytes"` // bytes in free pages and past the last page, which Compact gives back
	Schema        int    `json:"schema"`
	Frames        int    `json:"frames"` // of the grid
	Orgs          int    `json:"orgs"`
	Keys          int    `json:"keys"`
	LedgerEntries int    `json:"ledgerEntries"`
	Datasets      int    `json:"datasets"`
	Records       int    `json:"records"`  // frame records of the datasets' live versions
	Features      int    `json:"features"` // features of the datasets' live versions
	// Staging names the version buckets no dataset points at: left by
	// imports that crashed (or, on a live file, being written by the
	// import running now).
	Staging []string `json:"staging,omitempty"`
	// Unchecked names the top-level buckets whose records Check does not
	// verify (kept by other parts of frameindex, or by a later build of
	// the same schema): they pass bbolt's check only.
	Unchecked []string `json:"unchecked,omitempty"`
	// Journal counts the records of ledger writes waiting in the
	// journal beside a file opened read-only (PATH.journal: a server
	// stopped without closing the file); the next writable open writes
	// them into the file. The counts above do not include them.
	Journal int `json:"journal,omitempty"`
	// Problems lists what is wrong, at most maxProblems of them (the
	// last line then says how many more). Never nil.
	Problems []string `json:"problems"`
}

// OK reports whether the file is sound.
func (r CheckReport) OK() bool { return len(r.Problems) == 0 }

// maxProblems bounds the problems a report lists.
const maxProblems = 100

// checker gathers problems.
type checker struct {
	r     *CheckReport
	more  int
	ctx   context.Context
	steps int
}

func (c *checker) add(format string, args ...any) {
	if len(c.r.Problems) >= maxProblems {
		c.more++
		return
	}
	c.r.Problems = append(c.r.Problems, fmt.Sprintf(format, args...))
}

// tick checks ctx every 4096 steps.
func (c *checker) tick() error {
	if c.steps++; c.steps%4096 == 0 {
		return c.ctx.Err()
	}
	return nil
}

// Check verifies the whole data file: bbolt's own consistency check
// (every page reachable once, or free; keys in order), then frameindex's
// invariants — the schema and grid records, every organisation, key and
// licence record decodes; every key's digest is 64 hex digits and the
// digest index maps it, and only it, back to the key; every organisation's
// ledger is numbered 1, 2, 3... with each balance the running sum of the
// changes and the last equal to the organisation's balance (no balance
// without a ledger); usage counters and pending reservations decode; every
// dataset's live version exists whole: a frames and a feats bucket, as
// many records and features as its description says, each record's
// attributes valid against the declared ones and each frame's features
// numbered 0..n-1 as its record's count says.
//
// Everything is read in one read transaction. bbolt's check reads the
// free page list, which writers change: run Check on a store no one writes
// meanwhile (open the file for the check, or check a Snapshot copy); a
// running server's file is checked through a snapshot (see package admin).
//
// Problems go into the report; the error is for a check that could not be
// carried out: ctx's error, or a file error.
func (s *Store) Check(ctx context.Context) (CheckReport, error) {
	s.settled()
	r := CheckReport{Path: s.path, Schema: Schema, Problems: []string{}}
	if fi, err := os.Stat(s.path); err == nil {
		r.Size = fi.Size()
	}
	c := &checker{r: &r, ctx: ctx}
	err := s.view(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			c.add("bbolt: %v", err)
		}
		// Free pages (the check loaded the free list), and the room
		// bbolt grew the file by beyond its last page.
		r.FreeBytes = int64(tx.DB().Stats().FreeAlloc) + max(0, r.Size-tx.Size())
		if err := ctx.Err(); err != nil {
			return err
		}
		return s.checkContent(tx, c)
	})
	if err != nil && !errors.Is(err, state.ErrCorrupt) {
		return CheckReport{}, err
	}
	if err != nil {
		c.add("%v", err)
	}
	if c.more > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("… and %d more problems", c.more))
	}
	if s.journal == nil {
		_, n, err := s.pendingJournal()
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
		}
		r.Journal = n
	}
	return r, nil
}

// CheckFile opens the data file at path read-only (a shared lock: it fails
// with ErrLocked while a server has the file), checks it and closes it.
// Errors: those of Open (a file Open refuses, as corrupt or foreign, is an
// error, not a report) and of Check.
func CheckFile(ctx context.Context, path string) (CheckReport, error) {
	s, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		return CheckReport{}, err
	}
	defer s.Close()
	return s.Check(ctx)
}

// knownBuckets are the top-level buckets checkContent verifies.
var knownBuckets = map[string]bool{
	"meta": true, "lattice": true, "frames": true, "orgs": true, "keys": true, "keydigests": true,
	"ledger": true, "usage": true, "pending": true, "refunded": true, "datasets": true, "licences": true, "dsv": true,
}

func (s *Store) checkContent(tx *bbolt.Tx, c *checker) error {
	r := c.r
	_ = tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if !knownBuckets[string(name)] {
			r.Unchecked = append(r.Unchecked, string(name))
		}
		return nil
	})
	// The grid: its record, and its runs or polygons decode to the number
	// of frames the record gives.
	info, err := s.readGridInfo(tx)
	switch {
	case errors.Is(err, ErrNoGrid):
	case err != nil:
		c.add("grid: %v", err)
	case info.Kind == GridLattice:
		if _, err := s.readLattice(tx, info.Frames); err != nil {
			c.add("grid: %v", err)
		}
		r.Frames = info.Frames
	default:
		if _, err := s.readPolygons(tx, info.Frames); err != nil {
			c.add("grid: %v", err)
		}
		r.Frames = info.Frames
	}

	orgs := s.checkOrgs(tx, c)
	if err := s.checkLedgers(tx, c, orgs); err != nil {
		return err
	}
	if err := s.checkKeys(tx, c, orgs); err != nil {
		return err
	}
	s.checkUsage(tx, c, orgs)
	datasets, err := s.checkDatasets(tx, c, orgs)
	if err != nil {
		return err
	}
	s.checkLicences(tx, c, orgs, datasets)
	return nil
}

// checkOrgs decodes every organisation and returns their balances.
func (s *Store) checkOrgs(tx *bbolt.Tx, c *checker) map[string]int64 {
	orgs := map[string]int64{}
	b := tx.Bucket(bucketOrgs)
	if b == nil {
		return orgs
	}
	_ = b.ForEach(func(k, v []byte) error {
		if v == nil {
			c.add("organisations: %q is a bucket, not a record", k)
			return nil
		}
		o, err := s.decodeOrg(string(k), v)
		if err != nil {
			c.add("%v", err)
			return nil
		}
		orgs[o.ID] = o.Credits
		return nil
	})
	c.r.Orgs = len(orgs)
	return orgs
}

// checkLedgers checks that every ledger is numbered from 1 without gaps,
// that each balance is the running sum of the changes, and that the last
// one is the organisation's balance.
func (s *Store) checkLedgers(tx *bbolt.Tx, c *checker, orgs map[string]int64) error {
	seen := map[string]bool{}
	if all := tx.Bucket(bucketLedger); all != nil {
		err := all.ForEach(func(k, v []byte) error {
			org := string(k)
			if v != nil {
				c.add("ledger: %q is a record, not an organisation's bucket", k)
				return nil
			}
			seen[org] = true
			balance, ok := orgs[org]
			if !ok {
				c.add("ledger of organisation %q: no such organisation", org)
			}
			b := all.Bucket(k)
			var sum int64
			var want uint64 = 1
			cur := b.Cursor()
			for key, val := cur.First(); key != nil; key, val = cur.Next() {
				if err := c.tick(); err != nil {
					return err
				}
				c.r.LedgerEntries++
				if val == nil {
					c.add("ledger of organisation %q: entry %x is a bucket", org, key)
					continue
				}
				e, err := decodeLedgerEntry(key, val)
				if err != nil {
					c.add("ledger of organisation %q, entry %x: %v", org, key, err)
					continue
				}
				if e.Seq != want {
					c.add("ledger of organisation %q: entry %d follows entry %d (entries are numbered without gaps)", org, e.Seq, want-1)
				}
				want = e.Seq + 1
				sum += e.Credits
				if e.Balance != sum {
					c.add("ledger of organisation %q, entry %d: balance %d, but the changes so far sum to %d", org, e.Seq, e.Balance, sum)
					sum = e.Balance // report each break once
				}
			}
			if seq := b.Sequence(); seq < want-1 {
				c.add("ledger of organisation %q: sequence %d is behind its last entry %d", org, seq, want-1)
			}
			if ok && sum != balance {
				c.add("organisation %q: balance %d, but its ledger sums to %d", org, balance, sum)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for org, balance := range orgs {
		if !seen[org] && balance != 0 {
			c.add("organisation %q: balance %d without a ledger", org, balance)
		}
	}
	return nil
}

// checkKeys checks every key record and the digest index both ways.
func (s *Store) checkKeys(tx *bbolt.Tx, c *checker, orgs map[string]int64) error {
	digestOf := map[string][32]byte{}
	if b := tx.Bucket(bucketKeys); b != nil {
		err := b.ForEach(func(k, v []byte) error {
			if err := c.tick(); err != nil {
				return err
			}
			if v == nil {
				c.add("keys: %q is a bucket, not a record", k)
				return nil
			}
			key, err := decodeKey(string(k), v)
			if err != nil {
				c.add("key %q: %v", k, err)
				return nil
			}
			if _, ok := orgs[key.OrgID]; !ok {
				c.add("key %q: organisation %q does not exist", key.ID, key.OrgID)
			}
			digestOf[key.ID] = key.Digest
			return nil
		})
		if err != nil {
			return err
		}
	}
	c.r.Keys = len(digestOf)
	indexed := map[string]bool{}
	if b := tx.Bucket(bucketKeyDigests); b != nil {
		err := b.ForEach(func(k, v []byte) error {
			if err := c.tick(); err != nil {
				return err
			}
			switch {
			case v == nil:
				c.add("key digests: %x is a bucket, not a record", k)
				return nil
			case len(k) != 32:
				c.add("key digests: a digest of %d bytes, want 32 (SHA-256)", len(k))
				return nil
			}
			id := string(v)
			d, ok := digestOf[id]
			switch {
			case !ok:
				c.add("key digests: digest %x… names key %q, which does not exist", k[:4], id)
			case !bytes.Equal(d[:], k):
				c.add("key %q: its digest index entry %x… is not its digest", id, k[:4])
			case indexed[id]:
				c.add("key %q: indexed under two digests", id)
			}
			indexed[id] = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	for id := range digestOf {
		if !indexed[id] {
			c.add("key %q: its digest is not in the digest index (the key cannot be used)", id)
		}
	}
	return nil
}

// checkUsage decodes every usage counter and pending or refunded
// reservation.
func (s *Store) checkUsage(tx *bbolt.Tx, c *checker, orgs map[string]int64) {
	if all := tx.Bucket(bucketUsage); all != nil {
		_ = all.ForEach(func(k, v []byte) error {
			if v != nil {
				c.add("usage: %q is a record, not an organisation's bucket", k)
				return nil
			}
			if _, ok := orgs[string(k)]; !ok {
				c.add("usage of organisation %q: no such organisation", k)
			}
			return all.Bucket(k).ForEach(func(name, val []byte) error {
				if _, err := decodeCounter(val); err != nil {
					c.add("usage counter %q of organisation %q: %v", name, k, err)
				}
				return nil
			})
		})
	}
	if b := tx.Bucket(bucketPending); b != nil {
		_ = b.ForEach(func(k, v []byte) error {
			if _, err := decodeReservation(k, v); err != nil {
				c.add("pending reservation %x: %v", k, err)
			}
			return nil
		})
	}
	if b := tx.Bucket(bucketRefunded); b != nil {
		_ = b.ForEach(func(k, v []byte) error {
			if len(k) != 8 || v == nil {
				c.add("refunded reservation %x: want an 8-byte id and a time", k)
			}
			return nil
		})
	}
}

// checkDatasets checks every dataset's description and live version, and
// lists the staging buckets. It returns the dataset ids.
func (s *Store) checkDatasets(tx *bbolt.Tx, c *checker, orgs map[string]int64) (map[string]bool, error) {
	ids := map[string]bool{}
	live := map[string]bool{}
	var all []state.Dataset
	if b := tx.Bucket(bucketDatasets); b != nil {
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				c.add("datasets: %q is a bucket, not a record", k)
				return nil
			}
			d, err := s.decodeDataset(string(k), v)
			if err != nil {
				c.add("%v", err)
				return nil
			}
			ids[d.ID] = true
			live[string(versionBucketName(d.ID, d.Version))] = true
			all = append(all, d)
			return nil
		})
	}
	c.r.Datasets = len(ids)
	versions := tx.Bucket(bucketVersions)
	for _, d := range all {
		if _, ok := orgs[d.Owner]; !ok {
			c.add("dataset %q: owner %q does not exist", d.ID, d.Owner)
		}
		if err := s.checkVersion(versions, d, c); err != nil {
			return nil, err
		}
	}
	if versions != nil {
		_ = versions.ForEach(func(k, v []byte) error {
			switch {
			case v != nil:
				c.add("dataset versions: %q is a record, not a bucket", k)
			case !live[string(k)]:
				c.r.Staging = append(c.r.Staging, string(k))
			}
			return nil
		})
	}
	sort.Strings(c.r.Staging)
	return ids, nil
}

// checkVersion checks that the live version of d is whole.
func (s *Store) checkVersion(versions *bbolt.Bucket, d state.Dataset, c *checker) error {
	name := versionBucketName(d.ID, d.Version)
	var v *bbolt.Bucket
	if versions != nil {
		v = versions.Bucket(name)
	}
	if v == nil {
		c.add("dataset %q: version %d is missing (bucket %s)", d.ID, d.Version, name)
		return nil
	}
	frames, feats := v.Bucket(bucketVFrames), v.Bucket(bucketVFeats)
	if frames == nil || feats == nil {
		c.add("dataset %q, version %d: lacks its frames or feats bucket", d.ID, d.Version)
		return nil
	}
	probe := d
	_, err := checkDataset(&probe)
	if err != nil {
		c.add("dataset %q: its description does not pass: %v", d.ID, err)
		return nil
	}
	sc := attrChecker(probe.Attributes)
	where := "dataset " + strconv.Quote(d.ID) + ", version " + strconv.Itoa(d.Version)
	nFrames, nFeats := 0, 0
	fc := feats.Cursor()
	fk, fv := fc.First()
	cur := frames.Cursor()
	for k, val := cur.First(); k != nil; k, val = cur.Next() {
		if err := c.tick(); err != nil {
			return err
		}
		nFrames++
		if len(k) != 8 || val == nil {
			c.add("%s: a frame record with a key of %d bytes (want 8) or a bucket", where, len(k))
			continue
		}
		frame := binary.BigEndian.Uint64(k)
		count, n := binary.Uvarint(val)
		if n <= 0 {
			c.add("%s, frame %d: the record has no feature count", where, frame)
			continue
		}
		attrs := val[n:]
		if len(attrs) > 0 {
			if _, err := sc.Check(attrs); err != nil {
				c.add("%s, frame %d: attributes: %v", where, frame, err)
			}
		} else if count == 0 {
			c.add("%s, frame %d: the record holds neither attributes nor features", where, frame)
		}
		// The frame's features come next in the feats bucket, numbered
		// from 0.
		for fk != nil && len(fk) == 12 && binary.BigEndian.Uint64(fk) < frame {
			c.add("%s: feature %d of frame %d has no frame record", where, binary.BigEndian.Uint32(fk[8:]), binary.BigEndian.Uint64(fk))
			fk, fv = fc.Next()
			nFeats++
		}
		for seq := uint64(0); seq < count; seq++ {
			if fk == nil || len(fk) != 12 || binary.BigEndian.Uint64(fk) != frame || uint64(binary.BigEndian.Uint32(fk[8:])) != seq {
				c.add("%s, frame %d: feature %d of %d is missing", where, frame, seq, count)
				break
			}
			if fv == nil || len(fv) == 0 || fv[0] != '{' {
				c.add("%s, frame %d, feature %d: not a JSON object", where, frame, seq)
			}
			nFeats++
			fk, fv = fc.Next()
		}
		for fk != nil && len(fk) == 12 && binary.BigEndian.Uint64(fk) == frame {
			c.add("%s, frame %d: feature %d is beyond the record's count %d", where, frame, binary.BigEndian.Uint32(fk[8:]), count)
			nFeats++
			fk, fv = fc.Next()
		}
	}
	for ; fk != nil; fk, fv = fc.Next() {
		nFeats++
		if len(fk) != 12 {
			c.add("%s: a feature key of %d bytes, want 12", where, len(fk))
			continue
		}
		c.add("%s: feature %d of frame %d has no frame record", where, binary.BigEndian.Uint32(fk[8:]), binary.BigEndian.Uint64(fk))
	}
	if nFrames != d.Frames {
		c.add("%s: %d frame records, but the description says %d (an incomplete version)", where, nFrames, d.Frames)
	}
	if nFeats != d.Features {
		c.add("%s: %d features, but the description says %d (an incomplete version)", where, nFeats, d.Features)
	}
	c.r.Records += nFrames
	c.r.Features += nFeats
	return nil
}

// checkLicences decodes every licence and checks that its organisation
// and dataset exist.
func (s *Store) checkLicences(tx *bbolt.Tx, c *checker, orgs map[string]int64, datasets map[string]bool) {
	b := tx.Bucket(bucketLicences)
	if b == nil {
		return
	}
	_ = b.ForEach(func(k, v []byte) error {
		if v == nil {
			c.add("licences: %q is a bucket, not a record", k)
			return nil
		}
		l, err := s.decodeLicence(k, v)
		if err != nil {
			c.add("%v", err)
			return nil
		}
		if _, ok := orgs[l.OrgID]; !ok {
			c.add("licence %s/%s: organisation %q does not exist", l.OrgID, l.Dataset, l.OrgID)
		}
		if !datasets[l.Dataset] {
			c.add("licence %s/%s: dataset %q does not exist", l.OrgID, l.Dataset, l.Dataset)
		}
		return nil
	})
}
