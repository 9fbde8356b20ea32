package emu

import "fmt"

// Fill names how a run makes a host orchestrator's input tensors: the
// emulator's input side, beside Tensor and Zeros, so a caller that only
// names a fill (a flag, a setting, a request) needs no more of the engine.
type Fill string

// The input fills. Index is the default because a learner can read it:
// element i of every input is i, so a shifted or reduced output says where
// each value came from.
const (
	FillIndex Fill = "index" // element i = i (its flat row-major index), converted to the dtype
	FillRandn Fill = "randn" // standard normals drawn from the run's seed
	FillOnes  Fill = "ones"
	FillZeros Fill = "zeros"
)

// ParseFill validates a --fill value.
func ParseFill(s string) (Fill, error) {
	switch f := Fill(s); f {
	case FillIndex, FillRandn, FillOnes, FillZeros:
		return f, nil
	case "":
		return FillIndex, nil
	}
	return "", fmt.Errorf("unknown fill %q: want index, randn, ones or zeros", s)
}
