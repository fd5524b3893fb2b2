package narrate_test

import (
	"fmt"

	"frameindex/narrate"
)

// Verify keeps wording whose numbers are the figures or their roundings,
// and names the first number or place that is not.
func ExampleVerify() {
	f := narrate.FiguresFrom([]string{
		"The 2 selected frames have an estimated population of 39,710 (2020).",
		"Most common settlement class", "urban (67%)",
	}, []string{"Kano"}, []string{"Kano", "Kaduna"})

	for _, w := range []string{
		"Kano's two frames hold about 40,000 people (2020); 67% are urban.",
		"The frames hold 39,170 people.",
		"About 67 frames are urban.",
		"Kaduna holds 39,710 people.",
	} {
		fmt.Printf("%+v\n", narrate.Verify(w, f, false))
	}
	// Output:
	// {OK:true Reason: Kind:}
	// {OK:false Reason:number "39,170" matches no figure Kind:wrong number}
	// {OK:false Reason:number "67" matches no figure Kind:wrong number}
	// {OK:false Reason:place "Kaduna" is not in the figures Kind:place}
}

// Numbers reads each figure with the place it is shown to.
func ExampleNumbers() {
	for _, n := range narrate.Numbers("About 1.2 million people, 45% urban, twelve thousand buildings, the 3rd frame.") {
		fmt.Printf("%q value=%v decimals=%d percent=%v approx=%v\n", n.Text, n.Value, n.Decimals, n.Percent, n.Approx)
	}
	// Output:
	// "1.2 million" value=1.2e+06 decimals=-5 percent=false approx=true
	// "45%" value=45 decimals=0 percent=true approx=false
	// "twelve thousand" value=12000 decimals=-3 percent=false approx=false
}
