package check

import (
	"fmt"
	"math"
	"slices"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
)

// RankCheck is one leading-dimension row of an output (one rank's slice of
// a per-rank tensor) compared with its golden.
type RankCheck struct {
	Rank int  `json:"rank"`
	Pass bool `json:"pass"`
	// MaxAbsDiff is the largest |got - want| in the row; NaN or an
	// infinity (a NaN output, an overflow) is written as null in JSON.
	MaxAbsDiff floats.Float `json:"max_abs_diff"`
	// FirstBad is the flat index within the row of the first element
	// outside the tolerance, -1 when the row passes.
	FirstBad int `json:"first_bad"`
}

// OutputCheck is one output's per-rank check.
type OutputCheck struct {
	Pass  bool        `json:"pass"`
	Ranks []RankCheck `json:"ranks"`
	// Reason says why the output as a whole cannot be compared row by row
	// (missing, reshaped); empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Want is the golden's tensor, laid out as the output's data, so the
	// page can show the expected value beside each one; absent when the
	// shapes differ.
	Want floats.Floats `json:"want,omitempty"`
}

// RankChecks compares each output of one run of kernel's entry (as written
// in its header, "{P}" unexpanded) at p ranks with the golden, row by row
// along the leading dimension (rank by rank for the per-rank tensors every
// step uses), with the tolerance of Run: exact for copies and integers,
// |got - want| <= 1e-5 + 1e-5*|want| otherwise. It checks the outputs the
// golden names; ok is false when the entry has no golden. A golden that
// cannot be computed from in (a learner's program whose inputs do not have
// the step's names or shapes) fails every output of out with a reason.
func RankChecks(kernel, entry string, p int, in, out map[string]*emu.Tensor) (checks map[string]OutputCheck, ok bool) {
	g, ok := GoldenOf(kernel, entry)
	if !ok {
		return nil, false
	}
	want, err := safeWant(g, p, in)
	if err != nil {
		checks = make(map[string]OutputCheck, len(out))
		for name := range out {
			checks[name] = OutputCheck{Reason: err.Error(), Ranks: []RankCheck{}}
		}
		return checks, true
	}
	checks = make(map[string]OutputCheck, len(want))
	for name, w := range want {
		checks[name] = rankCheck(name, out[name], w, g.Exact)
	}
	return checks, true
}

// safeWant calls the golden, turning a panic (an input missing or shaped
// differently from the step's) into an error.
func safeWant(g Golden, p int, in map[string]*emu.Tensor) (want map[string]*emu.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the golden cannot be computed from this program's inputs (%v): keep the step's host signature", r)
		}
	}()
	return g.Want(p, in), nil
}

func rankCheck(name string, got, want *emu.Tensor, exact bool) OutputCheck {
	oc := OutputCheck{Ranks: []RankCheck{}}
	switch {
	case got == nil:
		oc.Reason = fmt.Sprintf("the program has no output %s", name)
		return oc
	case !slices.Equal(got.Shape, want.Shape) || len(got.Floats()) != len(want.Floats()):
		oc.Reason = fmt.Sprintf("%s: got shape %v, want %v", name, got.Shape, want.Shape)
		return oc
	}
	exact = exact || got.DType.IsInt()
	oc.Want = floats.Floats(want.Floats())
	rows, width := 1, len(want.Floats())
	if len(want.Shape) > 0 && want.Shape[0] > 0 {
		rows, width = want.Shape[0], len(want.Floats())/want.Shape[0]
	}
	oc.Pass = true
	for r := 0; r < rows; r++ {
		rc := RankCheck{Rank: r, Pass: true, FirstBad: -1}
		for i := 0; i < width; i++ {
			g, w := got.Floats()[r*width+i], want.Floats()[r*width+i]
			d := math.Abs(g - w)
			if math.IsNaN(d) || floats.Float(d) > rc.MaxAbsDiff {
				rc.MaxAbsDiff = floats.Float(d) // NaN sticks: NaN > x is false
			}
			good := g == w
			if !exact {
				good = floats.Close(g, w)
			}
			if !good && rc.Pass {
				rc.Pass, rc.FirstBad = false, i
			}
		}
		oc.Pass = oc.Pass && rc.Pass
		oc.Ranks = append(oc.Ranks, rc)
	}
	return oc
}
