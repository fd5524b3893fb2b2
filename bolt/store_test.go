package bolt

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"frameindex/grid"
	"frameindex/state"
	bbolt "go.etcd.io/bbolt"
)

// shortTimeout keeps lock tests quick; the default (1s) is tested once.
const shortTimeout = 50 * time.Millisecond

// writeTemp writes data to a new file in a temporary directory.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// makeBoltFile makes a plain bbolt file and lets fn fill it.
func makeBoltFile(t *testing.T, fn func(tx *bbolt.Tx) error) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bolt.db")
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// testRuns is a small lattice: three rows of Nigeria, a few runs each.
var testRuns = []grid.Run{
	{Row: 1200, Col0: 22000, Col1: 22010},
	{Row: 1200, Col0: 22020, Col1: 22020},
	{Row: 1201, Col0: 21990, Col1: 22030},
	{Row: 1205, Col0: 22005, Col1: 22006},
	{Row: 1205, Col0: 22008, Col1: 22100},
}

// makeStoreFile makes a closed data file holding testRuns, an org and a key.
func makeStoreFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "frames.db")
	s, err := Open(path, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutLattice(testRuns, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddOrg(state.Org{ID: "acme"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.MintKey(state.MintRequest{OrgID: "acme", Preset: "full"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// pageSizeOf reads the page size from a healthy data file's first meta page.
func pageSizeOf(t *testing.T, data []byte) int {
	t.Helper()
	m, _, ok := readMeta(data, 0)
	if !ok {
		t.Fatal("first meta page unreadable")
	}
	return int(m.pageSize)
}

func schemaFile(t *testing.T, schema []byte) string {
	return makeBoltFile(t, func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return b.Put(metaSchema, schema)
	})
}

func TestOpen_Errors(t *testing.T) {
	random := make([]byte, 3*4096+17)
	rng := rand.New(rand.NewPCG(1, 2)) // fixed seed
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// storeBytes is a new data file's content; garbagePages writes one
	// whose pages after the meta pages are overwritten.
	storeBytes := func(t *testing.T) []byte {
		data, err := os.ReadFile(makeStoreFile(t))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	garbagePages := func(t *testing.T) string {
		data := storeBytes(t)
		for i := 2 * pageSizeOf(t, data); i < len(data); i++ {
			data[i] = 0xA5
		}
		return writeTemp(t, "garbage.db", data)
	}
	tests := []struct {
		name  string
		path  func(t *testing.T) string
		opts  Options
		want  error
		texts []string // the message names the path too
	}{
		{
			name:  "missing",
			path:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "none.db") },
			want:  ErrMissing,
			texts: []string{"does not exist", "frameindex grid build", "frameindex demo"},
		},
		{
			name:  "missing read-only",
			path:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "none.db") },
			opts:  Options{ReadOnly: true},
			want:  ErrMissing,
			texts: []string{"does not exist"},
		},
		{
			name:  "create and read-only",
			path:  func(t *testing.T) string { return filepath.Join(t.TempDir(), "none.db") },
			opts:  Options{Create: true, ReadOnly: true},
			want:  state.ErrInvalid,
			texts: []string{"Create and ReadOnly"},
		},
		{
			name:  "empty file",
			path:  func(t *testing.T) string { return writeTemp(t, "empty.db", nil) },
			want:  ErrForeign,
			texts: []string{"is empty"},
		},
		{
			name:  "empty file with create",
			path:  func(t *testing.T) string { return writeTemp(t, "empty.db", nil) },
			opts:  Options{Create: true},
			want:  ErrForeign,
			texts: []string{"is empty"},
		},
		{
			name: "geojson",
			path: func(t *testing.T) string {
				return writeTemp(t, "nga.geojson", []byte(`{"type":"FeatureCollection","features":[]}`))
			},
			want:  ErrForeign,
			texts: []string{"not a bbolt database"},
		},
		{
			name:  "random bytes",
			path:  func(t *testing.T) string { return writeTemp(t, "random.db", random) },
			want:  ErrForeign,
			texts: []string{"not a bbolt database"},
		},
		{
			name:  "one byte",
			path:  func(t *testing.T) string { return writeTemp(t, "one.db", []byte{0xED}) },
			want:  ErrForeign,
			texts: []string{"not a bbolt database"},
		},
		{
			name:  "directory",
			path:  func(t *testing.T) string { return t.TempDir() },
			want:  ErrForeign,
			texts: []string{"is a directory"},
		},
		{
			name: "bbolt without meta",
			path: func(t *testing.T) string {
				return makeBoltFile(t, func(tx *bbolt.Tx) error {
					_, err := tx.CreateBucket([]byte("widgets"))
					return err
				})
			},
			want:  ErrForeign,
			texts: []string{"without a frameindex schema record"},
		},
		{
			name: "bbolt empty",
			path: func(t *testing.T) string {
				return makeBoltFile(t, func(tx *bbolt.Tx) error { return nil })
			},
			opts:  Options{Create: true}, // an existing file is never claimed
			want:  ErrForeign,
			texts: []string{"without a frameindex schema record"},
		},
		{
			name:  "schema record of 2 bytes",
			path:  func(t *testing.T) string { return schemaFile(t, []byte{0, 1}) },
			want:  state.ErrCorrupt,
			texts: []string{"schema record has 2 bytes"},
		},
		{
			name:  "schema 0",
			path:  func(t *testing.T) string { return schemaFile(t, binary.BigEndian.AppendUint32(nil, 0)) },
			want:  state.ErrCorrupt,
			texts: []string{"schema number 0"},
		},
		{
			name:  "newer schema",
			path:  func(t *testing.T) string { return schemaFile(t, binary.BigEndian.AppendUint32(nil, 3)) },
			want:  ErrNewerSchema,
			texts: []string{"was written by a newer frameindex (schema 3; this build reads up to 1)"},
		},
		{
			name:  "newer schema read-only",
			path:  func(t *testing.T) string { return schemaFile(t, binary.BigEndian.AppendUint32(nil, 2)) },
			opts:  Options{ReadOnly: true},
			want:  ErrNewerSchema,
			texts: []string{"(schema 2; this build reads up to 1)"},
		},
		{
			name: "last page cut off",
			path: func(t *testing.T) string {
				data := storeBytes(t)
				m, _, _ := readMeta(data, 0)
				end := int(m.pgid) * int(m.pageSize) // the file may have slack beyond
				return writeTemp(t, "cut.db", data[:end-1])
			},
			want:  state.ErrCorrupt,
			texts: []string{"truncated to"},
		},
		{
			name: "truncated to the meta pages",
			path: func(t *testing.T) string {
				data := storeBytes(t)
				return writeTemp(t, "meta.db", data[:2*pageSizeOf(t, data)])
			},
			opts:  Options{ReadOnly: true},
			want:  state.ErrCorrupt,
			texts: []string{"truncated to"},
		},
		{
			name: "truncated inside the first page",
			path: func(t *testing.T) string {
				data := storeBytes(t)
				return writeTemp(t, "short.db", data[:100])
			},
			want:  state.ErrCorrupt,
			texts: []string{"truncated to 100 bytes"},
		},
		{
			name: "both meta pages flipped",
			path: func(t *testing.T) string {
				data := storeBytes(t)
				ps := pageSizeOf(t, data)
				data[pageHeaderSize+48] ^= 0xFF // txid of meta 0
				data[ps+pageHeaderSize+48] ^= 0xFF
				return writeTemp(t, "flipped.db", data)
			},
			want:  state.ErrCorrupt,
			texts: []string{"both bbolt meta pages are damaged"},
		},
		{
			name:  "data pages overwritten",
			path:  garbagePages,
			want:  state.ErrCorrupt,
			texts: []string{"is corrupt"},
		},
		{
			name:  "data pages overwritten read-only",
			path:  garbagePages,
			opts:  Options{ReadOnly: true},
			want:  state.ErrCorrupt,
			texts: []string{"is corrupt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			tt.opts.Timeout = shortTimeout
			s, err := Open(path, tt.opts)
			if err == nil {
				s.Close()
				t.Fatalf("Open succeeded, want %v", tt.want)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open error = %v, want %v", err, tt.want)
			}
			assertErrText(t, err, append(tt.texts, path)...)
		})
	}
}

func TestOpen_RealGeoJSON(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "nga", "nga_country.geojson")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real boundary files absent: %v", err)
	}
	for _, opts := range []Options{{}, {ReadOnly: true}, {Create: true}} {
		_, err := Open(path, opts)
		if !errors.Is(err, ErrForeign) {
			t.Fatalf("Open(%+v) error = %v, want ErrForeign", opts, err)
		}
		assertErrText(t, err, path, "not a bbolt database")
	}
}

