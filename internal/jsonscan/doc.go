// Package jsonscan holds the binary's hand-written JSON scanning, in one
// place, and the one description of a JSON value's kind that messages use.
//
//   - KindOf and TokenKind tell a value's Kind (its String is the words
//     messages use: "an object", "a number", "null"); Text shows a value
//     as an error quotes it.
//   - Checker checks a frame's attributes object against the declared
//     attributes, and CheckFeature a GeoJSON feature, as an import stores
//     them.
//   - EachMember walks the top level of a stored object (a frame's
//     attributes, a feature); NameIs, Scalar and IsInteger read what it
//     finds.
//
// It imports nothing of this module, so that every package, grid
// included, may import it.
//
// # Why not gjson or encoding/json
//
// Everything else in the binary uses gjson or encoding/json. These
// scanners run on every record of an import (1.1 million for the national
// grid) and every record a tile or an items page reads, and their
// benchmarks keep them honest: BenchmarkChecker against
// BenchmarkCheckerGJSON (gjson.ValidBytes, then ParseBytes and ForEach:
// two passes and a copy), BenchmarkEachMember against
// BenchmarkEachMemberGJSON. The Checker's errors also say where an object
// breaks, which gjson.ValidBytes does not report.
//
// # Caveats
//
// EachMember trusts what it walks: it counts brackets rather than
// matching them and does not check strings or numbers; it is for stored
// records, which an import checked with Checker or CheckFeature. A Checker
// is not safe for concurrent use; everything else is.
package jsonscan
