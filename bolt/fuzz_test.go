package bolt

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/state"
	bbolt "go.etcd.io/bbolt"
)

func FuzzParseTTL(f *testing.F) {
	for _, s := range []string{
		"90d", "52w", "1y", "12h", // each accepted form
		"366d", "367d", "8784h", // the upper bound on both sides
		"0", "-5h", "1.5d", "1d12h", "", // refused
		"99999999999999999999d", // overflows uint64
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := state.ParseTTL(s)
		if err != nil {
			if !errors.Is(err, state.ErrInvalid) {
				t.Fatalf("ParseTTL(%q) error %v is not ErrInvalid", s, err)
			}
			return
		}
		if d <= 0 || d > state.MaxTTL {
			t.Fatalf("ParseTTL(%q) = %v, outside (0, 366 days]", s, d)
		}
	})
}

func FuzzDecodeMultiPolygon(f *testing.F) {
	for _, fr := range testFrames() { // holes, multipolygons, odd floats
		f.Add(appendMultiPolygon(nil, fr.Geom))
	}
	f.Add([]byte{})                                         // nothing
	f.Add([]byte{0})                                        // no polygons
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) // unterminated varint
	f.Add(binary.AppendUvarint(nil, math.MaxUint64))        // a count no record could hold
	f.Fuzz(func(t *testing.T, b []byte) {
		mp, err := decodeMultiPolygon(b, &arena{chunk: 64})
		if err != nil {
			return
		}
		if err := checkMultiPolygon(mp); err != nil {
			t.Fatalf("decoded a geometry Put would refuse: %v", err)
		}
		enc := appendMultiPolygon(nil, mp)
		if len(enc) != multiPolygonSize(mp) {
			t.Fatalf("multiPolygonSize = %d, encoding has %d bytes", multiPolygonSize(mp), len(enc))
		}
		again, err := decodeMultiPolygon(enc, nil)
		if err != nil || !sameBits(again, mp) {
			t.Fatalf("re-decoding the encoding: %v, %v; want %v", again, err, mp)
		}
	})
}

func FuzzDecodeRow(f *testing.F) {
	pair := func(c0, c1 uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, c0), c1)
	}
	row := binary.BigEndian.AppendUint32(nil, 1200)
	f.Add(row, pair(22000, 22010))                                   // one run
	f.Add(row, append(pair(0, 1), pair(3, grid.Cols-1)...))          // two runs to the antimeridian
	f.Add(row, append(pair(5, 9), pair(9, 12)...))                   // overlapping
	f.Add(row, pair(9, 4))                                           // reversed
	f.Add(binary.BigEndian.AppendUint32(nil, grid.Rows), pair(0, 0)) // row past the pole
	f.Add([]byte{1, 2}, pair(0, 0))                                  // short key
	f.Add(row, []byte{0, 0, 0})                                      // short value
	f.Fuzz(func(t *testing.T, key, value []byte) {
		runs, err := decodeRow(nil, key, value)
		if err != nil {
			return
		}
		// What decodes is a lattice PutLattice accepts, and encodes back
		// to the same bytes.
		var enc []byte
		for i, r := range runs {
			if r.Row < 0 || r.Row >= grid.Rows || r.Col0 < 0 || r.Col1 >= grid.Cols || r.Col0 > r.Col1 ||
				(i > 0 && r.Col0 <= runs[i-1].Col1) {
				t.Fatalf("decoded bad run %v", r)
			}
			enc = appendRunPair(enc, r)
		}
		if string(enc) != string(value) || string(rowKey(nil, runs[0].Row)) != string(key) {
			t.Fatalf("runs %v do not encode back to the record", runs)
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.db")
	s, err := Open(path, Options{Create: true})
	if err != nil {
		f.Fatal(err)
	}
	s.Close()
	real, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)                         // a healthy new data file
	f.Add(real[:len(real)/2])           // truncated
	f.Add([]byte(`{"type":"Feature"}`)) // GeoJSON
	f.Add([]byte{})                     // empty
	f.Fuzz(func(t *testing.T, b []byte) {
		p := parseHeader(b, int64(len(b)))
		if p != nil && p.kind != ErrForeign && p.kind != state.ErrCorrupt {
			t.Fatalf("parseHeader kind %v", p.kind)
		}
	})
}

func FuzzDecodeKey(f *testing.F) {
	k := state.Key{
		ID: "key_abcdefghijkl", OrgID: "acme", Name: "n", Preset: "full",
		Caps:     state.Presets["full"],
		Datasets: []string{"pop"},
		Digest:   state.Digest("svc_sk_x"),
		Created:  testNow, Expires: testNow.Add(state.DefaultTTL), Revoked: testNow.Add(time.Hour),
	}
	good, _ := json.Marshal(recordOf(k))
	f.Add("key_abcdefghijkl", good)               // a revoked key as MintKey and RevokeKey write it
	f.Add("key_other", good)                      // stored under another id
	f.Add("key_abcdefghijkl", []byte(`{}`))       // empty record
	f.Add("key_abcdefghijkl", []byte(`{"id":1}`)) // wrong type
	f.Add("key_abcdefghijkl", append(good, '{'))  // trailing data
	f.Fuzz(func(t *testing.T, id string, v []byte) {
		k, err := decodeKey(id, v)
		if err != nil {
			return
		}
		// A decoded key survives its own round trip.
		enc, err := json.Marshal(recordOf(k))
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		again, err := decodeKey(id, enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if again.ID != k.ID || again.Digest != k.Digest || !again.Expires.Equal(k.Expires) ||
			!again.Revoked.Equal(k.Revoked) || !reflect.DeepEqual(again.Caps, k.Caps) {
			t.Fatalf("round trip changed %+v into %+v", k, again)
		}
	})
}

// FuzzOpen opens arbitrary file contents: Open and the reads after it must
// return errors, never panic or crash.
func FuzzOpen(f *testing.F) {
	path := makeStoreFile(f)
	s, err := Open(path, Options{})
	if err != nil {
		f.Fatal(err)
	}
	if _, _, err := s.AddCredits("acme", 10, "seed", testNow); err != nil {
		f.Fatal(err)
	}
	if err := s.update(func(tx *bbolt.Tx) error {
		_, err := s.addCounter(tx, "acme", state.ChargesCounter(state.MonthOf(testNow), "roads"), 1, 2)
		return err
	}); err != nil {
		f.Fatal(err)
	}
	s.Close()
	real, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)                         // a data file with a lattice, an org, its key, ledger and usage
	f.Add([]byte(`{"type":"Polygon"}`)) // GeoJSON
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, Options{ReadOnly: true, Timeout: shortTimeout})
		if err != nil {
			for _, kind := range []error{ErrForeign, state.ErrCorrupt, ErrNewerSchema} {
				if errors.Is(err, kind) {
					return
				}
			}
			t.Fatalf("Open error of no expected kind: %v", err)
		}
		defer s.Close()
		_, _, _, _ = s.Grid()
		_, _ = s.Orgs()
		_, _ = s.Keyring()
		_, _ = s.Ledger("acme", 0)
		_, _ = s.Usage("acme", testNow)
	})
}

