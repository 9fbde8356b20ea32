package emu_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
)

// TestFastPathsMatchGeneral runs programs through the interpreter's fast
// paths (a comparison, its if and the statement it chose in one step of
// next, with one test of the budget; comparisons whose result only their
// if reads left unwritten; signal ops' window, peer and cell decoded at
// compile time, sigKeyCell) and through the general ones (GeneralPaths),
// under every step budget up to a few hundred statements, budgets around
// the run's total and a spread in between, schedules and race detection
// on and off: both must end alike (status, error, deadlock, races,
// outputs, counts) with the same events.
func TestFastPathsMatchGeneral(t *testing.T) {
	progs := []struct {
		path, entry string
		ranks       int
	}{
		{"testdata/bench.py", "build_bench_barrier(4).barrier_host", 4},
		{"testdata/bench.py", "build_bench_barrier(7).barrier_host", 7},
		{"testdata/bench.py", "build_bench_ring(4, 64).ring_host", 4},
		{"testdata/arith.py", "scalar_host", 3},
		{"testdata/arith.py", "scalar_host", 5},
	}
	for _, p := range progs {
		prog := compileFile(t, p.path, p.entry, p.ranks)
		in := fill(prog, "index", 0)
		fast, general := emu.Compile(prog), emu.Compile(prog)
		emu.GeneralPaths(general)
		run := func(cp *emu.Compiled, opts emu.Options) (*emu.Result, []trace.Event) {
			var events []trace.Event
			opts.Inputs = in
			opts.OnEvent = func(e trace.Event) { events = append(events, e) }
			return cp.Run(context.Background(), opts), events
		}
		full, _ := run(fast, emu.Options{})
		if full.Status != emu.StatusOK {
			t.Fatalf("%s %s: %s %v", p.path, p.entry, full.Status, full.Error)
		}
		total := full.Stats.Steps
		var budgets []int64
		for b := int64(1); b <= min(total, 300); b++ {
			budgets = append(budgets, b)
		}
		for b := total - 8; b <= total+3; b++ {
			budgets = append(budgets, b)
		}
		for b := int64(301); b < total-8; b += 1 + total/97 {
			budgets = append(budgets, b)
		}
		for _, sched := range []string{"", "random:7"} {
			for _, off := range []bool{false, true} {
				for _, b := range budgets {
					if b < 1 {
						continue
					}
					opts := emu.Options{MaxSteps: b, Schedule: sched, NoRaces: off}
					a, ae := run(fast, opts)
					g, ge := run(general, opts)
					what := fmt.Sprintf("%s %s sched %q noraces %v budget %d of %d", p.path, p.entry, sched, off, b, total)
					if a.Status != g.Status || !reflect.DeepEqual(a.Error, g.Error) || !reflect.DeepEqual(a.Deadlock, g.Deadlock) {
						t.Fatalf("%s: fast %s %+v %+v, general %s %+v %+v", what, a.Status, a.Error, a.Deadlock, g.Status, g.Error, g.Deadlock)
					}
					if a.Stats != g.Stats || !reflect.DeepEqual(a.Races, g.Races) || a.RacesOmitted != g.RacesOmitted {
						t.Fatalf("%s: fast %+v %d races, general %+v %d races", what, a.Stats, len(a.Races), g.Stats, len(g.Races))
					}
					if !reflect.DeepEqual(a.Outputs, g.Outputs) {
						t.Fatalf("%s: outputs differ", what)
					}
					if !reflect.DeepEqual(ae, ge) {
						t.Fatalf("%s: %d events, general %d, or they differ", what, len(ae), len(ge))
					}
				}
			}
		}
	}
}
