// Package demo builds the national demo datasets of `frameindex demo`: six
// SYNTHETIC datasets over the stored 30-arc-second lattice of Nigeria, and
// the two organisations that own and license them.
//
// Everything is generated in Go from fixed seeds and a few hundred public
// facts embedded here (the positions of the 36 state capitals, Abuja and
// about 270 other real towns, with rough 2020 populations); nothing is
// downloaded or read from disk. Two builds over the same grid store the same
// bytes.
//
// # Organisations
//
//	demo      "Demo agency", plan pro, 50 credits (granted once); owns the
//	          five open datasets and licenses nightlights per query
//	geodata   "GeoData Marketplace Ltd", plan scale; owns nightlights
//	          (price 1 credit per contributing request)
//
// # Datasets
//
//	admin        state, lga, ward (category, mode) on every frame
//	population   population_2020 (number, sum, people) on every frame
//	buildings    building_count (number, sum) on inhabited frames, and
//	             3,600 building footprints (Polygon features) on 10 x 10
//	             frames of central Abuja
//	settlement   settlement_class (urban, peri-urban, rural, uninhabited)
//	health       facility_count and one Point feature per facility
//	             (about 8,200 nationally, one per 25,000 people)
//	nightlights  radiance (number, mean, nW/cm²/sr, 2022) on lit frames
//
// # The model
//
// Population is a rural background plus the towns. The background density
// (people per km²) is a sum of broad Gaussian regions sketching where the
// countryside is densely settled (the Kano close-settled zone, the
// south-east, the south-west, Benue...), times smooth value noise at 0.5° and
// 0.1°, times a per-frame factor of 0.5 to 1.5; lakes and national parks,
// and patches where the finest noise is lowest, are empty. Each town adds
// its population as two exponential kernels (a core holding three quarters,
// with a central density of 8,000 people per km² for a town of 100,000 and
// about 36,000 for Lagos, and a halo three times as wide), scaled so that
// what falls on the grid's frames sums to the town's population. A single
// constant calibrates the background so that the national grid totals about
// 206 million.
//
// Administrative identity is an approximation: a frame's local government
// area is the nearest embedded town (named after it), and its state that
// town's state; on the national grid about 85% of frames get the right
// state against real boundaries (assigning the nearest state capital
// instead gets about 68%). Wards split each area around jittered seeds
// about 14 km apart, 3.7 km in urban frames, numbered within the area.
// `frameindex import` of real boundary polygons as zones replaces it.
//
// Buildings, settlement class, health facilities and night-time lights are
// derived from population per frame, as each dataset's Description says.
//
// # Cost
//
// On the national grid (1.08 million frames) Build takes about 4 seconds on
// two cores and peaks at a few hundred megabytes; the data file with the
// grid and all six datasets is about 250 MiB.
//
// # Concurrency
//
// Build writes through the store's exported methods, each one transaction;
// ImportDataset stages large datasets in bounded transactions, so other
// writers (a running server's charges, admin commands) proceed between
// them. Running two Builds on one store at once is safe but pointless.
package demo
