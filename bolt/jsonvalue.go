package bolt

import "frameindex/internal/jsonscan"

// attrChecker returns the checker of frames' attributes objects against
// the declared attributes attrs (checked by checkDataset: names distinct).
func attrChecker(attrs []Attribute) *jsonscan.Checker {
	ms := make([]jsonscan.Member, len(attrs))
	for i, a := range attrs {
		ms[i] = jsonscan.Member{Name: a.Name, Number: a.Type == TypeNumber, Type: a.Type}
	}
	return jsonscan.NewChecker(ms)
}