func TestOpen_Create(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frames.db")
	s := mustOpenStoreOpts(t, path, Options{Create: true})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %v, want 0600", got)
	}
	var schema []byte
	var created string
	if err := s.db.View(func(tx *bbolt.Tx) error {
		schema = append(schema, tx.Bucket(bucketMeta).Get(metaSchema)...)
		created = string(tx.Bucket(bucketMeta).Get(metaCreated))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := binary.BigEndian.Uint32(schema); len(schema) != 4 || got != Schema {
		t.Errorf("schema record = %x, want %d", schema, Schema)
	}
	if ts, err := time.Parse(time.RFC3339Nano, created); err != nil || ts.IsZero() {
		t.Errorf("created record = %q (%v), want an RFC 3339 time", created, err)
	}
	if got := s.Path(); got != path {
		t.Errorf("Path() = %q, want %q", got, path)
	}
}

func TestOpen_CreateKeepsExisting(t *testing.T) {
	path := makeStoreFile(t)
	s := mustOpenStoreOpts(t, path, Options{Create: true})
	info, err := s.GridInfo()
	if err != nil {
		t.Fatal(err)
	}
	if info.Frames != 11+1+41+2+93 {
		t.Errorf("Frames = %d after reopening with Create, want the stored grid's 148", info.Frames)
	}
}

func TestOpen_CreateMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "frames.db")
	_, err := Open(path, Options{Create: true})
	assertErrText(t, err, path, "create data file")
	if _, statErr := os.Stat(filepath.Dir(path)); statErr == nil {
		t.Error("Open made the parent directories")
	}
}

