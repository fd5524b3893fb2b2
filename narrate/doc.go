// Package narrate checks wording written about a computed answer before it
// is shown (contract §5): every number in the wording must be one of the
// answer's figures, or that figure rounded to the precision the wording
// shows; every state, LGA or ward name in it must be one the figures hold;
// a report must have its "## " section titles and "- " items. One failure
// discards the whole wording and the deterministic headline stands alone.
//
// A number written with a unit of length or area ("2.6 km²", "3
// hectares", "4 km") must also match a figure shown in that unit, or one
// shown without a unit (UnitAfter, Figures.Units): areas and distances are
// not swapped. PlacesIn finds the known places an answer names itself.
//
// Client also embeds texts (Embed, /api/embed) for the hybrid retrieval of
// measures; the embedding model is configured apart from the wording model.
//
// The package imports nothing of ours and holds no state: Numbers reads the
// figures in any text, FiguresFrom collects what an answer may state, and
// Verify gives the verdict with a reason fit for the log (the failing
// number or place, never the question).
//
//	f := narrate.FiguresFrom(texts, places, knownPlaces)
//	if v := narrate.Verify(wording, f, report); !v.OK {
//		log.Printf("wording discarded: %s", v.Reason)
//	}
//
// # Caveats
//
// The check is deliberately strict; wording that states a true number not
// among the figures (a sum, a difference, "1 km") is discarded, which costs
// only the wording. Known gaps, each documented on Numbers and Verify:
//   - fractions ("half", "two-thirds"), ordinals ("3rd", "third") and vague
//     plurals ("thousands of") are not read as figures, so they are
//     neither checked nor refused;
//   - "12m" and "1.2m" read as millions, never metres;
//   - hedge words are recorded (Number.Approx) but not checked for
//     direction: "over 12,000" passes for 11,800 as "about 12,000" would;
//   - digits glued to a letter ("A1", "H3") are identifiers, not figures;
//   - a place name is matched only where the wording capitalises it, and a
//     known name that is also an ordinary capitalised word (a ward called
//     "Central" at the start of a sentence) fails the wording unless the
//     figures hold it.
package narrate
