// Package ingest reads the inputs of a dataset import and turns them into
// per-frame records: one file per input format (csv.go, geojson.go for
// features, zones.go for polygons whose properties are copied onto the
// frames whose centres they contain) and one for manifests (manifest.go),
// which describe a dataset, its declared attributes and its inputs. The
// format decoders of national data live in sub-packages beside them.
//
// Nothing is written here: Gather returns the records and package bolt
// stores them. Bad input is refused with the file, the line or feature, and
// the reason; errors wrap bolt.ErrInvalid.
package ingest
