// Package narrate checks wording written about a computed answer before it
// is shown (contract §5): no figure reaches a reader unless the server
// computed it, and none is said of what it is not. One failure discards
// the whole wording and the deterministic headline stands alone.
//
// The wording is read claim by claim (ReadClaims): each number with the
// noun or unit it counts ("4 LGAs", "10,679 km²", "567 people per km²",
// "45% of the population", "a population of", GIS words such as cells,
// polygons and zonal sums), the hedge before or after it (over, at least,
// almost, under, "or more", "10k+"), and what its clause says it is of:
// frames named in it ("frame 433102007", "(frame 1)", a "## Frame 1"
// heading above a list), places and category values ("Kano", "rural"), or
// the whole selection ("in all", "across the selection"). Verify accepts a
// claim only when one figure agrees on the number (or that number rounded
// to the precision shown), the unit and the subject, and the hedge points
// the right way; counts of states, LGAs and wards must equal the names the
// answer holds; ordinals may not exceed the frames or rows; place names
// must be among the figures; a report must have its "## " section titles
// and "- " items. The Verdict names the kind of failure (a Fail constant)
// and the number or place as written, for the log, never the question.
//
// Figures are built from the engine's typed figures (NewFigure and Add:
// insight.Figure's text, unit, subject, label and kind), the sentences of
// the answer (AddSentences: the headline, detail and labels, read as a
// wording is) and the texts it shows (AddShown: a digit of a name,
// "Ward 6"). FiguresFrom reads texts alone, as before figures were typed:
// their units and subjects are what the texts say ("21,500 people (frame
// 1)"), and a number shown bare (a table cell) is checked on its number
// only.
//
// Client words answers (Word, /api/chat), telling the model what each
// number is (Prompt.Figures), and embeds texts (Embed, /api/embed) for
// the hybrid retrieval of measures; the embedding model is configured apart
// from the wording model.
//
// The package imports nothing of ours and holds no state; everything is
// safe for concurrent use.
//
//	f := narrate.FiguresFrom(texts, places, knownPlaces)
//	if v := narrate.Verify(wording, f, report); !v.OK {
//		log.Printf("wording discarded (%s): %s", v.Kind, v.Reason)
//	}
//
// Verifying a 2,000-character report against 200 figures and a gazetteer
// of 9,600 names takes about 0.5 ms (BenchmarkVerifyClaims).
//
// # Caveats
//
// The check is deliberately strict; wording that states a true number not
// among the figures (a sum, a difference, "1 km", a figure converted to
// another unit) is discarded, which costs only the wording. The reading is
// lexical, so some claims it cannot pin down pass on their number alone:
//   - a number with no unit it recognises ("3 of them", an unknown noun) is
//     checked as a number only, and so is a figure whose unit is unknown;
//   - a number its clause says nothing of (no frame, place or value named,
//     no "in all") may state any frame's figure of that unit: "the busiest
//     frame has 25,741 people" passes, and so does "more than 5 people
//     share each building" when one frame has 5.02;
//   - quantifiers are not read: "all 4 frames have at least 20,000 people"
//     passes on the count of 4 frames even when 3 do; "3 of the 4 frames"
//     is checked (the 3 must be a count of some of the frames);
//   - a place the answer holds but does not break figures down by is
//     lenient: "Jigawa holds 4,041 people" passes for a selection of
//     Jigawa and Kano whose total is 4,041;
//   - fractions ("half", "two-thirds") and vague plurals ("thousands of")
//     are not read as figures; "12m" and "1.2m" read as millions, never
//     metres; digits glued to a letter ("A1", "H3") are identifiers;
//   - a place name is matched only where the wording capitalises it, and a
//     known name that is also an ordinary capitalised word (a ward called
//     "Central" at the start of a sentence) fails the wording unless the
//     figures hold it.
package narrate
