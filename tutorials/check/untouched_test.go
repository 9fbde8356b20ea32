package check

import (
	"context"
	"testing"

	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
)

// TestUntouchedStarterNeverPasses: the page marks a step done when the
// learner's working copy passes the step's full check, and the working copy
// starts as the starter. So no starter, unchanged, may pass CheckFile: Run
// all on an untouched step must leave it not done, at every step.
func TestUntouchedStarterNeverPasses(t *testing.T) {
	for _, s := range Steps() {
		names := s.Kernels(Starter)
		if len(names) == 0 {
			t.Errorf("step %d has no starter for the working copy to start from", s.Number)
			continue
		}
		k, ok := kernels.Get(names[0])
		if !ok {
			t.Fatalf("step %d: starter %s not embedded", s.Number, names[0])
		}
		kr := CheckFile(context.Background(), limits.Budget{}, s, k.File, k.Source, nil)
		if kr.Err != "" {
			t.Errorf("step %d: %s", s.Number, kr.Err)
		} else if kr.OK {
			t.Errorf("step %d: the untouched starter %s passes the step's full check; the learner would be done without writing anything", s.Number, k.Name)
		}
	}
}