func TestOpen_Locked(t *testing.T) {
	path := makeStoreFile(t)
	tests := []struct {
		name         string
		first, again Options
		wantLocked   bool
	}{
		{"write then write", Options{}, Options{Timeout: shortTimeout}, true},
		{"write then read", Options{}, Options{ReadOnly: true, Timeout: shortTimeout}, true},
		{"read then write", Options{ReadOnly: true}, Options{Timeout: shortTimeout}, true},
		{"read then read", Options{ReadOnly: true}, Options{ReadOnly: true, Timeout: shortTimeout}, false},
		{"default timeout", Options{}, Options{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s1, err := Open(path, tt.first)
			if err != nil {
				t.Fatal(err)
			}
			defer s1.Close()
			s2, err := Open(path, tt.again)
			if !tt.wantLocked {
				if err != nil {
					t.Fatalf("second open: %v", err)
				}
				s2.Close()
				return
			}
			if err == nil {
				s2.Close()
				t.Fatal("second open succeeded, want ErrLocked")
			}
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("second open: %v, want ErrLocked", err)
			}
			assertErrText(t, err, path, "locked by another process", "frameindex serve")
		})
	}
}

func TestStore_Close(t *testing.T) {
	path := makeStoreFile(t)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	var nilStore *Store
	if err := nilStore.Close(); err != nil {
		t.Fatalf("nil Close: %v", err)
	}
	// The lock is gone: the file opens again at once.
	s2, err := Open(path, Options{Timeout: shortTimeout})
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	s2.Close()
	// Calls on a closed store fail cleanly.
	if _, _, _, err := s.Grid(); err == nil {
		t.Error("Grid on a closed store succeeded")
	}
	if _, err := s.AddOrg(state.Org{ID: "late"}); err == nil {
		t.Error("AddOrg on a closed store succeeded")
	}
}

func TestStore_ReadOnlyRefusesWrites(t *testing.T) {
	path := makeStoreFile(t)
	s := mustOpenStoreOpts(t, path, Options{ReadOnly: true})
	if _, _, _, err := s.Grid(); err != nil {
		t.Fatalf("Grid on a read-only store: %v", err)
	}
	_, err := s.PutLattice(testRuns, "again")
	assertErrText(t, err, path, "read-only")
	_, err = s.AddOrg(state.Org{ID: "other"})
	assertErrText(t, err, path, "read-only")
}

func TestParseHeader(t *testing.T) {
	path := makeStoreFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := pageSizeOf(t, data)
	flip := func(offsets ...int) []byte {
		d := append([]byte(nil), data...)
		for _, o := range offsets {
			d[o] ^= 0x01
		}
		return d
	}
	tests := []struct {
		name string
		data []byte
		size int64 // 0: len(data)
		want error // nil: no problem
	}{
		{"healthy", data, 0, nil},
		{"meta 0 damaged, meta 1 good", flip(pageHeaderSize + 40), 0, nil},
		{"meta 1 damaged, meta 0 good", flip(ps + pageHeaderSize + 40), 0, nil},
		{"both damaged", flip(pageHeaderSize+40, ps+pageHeaderSize+40), 0, state.ErrCorrupt},
		{"both magics gone", flip(pageHeaderSize, ps+pageHeaderSize), 0, ErrForeign},
		{"version changed", nil, 0, state.ErrCorrupt},
		{"short header", data[:pageHeaderSize+10], 0, ErrForeign},
		{"size below pgid", data, int64(3 * ps), state.ErrCorrupt},
		{"empty", nil, -1, ErrForeign},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, size := tt.data, tt.size
			if tt.name == "version changed" {
				d = append([]byte(nil), data...)
				for _, off := range []int{0, ps} {
					m := d[off+pageHeaderSize : off+pageHeaderSize+metaSize]
					binary.NativeEndian.PutUint32(m[4:], 3)
					binary.NativeEndian.PutUint64(m[metaSumOffset:], fnv64a(m[:metaSumOffset]))
				}
			}
			switch size {
			case 0:
				size = int64(len(d))
			case -1:
				size = 0
			}
			p := parseHeader(d, size)
			switch {
			case tt.want == nil && p != nil:
				t.Fatalf("parseHeader = %v %q, want no problem", p.kind, p.what)
			case tt.want != nil && p == nil:
				t.Fatalf("parseHeader found no problem, want %v", tt.want)
			case tt.want != nil && p.kind != tt.want:
				t.Fatalf("parseHeader = %v %q, want %v", p.kind, p.what, tt.want)
			}
		})
	}
}

func fnv64a(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
