// Package area resolves the area a question is about into frames of the
// grid, each with the fraction of it that counts.
//
// An area is one of (Spec, decoded strictly by Decode):
//   - a place: the frames a readable boundary dataset (zones imported with
//     `frameindex import --zones`, or the demo's approximate admin)
//     assigns to a state, an LGA, a ward, or a value of another category
//     attribute; the country's name or "national" is the whole grid;
//   - a box, a GeoJSON Polygon or MultiPolygon (holes honoured), or a
//     ring (the points within r km great-circle distance of a point);
//   - the place the question names (Catalogue.InText).
//
// Places are whole frames, as their dataset assigns them. Drawn areas
// count each frame by the fraction of its area inside, computed by
// clipping on the grid's own geometry (see clip.go), never by the centre
// alone (except on an imported grid whose frame and area are both not
// convex, where the centre decides).
//
// Names are matched by Key: case, accents, punctuation, spaces, doubled
// letters and a kind word ("LGA", "State", "Local Government Area") do
// not matter; other names of a few places (FCT, Abuja, AMAC) are known;
// a name of 6 letters or more may be misspelt by one letter. A name two
// places answer to is refused with the candidates, never guessed.
//
// Places are found by one scan of their dataset per dataset version,
// kept in a small cache (Places); only datasets read without charge are
// scanned. Areas hold positions in the grid (index.Index.Pos), so a
// national area shares one slice of the grid's positions rather than
// copying ids.
package area
