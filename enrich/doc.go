// Package enrich enriches a table of sites in one batch (issue 25, part
// 4): for every site of a CSV, GeoJSON or GeoPackage file, the chosen
// measures summed over rings of given radii around it (or over the site
// itself when it is a polygon), and the great-circle distance to the
// nearest feature of a features dataset, one output row per site.
//
// Every figure is the question call's: a ring is area.Ring's polygon,
// resolved on the grid by the area catalogue exactly as
// {"area":{"around":[lon,lat],"radiusKm":r}} is, each frame counting by
// the fraction of its area inside; a summed measure is Σ weight·value over
// the frames that record it, in the order the engine sums them, and a
// mean measure the weighted mean; a polygon site is resolved as
// {"area":{"geometry":...}}. Distances are reach.Index's haversine from
// the site's point (a polygon's representative point, as imports locate
// features).
//
// Memory is flat in the number of sites: the reader streams the input,
// a fixed number of workers compute, and the writer puts rows out in
// input order, holding at most a bounded window of finished rows. What
// grows with the data file, not with the sites, is one float64 per grid
// frame for each measure and one byte per frame for each dataset read.
//
// Readability is the caller's: the engine reads only the datasets it is
// given (a key's or an organisation's readable ones, state.Access), and a
// measure among none of them is refused with the API's code invalid and
// a message naming it, whether it does not exist or is not readable. A
// per-query dataset is read only when the caller allows it and then
// counts, per site and area, the frames it records something on, which
// access.Price turns into the charge.
package enrich
