package emu_test

import (
	"fmt"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/kernels"
)

// TestRaceVerdictsOnReusedPages: a run with detection on takes its
// signal-cell pages from a pool the runs before it gave theirs back to,
// and nothing of theirs may leak into its verdict. Step 08's mesh without
// its waits reports the same races (and runs the same: stats, output) on
// fresh pages, after a clean run of the whole kernel and after itself; the
// kernel runs the same after the racy one as before it.
func TestRaceVerdictsOnReusedPages(t *testing.T) {
	src, _, _ := meshWithout(t, meshWait)
	const P = 4
	racy := compile(t, "08_without_waits", src, "mesh_allreduce", P)
	k, _ := kernels.Get("08_allreduce_mesh")
	clean := compile(t, "08_allreduce_mesh", string(k.Source), "mesh_allreduce", P)
	in := fill(racy, "randn", 1)
	verdict := func(res *emu.Result) string {
		return fmt.Sprintf("%s %+v +%d %+v %v", res.Status, res.Races, res.RacesOmitted, res.Stats, res.Outputs["y"].Floats())
	}
	emu.DrainRacePool()
	fresh, cleanFresh := verdict(runSched(racy, in, nil, "adversarial")), verdict(runSched(clean, in, nil, "adversarial"))
	if emu.RacePoolPages() == 0 {
		t.Fatal("the run gave no pages back to the pool")
	}
	if want := string(emu.StatusRace); fresh[:len(want)] != want {
		t.Fatalf("without its waits: %s, want a race", fresh)
	}
	if want := string(emu.StatusOK) + " [] +0 "; cleanFresh[:len(want)] != want {
		t.Fatalf("the kernel: %s, want ok without races", cleanFresh)
	}
	for i := 0; i < 3; i++ {
		if v := verdict(runSched(clean, in, nil, "adversarial")); v != cleanFresh {
			t.Errorf("round %d: the clean kernel after the racy one\n%s\nwant, as on its first run,\n%s", i, v, cleanFresh)
		}
		if v := verdict(runSched(racy, in, nil, "adversarial")); v != fresh {
			t.Errorf("round %d: on reused pages\n%s\nwant, as on fresh ones,\n%s", i, v, fresh)
		}
	}
}
