package compare

import (
	"fmt"
	"testing"
)

// TestPairOutputs pairs outputs by name; position only pairs the outputs
// left without a namesake, and only when both sides have as many of them.
func TestPairOutputs(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want string
	}{
		{[]string{"y", "tally"}, []string{"tally"}, "[[y ] [tally tally]]"},       // step 4: y is only in A
		{[]string{"tally", "y"}, []string{"y", "tally"}, "[[tally tally] [y y]]"}, // order does not matter
		{[]string{"y"}, []string{"out"}, "[[y out]]"},                             // a renamed output
		{[]string{"y", "a"}, []string{"y", "b", "c"}, "[[y y] [a ] [ b] [ c]]"},   // no guessing
	} {
		if got := fmt.Sprint(pairOutputs(tc.a, tc.b)); got != tc.want {
			t.Errorf("pairOutputs(%v, %v) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
