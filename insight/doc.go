// Package insight answers plain-language questions about frames with
// figures it computes from stored values: the deterministic engine of
// POST /v1/frames/insight (contract §4). It is pure functions over plain
// inputs and imports nothing of ours: no HTTP, no bbolt, no model. The
// handler reads the frames and the readable datasets, calls Answer, charges
// the per-query datasets listed in Insight.Used, and adds engine, model,
// narrative, notice, charged and leftOut.
//
// # Parsing
//
// Parse reads a question (any text; at most the first 400 words) into a
// Plan: one of the contract's intents, the measures it names and how they
// were matched, the register and, for a ranking, the order.
//
//	frames            empty question, overview wording ("tell me about",
//	                  "describe", "summary"), or only generic words
//	frames_attribute  one measure
//	frames_rank       a measure and a ranking word ("most", "top 5",
//	                  "lowest", "darkest"); the first numeric measure named
//	frames_compare    two measures or more (the first two are compared)
//	unsupported       nothing computable: a content word no readable dataset
//	                  records ("GDP"), or a measure qualified by one
//	                  ("population density", "income of residents")
//
// Measures are matched against the readable datasets' attributes, never
// against dataset ids. A measure is "exact" when the question names it by
// its name (underscores read as spaces), label or a declared alias, as
// whole words, case-insensitive, singular and plural alike. It is
// "partial" when it is read from other wording: a built-in synonym table
// (people, folks -> population; houses, homes -> buildings; clinics,
// medical -> health facilities; lights, brightness -> radiance; urban,
// rural -> settlement class; province -> state; county -> local
// government area), stems ("populated", "brightest", "urbanised"), the
// name of a single-attribute dataset, or a misspelling of a word of five
// letters or more (optimal-string-alignment distance 1 for 5 to 7 letters,
// 2 from 8, same first letter: "popluation", "buidlings", "hospitls").
// Synonyms reach whichever readable attribute carries the concept, found
// from its name, label or aliases ("Residents counted" carries
// population). Named measures win over wording where they overlap, longer
// phrases over shorter ones. The register is "gis" when the question uses
// GIS vocabulary (raster, polygon, zonal, attribute, CRS, grid cell...),
// else "plain"; Request.Register, when given, wins in Answer.
//
// # Answers
//
// Figures cover the Known frames (duplicates once); unknown ids are
// counted in the headline ("; 1 of the 4 ids was not found") and named in
// the detail; with no known frame the answer has no figures and confidence
// "unknown". Numbers follow each attribute's aggregation: sum (a total) or
// mean (over the frames that record a value); categories and text take the
// mode, shown with its share of the frames that record one ("urban
// (67%)"). A number stored as text is read; NaN, infinities and text that
// is not a number are left out, as is a frame with no record: the detail
// says when a measure covers only some frames.
//
//	frames            facets Areas selected, State, Local government area,
//	                  Ward, Buildings, Estimated population (YEAR),
//	                  Settlement class (each found by concept, omitted
//	                  when no readable dataset carries it); the table
//	                  Dataset / In selection / In dataset over every
//	                  readable dataset (features for datasets that hold
//	                  features, frames with a record for the others)
//	frames_attribute  the total or mean, highest and lowest frames, frames
//	                  with a record; a Frame / label table
//	frames_rank       the top (or bottom) 3 frames, or N when asked, with
//	                  competition ranks for ties; highest, lowest, total
//	frames_compare    both figures, a ratio when both are sums, and a
//	                  per-frame table ending with a Total (or Selection) row
//	unsupported       a headline saying what can be asked, and follow-ups
//
// Facet values are display strings (FormatNumber: thousands separators,
// integers without decimals, other values with up to two decimals, never
// "1.2 million"; units; "%"). The headline is one sentence holding the
// key figures with the year of the estimate. Every follow-up question is
// parsed before it is offered and kept only when it parses to the intended
// supported intent and measures.
//
// Retrieval is "lexical" when a measure was matched from wording
// (confidence "partial") and "none" otherwise. Used lists the datasets
// whose values went into any figure, facet or table cell: a profile
// counts every dataset that records something in the selection (its table
// row shows it), a measure only its own dataset.
//
// # Cost and concurrency
//
// Parse and Answer keep no state between calls and are safe for
// concurrent use. Answering about 50 frames over six datasets takes about
// 0.1 ms and 60-80 KB of allocations (BenchmarkAnswer50); the work is
// linear in frames x datasets plus a few parses of follow-up questions.
//
// # Caveats
//
// The parser is lexical: it does not understand negation ("not urban"),
// grouping ("which state has the most people" ranks frames by population),
// or place names (a value such as "Kano" is not a filter). Words it does
// not know make a question without measures "unsupported" (unless it asks
// for an overview: then the detail notes them); beside a measure they are
// ignored unless they qualify it ("population density").
package insight
