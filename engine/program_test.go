package engine_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestProgramRunsConcurrently: one compiled Program runs from several
// goroutines at once (the server's cache hands one to every request) and
// each run gives what a run on its own gives. Run it under -race.
func TestProgramRunsConcurrently(t *testing.T) {
	src := readKernel(t, "08_allreduce_mesh.py")
	opts := engine.Options{Ranks: 4}
	mod := engine.Load(context.Background(), "mesh.py", src, opts)
	prog, diags := mod.Compile(context.Background(), "", opts)
	if !prog.OK() || prog.Entry != "mesh_allreduce" || prog.Ranks != 4 {
		t.Fatalf("compile: entry %q at %d ranks, %v", prog.Entry, prog.Ranks, diags)
	}
	alone := prog.Run(context.Background(), engine.RunOptions{Fill: emu.FillRandn, Seed: 3})
	if alone.Status != "ok" {
		t.Fatalf("run: %s", alone.Status)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := prog.Run(context.Background(), engine.RunOptions{Fill: emu.FillRandn, Seed: 3, Schedule: "adversarial"})
			res2 := prog.Run(context.Background(), engine.RunOptions{Fill: emu.FillRandn, Seed: 3})
			if res.Status != "ok" || !reflect.DeepEqual(res2.Out, alone.Out) || res2.Stats != alone.Stats {
				t.Errorf("concurrent run: %s, outputs or stats differ from the run alone", res.Status)
			}
		}()
	}
	wg.Wait()
}
