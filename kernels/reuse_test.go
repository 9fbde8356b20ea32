package kernels_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// The kernel half of 20_signal_reuse.py - two InCore all-reduces on one
// signal window give the right sums and leave the window at zero - is
// checked by TestRun against its golden. This file checks the host half:
// two HOST barriers on one signal window, which upstream HEAD (commit
// 9533ae36b) makes safe with a self-clearing epilogue in every HOST
// builtin. The hand-rolled reuse that stays unsafe is 04_barrier_bug.py,
// which tutorials/check holds to its documented race.

// linesOf returns the 1-based lines of every occurrence of frag in src.
func linesOf(src []byte, frag string) []int {
	var out []int
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, frag) {
			out = append(out, i+1)
		}
	}
	return out
}

// TestSignalReuseOnHost runs build_signal_reuse(P).twice_on_host at every
// rank count, under the fair and the adversarial schedule, and checks:
//
//  1. The checker reports nothing: reusing a HOST builtin's signal is not
//     W0302 any more.
//  2. The run ends ok with no race, and the outputs match the golden,
//     which holds the copied signal to all zero.
//  3. In the trace, each barrier's credits go 0 -> 1 on every peer cell and
//     its epilogue takes each back, 1 -> 0; so every wait of the second
//     barrier is released by a notify of the second barrier, never by a
//     credit the first one left behind (which is what happened when HOST
//     builtins had no epilogue).
func TestSignalReuseOnHost(t *testing.T) {
	k, ok := kernels.Get("20_signal_reuse")
	if !ok {
		t.Fatal("no kernel 20_signal_reuse")
	}
	barriers := linesOf(k.Source, "sig = pld.tensor.barrier(sig)")
	if len(barriers) != 2 {
		t.Fatalf("%s: want two HOST barrier calls on sig, found them on lines %v", k.File, barriers)
	}
	first, second := barriers[0], barriers[1]
	for _, p := range k.Ranks {
		in := instance{k, "build_signal_reuse({P}).twice_on_host", p}
		t.Run(in.String(), func(t *testing.T) {
			res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Check(context.Background(), engine.Options{Entry: in.expanded(), Ranks: p})
			if len(res.Diags) != 0 {
				t.Fatalf("want no diagnostics, got:\n%s", diag.RenderAll(res.Diags, k.Source))
			}
			prog := compile(t, in)
			params := hostParams(t, prog, p)
			inputs := makeInputs(in, params)
			for _, sched := range []string{"fair", "adversarial"} {
				var events trace.Collector
				run := runProgram(t, prog, inputs, emu.Options{Schedule: sched, OnEvent: events.Sink()})
				if run.Status != emu.StatusOK {
					t.Fatalf("%s: %s", sched, describe(run))
				}
				g := goldens[in.key()]
				if err := compareOutputs(params, inputs, run.Outputs, g.want(p, inputs), g.exact); err != nil {
					t.Fatalf("%s: %v", sched, err)
				}
				checkCredits(t, sched, events.Events, p, first, second)
			}
		})
	}
}

// checkCredits follows every signal notify of the two barrier lines.
func checkCredits(t *testing.T, sched string, events []trace.Event, p, first, second int) {
	t.Helper()
	byRef := map[trace.Ref]trace.Event{}
	count := map[string]int{}
	var waits []trace.Event
	for _, e := range events {
		byRef[trace.Ref{Rank: e.Rank, Seq: e.Seq}] = e
		if e.Line != first && e.Line != second || e.Rank < 0 {
			continue
		}
		which := "first"
		if e.Line == second {
			which = "second"
		}
		switch e.Op {
		case "pld.system.notify":
			switch before, after := *e.Before, *e.After; {
			case before == 0 && after == 1:
				count[which+" credit"]++
			case before == 1 && after == 0:
				count[which+" epilogue"]++
			default:
				t.Errorf("%s, %s barrier: rank %d's notify of %s on rank %d went %d -> %d, want 0 -> 1 (a credit) or 1 -> 0 (the epilogue)",
					sched, which, e.Rank, e.Cell, *e.Peer, before, after)
			}
		case "pld.system.wait":
			if e.Line == second {
				waits = append(waits, e)
			}
		}
	}
	n := p * (p - 1)
	for _, key := range []string{"first credit", "first epilogue", "second credit", "second epilogue"} {
		if count[key] != n {
			t.Errorf("%s: %d notifies are the %s, want %d (%v)", sched, count[key], key, n, count)
		}
	}
	if len(waits) != n {
		t.Fatalf("%s: %d waits on line %d, want %d", sched, len(waits), second, n)
	}
	for _, w := range waits {
		if w.ReleasedBy == nil {
			t.Errorf("%s: rank %d's second-barrier wait on %s has no released_by", sched, w.Rank, w.Cell)
			continue
		}
		by, ok := byRef[*w.ReleasedBy]
		if !ok || by.Op != "pld.system.notify" || by.Before == nil || by.After == nil {
			t.Errorf("%s: rank %d's second-barrier wait on %s released by %+v, not a notify", sched, w.Rank, w.Cell, *w.ReleasedBy)
			continue
		}
		if by.Line != second || *by.Before != 0 || *by.After != 1 {
			t.Errorf("%s: rank %d's second-barrier wait on %s released by %s", sched, w.Rank, w.Cell,
				fmt.Sprintf("%s on line %d (%d -> %d)", by.Op, by.Line, *by.Before, *by.After))
		}
	}
}
