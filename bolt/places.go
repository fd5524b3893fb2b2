package bolt

import (
	"bytes"
	"encoding/binary"
	"slices"

	"frameindex/state"

	"github.com/tidwall/gjson"
	bbolt "go.etcd.io/bbolt"
)

// CategoryValues returns, sorted and each once, the string values that any
// dataset records for a category or text attribute named one of names,
// across all frames: for example every state, LGA and ward name the file
// knows, which the wording check uses to spot a place name the model made
// up. It reads every frame record of those datasets in one read
// transaction (about a second for a national dataset), so callers run it in
// the background.
func (s *Store) CategoryValues(names []string) ([]string, error) {
	seen := map[string]struct{}{}
	err := s.view(func(tx *bbolt.Tx) error {
		datasets, versions := tx.Bucket(bucketDatasets), tx.Bucket(bucketVersions)
		if datasets == nil || versions == nil {
			return nil
		}
		all, err := s.allDatasets(tx)
		if err != nil {
			return err
		}
		for _, d := range all {
			var attrs []string
			for _, a := range d.Attributes {
				if (a.Type == state.TypeCategory || a.Type == state.TypeText) && slices.Contains(names, a.Name) {
					attrs = append(attrs, a.Name)
				}
			}
			if len(attrs) == 0 {
				continue
			}
			vb := versions.Bucket(versionBucketName(d.ID, d.Version))
			if vb == nil || vb.Bucket(bucketVFrames) == nil {
				return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: the records of dataset %q, version %d, are missing", s.path, d.ID, d.Version)
			}
			err := vb.Bucket(bucketVFrames).ForEach(func(_, v []byte) error {
				_, n := binary.Uvarint(v)
				if n <= 0 {
					return state.Errorf(state.ErrCorrupt, "data file %q is corrupt: a frame record of dataset %q", s.path, d.ID)
				}
				obj := v[n:]
				if len(bytes.TrimSpace(obj)) == 0 {
					return nil
				}
				for _, name := range attrs {
					if r := gjson.GetBytes(obj, gjsonPath(name)); r.Type == gjson.String && r.Str != "" {
						if _, ok := seen[r.Str]; !ok {
							seen[string([]byte(r.Str))] = struct{}{} // copied out of the mmap
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

// gjsonPath escapes the characters gjson gives meaning to in a key
// (attribute names are [A-Za-z0-9_], so this is a guard).
func gjsonPath(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
