package kernels_test

import (
	"fmt"
	"strings"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// A mutation breaks one kernel's synchronisation by deleting source text.
// The result is still valid PyPTO — it checks clean — so only running it
// can show the mistake.
type mutation struct {
	kernel string
	remove string // deleted once; must occur exactly once
	// stage and read are fragments of the two source lines the deleted
	// code ordered: the write a peer depends on, and the remote read of
	// it. If the fair schedule hides the bug, the trace must show that it
	// executed every such write before the read that depends on it.
	stage, read string
	// mustCatch says the fair schedule is known to expose this mistake, so
	// a run that does not is a failure rather than a skip.
	mustCatch bool
}

var mutations = map[string]mutation{
	// The mesh all-reduce of step 08 without the wait half of its barrier:
	// ranks notify, then read their peers' windows without waiting for
	// their notifies.
	"mesh_without_wait": {
		kernel: "08_allreduce_mesh",
		remove: "    for src in pl.range(nranks):\n" +
			"        if src != me:\n" +
			"            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)\n",
		stage: "part = pl.store(mine, [0, 0], part)",
		read:  "theirs = pld.tile.remote_load(part, peer,",
	},
	// The broadcast of step 12 with its receivers no longer waiting for
	// the root's "box is full".
	"broadcast_without_wait": {
		kernel: "12_broadcast_hand",
		remove: "    if me != root:\n" +
			"        pld.system.wait(full, [0, 0], 1, cmp=pld.WaitCmp.Ge)\n",
		stage:     "box = pl.store(payload, [0, 0], box)",
		read:      "copy = pld.tile.remote_load(box, root,",
		mustCatch: true,
	},
}

// TestBrokenSync deletes a wait from two kernels and runs the result under
// the default (fair, deterministic) schedule at every rank count the
// kernel lists. The mistake counts as caught when a run fails or an output
// misses its golden.
//
// The broadcast is caught: the receivers skip the root's work, so on the
// simulated clock they reach their remote_load while the root is still
// loading its input, and read a zero box.
//
// The mesh all-reduce is not, and the test says why instead of passing: all
// ranks do identical work before the barrier, so the fair schedule (earliest
// simulated clock first, lowest rank on a tie) runs every rank's staging
// store before any rank's first remote_load. The wait it lost was ordering
// nothing that the schedule did not already order. The test checks that
// claim in the trace — every remote_load from peer q comes after q's
// staging store — and then skips; adversarial schedules (a later issue) are
// what should expose it.
func TestBrokenSync(t *testing.T) {
	for name, m := range mutations {
		t.Run(name, func(t *testing.T) {
			k, ok := kernels.Get(m.kernel)
			if !ok {
				t.Fatalf("no kernel %s", m.kernel)
			}
			src := string(k.Source)
			if n := strings.Count(src, m.remove); n != 1 {
				t.Fatalf("%s: the text to delete occurs %d times, want 1", k.File, n)
			}
			broken := []byte(strings.Replace(src, m.remove, "", 1))
			stageLine, readLine := lineOf(t, broken, m.stage), lineOf(t, broken, m.read)

			var caught, hidden []string
			for _, p := range k.Ranks {
				in := instance{k, k.Entries[0], p}
				prog := compileSource(t, in, broken)
				params := hostParams(t, prog, p)
				inputs := makeInputs(in, params)
				var events trace.Collector
				res := runProgram(t, prog, inputs, emu.Options{OnEvent: events.Sink()})
				if res.Status != emu.StatusOK {
					caught = append(caught, fmt.Sprintf("P=%d: %s", p, describe(res)))
					continue
				}
				g := goldens[in.key()]
				if err := compareOutputs(params, inputs, res.Outputs, g.want(p, inputs), g.exact); err != nil {
					caught = append(caught, fmt.Sprintf("P=%d: %v", p, err))
					continue
				}
				// Not caught at this P: the trace must show why.
				if err := writesBeforeReads(events.Events, stageLine, readLine); err != nil {
					t.Fatalf("P=%d: outputs match the golden, yet %v", p, err)
				}
				hidden = append(hidden, fmt.Sprint(p))
			}
			for _, c := range caught {
				t.Logf("caught at %s", c)
			}
			if len(caught) > 0 {
				return
			}
			if m.mustCatch {
				t.Fatalf("%s with the wait deleted matches its golden at every P (%s)", k.File, strings.Join(hidden, ", "))
			}
			t.Skipf("%s with the wait deleted matches its golden at P = %s under the fair schedule: "+
				"the trace shows every rank's staging store (line %d) executed before each remote_load "+
				"of it (line %d), so the missing wait ordered nothing the schedule did not; "+
				"an adversarial schedule is needed to expose it",
				k.File, strings.Join(hidden, ", "), stageLine, readLine)
		})
	}
}

// lineOf returns the 1-based line of the only occurrence of frag in src.
func lineOf(t *testing.T, src []byte, frag string) int {
	t.Helper()
	s := string(src)
	if strings.Count(s, frag) != 1 {
		t.Fatalf("%q occurs %d times, want 1", frag, strings.Count(s, frag))
	}
	return strings.Count(s[:strings.Index(s, frag)], "\n") + 1
}

// writesBeforeReads checks, in the order the emulator executed the events,
// that every event on readLine that touched peer q came after q's event on
// stageLine (when q has one).
func writesBeforeReads(events []trace.Event, stageLine, readLine int) error {
	staged := map[int]bool{}
	stagers := map[int]bool{}
	for _, e := range events {
		if e.Line == stageLine && e.Rank >= 0 {
			stagers[e.Rank] = true
		}
	}
	reads := 0
	for _, e := range events {
		switch {
		case e.Line == stageLine && e.Rank >= 0:
			staged[e.Rank] = true
		case e.Line == readLine && e.Peer != nil:
			reads++
			if q := *e.Peer; stagers[q] && !staged[q] {
				return fmt.Errorf("rank %d's read of rank %d (event %d) ran before rank %d staged", e.Rank, q, e.Seq, q)
			}
		}
	}
	if reads == 0 || len(stagers) == 0 {
		return fmt.Errorf("the trace has %d reads on line %d and %d staging ranks on line %d", reads, readLine, len(stagers), stageLine)
	}
	return nil
}