func FuzzDecodeLedgerEntry(f *testing.F) {
	e := state.LedgerEntry{Seq: 7, Time: testNow, Kind: state.LedgerAdjust, Credits: -3, Balance: 12, Note: "refund — Ọ̀yọ́",
		KeyID: "key_abcdefghijkl", Dataset: "roads", RequestID: "req-1"}
	good, _ := json.Marshal(e)
	f.Add(ledgerKey(7), good)                                                                                                        // an entry with every field
	f.Add(ledgerKey(8), good)                                                                                                        // stored under another sequence number
	f.Add(ledgerKey(7)[:4], good)                                                                                                    // a key of the wrong length
	f.Add(ledgerKey(1), []byte(`{}`))                                                                                                // empty record
	f.Add(ledgerKey(1), []byte(`{"seq":"1"}`))                                                                                       // wrong type
	f.Add(ledgerKey(7), append(good, '{'))                                                                                           // trailing data
	f.Add(ledgerKey(1), []byte(`{"seq":1,"time":"2025-01-01T00:00:00Z","kind":"grant","credits":-9223372036854775808,"balance":0}`)) // the most negative change
	f.Fuzz(func(t *testing.T, key, v []byte) {
		e, err := decodeLedgerEntry(key, v)
		if err != nil {
			return
		}
		if e.Credits == 0 || e.Balance < 0 || e.Kind == "" || e.Time.IsZero() {
			t.Fatalf("decoded an entry no writer makes: %+v", e)
		}
		enc, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		again, err := decodeLedgerEntry(key, enc)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if !again.Time.Equal(e.Time) {
			t.Fatalf("round trip changed the time %v into %v", e.Time, again.Time)
		}
		again.Time = e.Time
		if again != e {
			t.Fatalf("round trip changed %+v into %+v", e, again)
		}
	})
}

func FuzzDecodeCounter(f *testing.F) {
	f.Add(counter{3, 5}.append(nil))                                 // a counter as addCounter writes it
	f.Add(counter{math.MaxInt64, 0}.append(nil))                     // the largest count
	f.Add([]byte{})                                                  // empty
	f.Add(make([]byte, 17))                                          // a byte too long
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}) // a negative count
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCounter(b)
		if err != nil {
			return
		}
		if c.Count < 0 || c.Credits < 0 {
			t.Fatalf("decoded a negative counter %+v", c)
		}
		if enc := c.append(nil); string(enc) != string(b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b, c, enc)
		}
	})
}
