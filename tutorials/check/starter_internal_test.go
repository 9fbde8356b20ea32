package check

import (
	"context"
	"strings"
	"testing"

	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
)

// TestStarterMustNotHang: judged as a starter, a kernel whose gap leaves a
// wait without its notify deadlocks, and that is not OK; wrong data is.
func TestStarterMustNotHang(t *testing.T) {
	ref, _ := kernels.Get("04_barrier_hand")
	starter, _ := kernels.Get("04_barrier_starter")
	if kr := judge(context.Background(), limits.Budget{}, ref, starter.File, starter.Source, Starter, []int{2}); !kr.OK {
		t.Fatalf("the shipped starter: %+v", kr)
	}
	const gap = "    # ---- end of TODO ----\n"
	waitOnly := strings.Replace(string(starter.Source), gap, gap+
		"    for src in pl.range(nranks):\n        if src != me:\n            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)\n", 1)
	kr := judge(context.Background(), limits.Budget{}, ref, starter.File, []byte(waitOnly), Starter, []int{2})
	if kr.OK || len(kr.Verdicts) != 1 || kr.Verdicts[0].Status != "deadlock" {
		t.Errorf("a starter with a wait and no notify: %+v", kr)
	}
}
