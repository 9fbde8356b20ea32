package check

import (
	"strings"
	"testing"

	"pldworkbench/kernels"
)

// TestBugGoldensByRule holds GoldenOf's naming rule: every entry of every
// bug variant has a golden, and the table lists a bug's golden only where
// the rule finds none (no row repeats its solution's).
func TestBugGoldensByRule(t *testing.T) {
	byRule := 0
	for _, k := range kernels.Bugs() {
		for _, e := range k.Entries {
			_, own := goldens[k.Name+"/"+e]
			_, ownPy := goldensPy[k.Name+"/"+e]
			if own != ownPy {
				t.Errorf("%s/%s: a Go golden row %v, a Python one %v; the two tables list the same keys", k.Name, e, own, ownPy)
			}
			_, ruled := solutionGolden(k.Name, e)
			switch {
			case own && ruled:
				t.Errorf("goldens lists %s/%s, which the naming rule already gives; delete the row", k.Name, e)
			case !own && !ruled:
				t.Errorf("%s/%s has no golden: no solution or builtin of step %d has entry %s, so goldens needs a row", k.Name, e, k.Step(), e)
			case ruled:
				byRule++
			}
		}
	}
	if byRule == 0 {
		t.Error("no bug variant takes its golden by the naming rule")
	}
	for key := range goldens {
		name, _, _ := strings.Cut(key, "/")
		if _, ok := kernels.Get(name); !ok {
			t.Errorf("goldens has %s, but no kernel %s", key, name)
		}
	}
	t.Logf("%d bug entries take their solution's golden by the naming rule", byRule)
}
