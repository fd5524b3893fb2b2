// Package insight answers a question's plan with figures it computes
// from stored values: the deterministic engine of POST /v1/frames/insight
// (contract §4). Package plan reads the question into a plan.Plan (the
// intent, measures and how they were matched, conditions); this package
// never reads question text. It is pure functions over plain inputs: no
// HTTP, no bbolt, no model. The handler reads the frames and the readable
// datasets into an Input (package access: SelectionInput, FrameSetInput),
// calls Compute, charges the per-query datasets listed in Insight.Used,
// and adds engine, model, narrative, notice, charged and leftOut.
//
// # Answers
//
// Compute answers over the Input's columns: one per readable attribute,
// numbers or dictionary-coded categories, with each frame's area (the
// AreaBasis says how it was measured) and, for a distance question, what
// the handler's searches found: Input.Near, each frame's distance to the
// nearest feature, and Input.Nearest, the features nearest the frames
// that a plan listing them shows (plan.Distance.List). Numbers follow each
// attribute's aggregation: sum (a total) or mean (over the frames that
// record a value); categories take the mode with its share. Ids the grid
// does not hold (Input.Missing) are counted in the headline. A plan with
// unread words is never answered as exact. Retrieval is "hybrid" when the
// plan read a measure by meaning (plan.ParseWith), "lexical" when from
// wording, "none" otherwise. Used lists the datasets whose values went
// into any figure, facet or table cell: the datasets a per-query licence
// charges. MeasureText is the text the handler embeds for an attribute.
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
// inside a name, has a figure.
//
// # Concurrency
//
// Compute keeps no state between calls, keeps nothing of its inputs and is
// safe for concurrent use.
package insight
