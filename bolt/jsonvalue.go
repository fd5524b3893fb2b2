package bolt

import (
	"frameindex/internal/jsonscan"
	"frameindex/state"
)

// attrChecker returns the checker of frames' attributes objects against
// the declared attributes attrs (checked by checkDataset: names distinct).
func attrChecker(attrs []state.Attribute) *jsonscan.Checker {
	ms := make([]jsonscan.Member, len(attrs))
	for i, a := range attrs {
		ms[i] = jsonscan.Member{Name: a.Name, Number: a.Type == state.TypeNumber, Type: a.Type}
	}
	return jsonscan.NewChecker(ms)
}
