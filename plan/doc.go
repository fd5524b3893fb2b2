// Package plan reads a plain-language question into a typed Plan: what
// the engine (package insight) must compute, and which words of the
// question each part of the plan was read from. The parser and the
// engine meet only here: the engine computes from a Plan alone. The
// package imports nothing of ours.
//
// # Reading
//
// Parse(question, cat) reads against a Catalogue: the readable measures
// (dataset, attribute, label, aliases, unit, type, aggregation, year, the
// category values known), the datasets that hold features, and a place
// lookup the caller supplies. It never fails. In order it finds:
//
//   - mentions: a measure by its name (underscores read as spaces), label
//     or an alias; a category value ("urban", "peri-urban"); a features
//     dataset by its id, name or alias; everyday wording (people, houses,
//     clinics, lights... reaching whichever measure carries the concept,
//     see Concept), stems ("brightest") and misspellings (same first
//     letter, edit distance 1 for 5 to 7 letters, 2 from 8);
//   - places: where the lookup knows the words ("Dala", "Lagos Island"),
//     or a value of the state, LGA or ward categories; a kind word after
//     the name ("Dala LGA") is read with it;
//   - comparisons with a number: over, under, at least, between N and M,
//     from N to M, N-M, > >= < <= = !=, "10k+", "5,000 or more"; with km
//     and a features dataset they are a reach ("within 5 km of a clinic",
//     "more than 5 km from a health facility"), else a filter on the
//     numeric measure beside them;
//   - negations: "without a clinic", "no health facility", "do not have",
//     "zero", "nobody" (a count = 0), "not urban", "non-urban" (!=);
//     presence: "frames with a clinic" (a count >= 1, a mean > 0);
//     category values as filters; "or" between filters;
//   - groups: "by state", "for each LGA", "per ward", "ward by ward",
//     "which state has the most...";
//   - densities (density, per km², per square kilometre, per hectare),
//     ratios (X per Y, per 10,000 Y, ratio of X to Y, per capita);
//   - aggregation words (average, median, total, how many, share, top K,
//     highest, lowest, compare, nearest, farthest, overview...), the
//     register (GIS vocabulary) and the format (report).
//
// decide then settles Agg from what was found, in this order: share,
// reach (coverage), nearest or farthest, feature count, ratio, density,
// compare, a ranking or extreme, median, mean, count, total. Over frames
// an extreme is AggRank when several are asked for (a K, "top", plural
// frames before the extreme word; K is 3 unless said) and AggMax or
// AggMin otherwise; over groups it is the groups' figure with an Order
// ("which LGA has the fewest clinics": total by LGA, ascending, K 1). A
// ranking of a density has Per set; of a ratio, two measures.
//
// # Every word accounted for
//
// Each word gets one role (Word.Role): the part of the plan that read
// it, "function" for a word in the function list (articles, pronouns,
// auxiliaries, the generic verbs of asking, the nouns for frames), or
// "unread". Every unread word that is not a function word is
// meaning-bearing: a word the grammar does not know counts as meaning
// until the grammar learns it. Confidence is the one check every answer
// passes through: unknown for AggUnsupported; partial when a
// meaning-bearing word is unread, a measure (or the features dataset)
// was read from other wording than its name, label, alias or value, or
// a note says something was read loosely (a year the measure is not of,
// a misspelt grammar word corrected, a distance without a comparison);
// else exact. Detail says why in words, Describe says the plan ("read
// as: mean per frame of population_2020 over 49 frames"). The engine
// may lower the confidence (a place outside the selection), never raise
// it.
//
// A measure qualified by a word no dataset records ("population
// growth", "literacy rate") is dropped; a reach or a nearest search of
// something no features dataset holds ("within 5 km of a market") makes
// the question unsupported.
//
// # Follow-ups
//
// FollowUps proposes next questions from a plan (another aggregation, a
// ranking, a breakdown, the other end of a distance); each is parsed
// back and offered only when it reads exactly to what was intended.
//
// # Cost and concurrency
//
// A Catalogue builds its word index once, on first use; Parse is then
// safe for concurrent use and keeps nothing. A question takes about
// 0.03 ms of CPU, 3.6 KB in 43 allocations (BenchmarkParse, twenty
// questions of every kind; a median of 66 µs of wall time on a shared,
// loaded two-core machine); national category values (every state, LGA
// and ward as a value) about double it.
//
// # Caveats
//
//   - The grammar is lexical: it reads the phrasings above, in any order,
//     and lists the rest as unread rather than guess. Questions joining a
//     share to a ratio, or a group to a reach, read the parts it knows.
//   - Filters join with one connective: "and" unless an "or" stands
//     between two of them; brackets and mixed and/or are not read.
//   - Only the first reach condition is read; only one group.
//   - A comparison binds to the numeric measure right after it, else the
//     one right before it, else one within three words after; a number
//     with no measure beside it is unread.
//   - Place names are read only through the caller's lookup or the
//     administrative category values; whether a place is in the frames
//     asked about is the engine's to say.
//   - Without vectors (Parse, or ParseWith with nil) a word no catalogue
//     term reaches stays unread; with them (EmbedTexts, ParseWith, see
//     hybrid.go) it may name a measure by meaning, partially.
package plan
