// Package report makes place reports (issue 25): for an area the question
// call accepts (a place, a box, a polygon, a ring), the figures a
// planning unit hands on — people, buildings, density, settlement
// classes, facilities, people per facility, coverage at 2, 5 and 10 km —
// beside the same figures of the parent area and the country, a
// breakdown by the next level down, the sources, and one self-contained
// HTML page (inline SVG map, print stylesheet) or a comparison of up to
// 20 areas (HTML and CSV).
//
// Every figure is an engine figure: a typed plan (package plan) computed
// by insight.Compute over the area's frames as the question call reads
// them (package area's frames and weights, access's column cache, the
// reach index for distances), and its Result.Value. Only shares and
// indexes between two areas' figures are divided here.
//
// A Reader reads as one key reads through the API: the datasets its
// organisation may read, nothing else. A per-query dataset is left off
// the report with a note (a report reads whole states and the country,
// which no per-query licence was priced for); the datasets read without
// charge make every figure.
package report
