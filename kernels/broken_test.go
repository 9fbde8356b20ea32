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
	// it.
	stage, read string
	// fairCatches says the fair schedule is known to produce wrong data
	// for this mistake at every rank count (without the race detector).
	fairCatches bool
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
		stage:       "box = pl.store(payload, [0, 0], box)",
		read:        "copy = pld.tile.remote_load(box, root,",
		fairCatches: true,
	},
}

// TestBrokenSync deletes a wait from two kernels and runs the result at
// every rank count the kernel lists, three ways:
//
//  1. Under the default fair schedule with the race detector on, the run
//     must end with status race and a report naming the staging line and
//     the reading line.
//  2. Under the adversarial schedule (detector off, so only the data can
//     tell), an output must miss its golden: the schedule runs the read
//     before the write it needed.
//  3. Under the fair schedule with the detector off the data may come out
//     right. The broadcast's does not: the receivers skip the root's work,
//     so on the simulated clock they reach their remote_load while the
//     root is still loading its input, and read a zero box. The mesh's
//     does: all ranks do identical work before the barrier, so the fair
//     schedule runs every staging store before any remote_load. The test
//     checks that claim in the trace — every remote_load from peer q comes
//     after q's staging store — which is why step 2 is needed.
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

			var hidden []string
			for _, p := range k.Ranks {
				in := instance{k, k.Entries[0], p}
				prog := compileSource(t, in, broken)
				params := hostParams(t, prog, p)
				inputs := makeInputs(in, params)
				g := goldens[in.key()]
				wrong := func(res *emu.Result) error {
					if res.Status != emu.StatusOK {
						return fmt.Errorf("%s", describe(res))
					}
					return compareOutputs(params, inputs, res.Outputs, g.want(p, inputs), g.exact)
				}

				res := runProgram(t, prog, inputs, emu.Options{})
				if err := racesName(res, stageLine, readLine); err != nil {
					t.Errorf("P=%d, fair: %v", p, err)
				}

				res = runProgram(t, prog, inputs, emu.Options{Schedule: "adversarial", NoRaces: true})
				if err := wrong(res); err == nil {
					t.Errorf("P=%d: the adversarial schedule gives the golden output; it should expose the missing wait", p)
				} else {
					t.Logf("P=%d, adversarial: %v", p, firstLine(err.Error()))
				}

				var events trace.Collector
				res = runProgram(t, prog, inputs, emu.Options{NoRaces: true, OnEvent: events.Sink()})
				if err := wrong(res); err != nil {
					continue
				}
				if m.fairCatches {
					t.Errorf("P=%d: the fair schedule gives the golden output, but it is known to expose this mistake", p)
				}
				if err := writesBeforeReads(events.Events, stageLine, readLine); err != nil {
					t.Fatalf("P=%d: outputs match the golden under fair, yet %v", p, err)
				}
				hidden = append(hidden, fmt.Sprint(p))
			}
			if len(hidden) > 0 {
				t.Logf("%s with the wait deleted matches its golden at P = %s under the fair schedule: "+
					"the trace shows every rank's staging store (line %d) executed before each remote_load "+
					"of it (line %d); the race detector and the adversarial schedule expose it",
					k.File, strings.Join(hidden, ", "), stageLine, readLine)
			}
		})
	}
}

// racesName checks that res ended with status race and that a race pairs
// stageLine with readLine.
func racesName(res *emu.Result, stageLine, readLine int) error {
	if res.Status != emu.StatusRace {
		return fmt.Errorf("%s, want race", describe(res))
	}
	for _, r := range res.Races {
		if min(r.A.Line, r.B.Line) == min(stageLine, readLine) && max(r.A.Line, r.B.Line) == max(stageLine, readLine) {
			return nil
		}
	}
	return fmt.Errorf("races %+v, want one between lines %d and %d", res.Races, stageLine, readLine)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
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
