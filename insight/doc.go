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
// were matched, the register and, for each intent, what it needs (order,
// area unit, ratio scale, condition, share base, features dataset).
//
//	frames            empty question, overview wording ("tell me about",
//	                  "describe", "summary"), or only generic words
//	frames_attribute  one measure
//	frames_rank       a measure (or its density, or a ratio) and a ranking
//	                  word ("most", "top 5", "lowest", "densest")
//	frames_compare    two measures or more (the first two are compared)
//	frames_density    a summed measure and density wording ("population
//	                  density", "people per km²", "per hectare", "how
//	                  dense": the population when no measure is named)
//	frames_ratio      two summed measures joined by per/each/every or
//	                  "ratio" ("residents per house", "hospitals per
//	                  100,000 inhabitants"), or one "per capita"/"for each
//	                  person" (the population)
//	frames_threshold  a condition on frames: over, under, at least, at
//	                  most, between, exactly (words or > >= < <=, "10k+",
//	                  "5,000 or more"), a gap ("without a hospital", "no
//	                  clinics", "frames that do not have..."), a category
//	                  value when frames are counted or listed ("how many
//	                  frames are urban", "which frames are in Kano"), or
//	                  "how many frames have clinics"
//	frames_share      share wording (share, percentage, %, proportion,
//	                  fraction) with a condition, a category, or a summed
//	                  measure to divide ("what share of the population
//	                  lives in urban frames", "share of frames by state")
//	frames_nearest    nearest/closest/how far/distance and a dataset of
//	                  features, by its name or one of its measures
//	unsupported       nothing computable: a content word no readable dataset
//	                  records ("GDP"), a measure qualified by one
//	                  ("population growth", "income of residents"), a
//	                  density or ratio of a mean or a category, a threshold
//	                  with no measure, a nearest search of a dataset without
//	                  features
//
// Operators are read before ranking words, so "at least 5,000" is never
// the ranking word "least". A question the parser cannot read in full is
// never answered as exact: a number nothing reads ("population 5000"), a
// year the measure is not of ("population in 2015"), a second condition,
// measures named but not used, a density asked beside a ratio, make the
// answer partial with a detail saying what was left out.
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
//	                  (or the selection's density or ratio)
//	frames_compare    both figures, a ratio when both are sums, and a
//	                  per-frame table ending with a Total (or Selection) row
//	frames_density    the total over the area of the frames that record
//	                  it (Frame.AreaKm2, km² or hectares), the area, the
//	                  total, highest and lowest frames; a per-frame table
//	frames_ratio      total X per (scale) total Y, each total over the
//	                  frames that record it; each frame's own ratio where
//	                  it records both; a table ending with Total
//	frames_threshold  k of n frames, the share of frames, the figure of
//	                  that subset (of another measure when the question
//	                  names one: "buildings in frames with over 5,000
//	                  people") and its share of the total; the frames in
//	                  a table, highest first (the top N when asked)
//	frames_share      a percentage of the frames or of a total meeting the
//	                  condition; without one, a breakdown by category value
//	                  (frames, and the total's share) or by frame
//	frames_nearest    from Request.Nearest (the handler's search): the
//	                  nearest feature's name, great-circle distance, frames,
//	                  position and properties (hidden without feature.read)
//	unsupported       a headline saying what can be asked, and follow-ups
//
// Every figure over a measure missing on some frames says how many frames
// it covers: in its facet value ("3 facilities (2 of 3 frames)") or its
// facet and the detail. A gap counts a frame without a record as none;
// every other condition leaves such frames out and says so.
//
// Facet values are display strings (FormatNumber: thousands separators,
// integers without decimals, other values with up to two decimals, never
// "1.2 million"; units; "%"). The headline is one sentence holding the
// key figures with the year of the estimate. Every follow-up question is
// parsed before it is offered and kept only when it parses to the intended
// supported intent and measures.
//
// Retrieval is "lexical" when a measure was matched from wording
// (synonyms, stems, spellings) and "none" otherwise; "hybrid" when the
// request carried Embeddings (see hybrid.go: a concept's attributes are
// told apart by meaning, and words no dataset records may name a measure
// by meaning, cosine at least 0.6 and 0.04 ahead of the next). Used lists
// the datasets whose values went into any figure, facet or table cell: a
// profile counts every dataset that records something in the selection
// (its table row shows it), a measure only its own dataset, a nearest
// answer the features dataset when it reports a feature.
//
// The engine never searches: the handler asks PlanOf whether a nearest
// search is wanted, has package access read rings of frames around the
// selection and passes what it found in Request.Nearest. Category values
// ("Kano", "peri-urban") are learnt from the known frames (PlanOf and
// Answer; Parse, without frames, cannot know them).
//
// # Figures
//
// Insight.Figures (not part of the JSON answer) lists every number the
// facets and the table show, and the frame ids, each with what it is: the
// text as shown, its unit in words ("people", "km²", "people per km²",
// "people per building", "% of frames", "states"), its subject (the
// selection, SubjectFrame "frame 433102007", SubjectValue "value Kano",
// the subset a condition selects, a whole dataset), its label and a kind
// (a measure, a count of frames, some of the frames, how many names a
// facet holds, a condition, a ratio's scale, a rank, an id, a coordinate).
// The wording check (package narrate, through the handler) compares a
// model's claims with them; the headline and detail are sentences it reads
// itself. Every number a facet value or table cell shows, but a digit
// inside a name, has a figure (TestAnswer_FiguresCover).
//
// # Cost and concurrency
//
// Parse and Answer keep no state between calls and are safe for
// concurrent use. Answering about 50 frames over six datasets takes
// 0.1-0.2 ms and 70-150 KB of allocations (BenchmarkAnswer50,
// BenchmarkAnswerQuestions50); the work is linear in frames x datasets
// plus a few parses of follow-up questions.
//
// # Caveats
//
// The parser is lexical: it does not understand negation beyond gaps and
// "not"/"non" before a category value, grouping ("which state has the most
// people" ranks frames by population), more than one condition at a time
// (the first is applied, the others named in the detail), or a search
// radius ("within 5 km" is noted, the search goes to 50 km). A place name
// is a condition only when frames are counted, listed or shared. Words it
// does not know make a question without measures "unsupported" (unless it
// asks for an overview: then the detail notes them); beside a measure
// they are ignored unless they qualify it ("population growth").
package insight
