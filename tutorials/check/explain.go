package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
)

// Wrong data on random inputs ("got 1.17, want 1.48") cannot be matched to
// a lesson's pitfall table, which quotes the index fill. So a wrong-data
// verdict is re-run on the index fill under the same schedule, and each
// wrong rank's row is named by the pattern it matches: every rank's
// contribution present but one missing ("rank 2's contribution missing",
// "its own contribution missing"), one counted twice, the whole row
// doubled, all zeros, or unchanged from the rank's own input. The
// contributions are found by asking the golden what the answer would be
// with one rank's inputs zeroed, so the patterns work for every golden.

// explainWrongData returns "on the index fill: ..." for a wrong-data run,
// or "" when the index fill shows nothing (or passes).
func explainWrongData(ctx context.Context, b limits.Budget, prog *engine.Program, p int, sched string, g Golden) (why string) {
	// An explanation is a courtesy: a learner's odd shapes must never turn
	// a wrong-data verdict into a crash.
	defer func() {
		if recover() != nil {
			why = ""
		}
	}()
	res := prog.Run(ctx, engine.RunOptions{
		Options: engine.Options{Budget: b},
		Fill:    emu.FillIndex, Schedule: sched,
	})
	if res.Status != emu.StatusOK {
		return ""
	}
	want, err := safeWant(g, p, res.In)
	if err != nil || compareOutputs(res, want, g.Exact) == nil {
		return ""
	}
	without := make([]map[string]*emu.Tensor, p) // the golden with rank k's inputs zeroed
	for k := 0; k < p; k++ {
		in := map[string]*emu.Tensor{}
		for name, t := range res.In {
			c := emu.NewTensor(t.DType, t.Shape, slices.Clone(t.Floats()))
			if len(t.Shape) > 0 && t.Shape[0] == p {
				per := len(c.Floats()) / p
				clear(c.Floats()[k*per : (k+1)*per])
			}
			in[name] = c
		}
		if without[k], err = safeWant(g, p, in); err != nil {
			return ""
		}
	}
	var out []string
	for _, name := range res.OutputOrder {
		got, w := res.Out[name], want[name]
		if w == nil || len(got.Shape) == 0 || got.Shape[0] != p || !slices.Equal(got.Shape, w.Shape) {
			continue
		}
		per := len(got.Floats()) / p
		row := func(t *emu.Tensor, r int) []float64 { return t.Floats()[r*per : (r+1)*per] }
		for r := 0; r < p; r++ {
			if same(row(got, r), row(w, r)) {
				continue
			}
			out = append(out, fmt.Sprintf("%s[%d]: %s", name, r, pattern(r, p, row(got, r), row(w, r), func(k int) []float64 {
				if t := without[k][name]; t != nil && len(t.Floats()) == len(got.Floats()) {
					return row(t, r)
				}
				return nil
			}, func() []float64 {
				if len(res.InputOrder) == 0 {
					return nil
				}
				if x := res.In[res.InputOrder[0]]; x != nil && len(x.Floats()) == len(got.Floats()) {
					return row(x, r)
				}
				return nil
			}())))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "on the index fill: " + strings.Join(out, "; ")
}

// pattern names how row got of rank r (of p) differs from want; without(k)
// is rank r's row of the golden with rank k's inputs zeroed, own the
// rank's own input row (nil when the shapes differ).
func pattern(r, p int, got, want []float64, without func(k int) []float64, own []float64) string {
	doubled := make([]float64, len(want))
	for i, v := range want {
		doubled[i] = 2 * v
	}
	switch {
	case same(got, make([]float64, len(want))):
		return "all zeros: nothing arrived"
	case same(got, doubled):
		return "doubled: every contribution counted twice"
	}
	for k := 0; k < p; k++ {
		wk := without(k)
		if wk == nil || same(wk, want) {
			continue // rank k contributes nothing to this row
		}
		twice := make([]float64, len(want))
		for i := range want {
			twice[i] = 2*want[i] - wk[i]
		}
		who := fmt.Sprintf("rank %d's contribution", k)
		if k == r {
			who = "its own contribution"
		}
		switch {
		case same(got, wk):
			return who + " is missing"
		case same(got, twice):
			return who + " is counted twice"
		}
	}
	if own != nil && same(got, own) {
		return "unchanged: the rank's own input, nothing from its peers"
	}
	for i := range got {
		if !floats.Close(got[i], want[i]) {
			return fmt.Sprintf("first wrong at %d: got %v, want %v", i, got[i], want[i])
		}
	}
	return "wrong"
}

func same(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !floats.Close(a[i], b[i]) {
			return false
		}
	}
	return true
}
