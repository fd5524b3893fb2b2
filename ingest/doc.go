// Package ingest reads the inputs of a dataset import and turns them into
// per-frame records: one file per input format (csv.go, geojson.go for
// features, zones.go for polygons whose properties are copied onto the
// frames whose centres they contain) and one for manifests (manifest.go),
// which describe a dataset, its declared attributes and its inputs. The
// format decoders of national data live in sub-packages beside them.
//
// Nothing is written here: Gather returns the records and package bolt
// stores them. Bad input is refused with the file, the line or feature, and
// the reason; errors wrap state.ErrInvalid.
//
// Inputs are opened by open.go: a regular file, a named pipe, or standard
// input ("-", Stdin) for CSV, GeoJSON and GeoJSON text sequences; a
// directory, a device, a socket or an unreadable file is refused before
// anything is read (CheckInputs), and so are rasters, shapefiles and
// GeoPackages from a pipe (they seek). A pipe's open, which waits for a
// writer inside the system call, runs aside and is completed and dropped
// when the context ends; reads of pipes and standard input return the
// context's error once it ends, even while no data comes.
//
// Caveats: no record may pass MaxRecordBytes (64 MiB: a CSV line or
// record, a GeoJSON feature, a line of a GeoJSON sequence; limit.go), so
// memory stays bounded whatever the input. The count includes what the
// reader above has read ahead (up to 1 MiB), so a feature just under the
// limit may be refused. On Windows a stalled standard input is abandoned
// rather than interrupted (the process exits around it).
package ingest
