package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
)

// TestDeferredTasks runs the deferred-completion program of check's ok
// testdata: every reader task of rank r copies twice the letter the other
// rank posted, under the fair schedule and seeded random ones, race-free.
// The same program with a blocking pld.system.wait in the waiters
// deadlocks: each rank's first waiter holds its orchestration before the
// post that would release the peer, which is what defer_wait avoids.
func TestDeferredTasks(t *testing.T) {
	const file = "check/testdata/ok/deferred_tasks.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sched := range []string{"fair", "random:1", "random:7", "adversarial"} {
		// On each rank the post's notify runs before the first deferred
		// wait: the waiters were queued, not run where they were submitted.
		notifyAt, waitAt := map[int]int64{}, map[int]int64{}
		sink := func(e trace.Event) {
			at := map[string]map[int]int64{"pld.system.notify": notifyAt, "pld.system.defer_wait": waitAt}[e.Op]
			if _, seen := at[e.Rank]; at != nil && !seen {
				at[e.Rank] = e.Seq
			}
		}
		res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex, Schedule: sched, OnEvent: sink})
		if res.Status != emu.StatusOK || len(res.Races) > 0 {
			t.Fatalf("%s: status %s, error %+v, races %d, diags %v", sched, res.Status, res.Error, len(res.Races), res.Diags)
		}
		for r := 0; r < 2; r++ {
			n, okN := notifyAt[r]
			w, okW := waitAt[r]
			if !okN || !okW || n > w {
				t.Fatalf("%s: rank %d: first notify at seq %d (%v), first deferred wait at %d (%v); want the post first", sched, r, n, okN, w, okW)
			}
		}
		letters, copies := res.In["letters"], res.Out["copies"]
		const P, readers, width = 2, 3, 8
		for r := 0; r < P; r++ {
			from := letters.Row((r + 1) % P) // rank r+1 posts to rank r+2 = r (P = 2)
			for k := 0; k < readers; k++ {
				for j := 0; j < width; j++ {
					if got, want := copies.Floats()[(r*readers+k)*width+j], 2*from[j]; got != want {
						t.Fatalf("%s: copies[%d][%d][%d] = %g, want 2 * letter %g", sched, r, k, j, got, want)
					}
				}
			}
		}
	}

	blocking := strings.Replace(string(src), "pld.system.defer_wait(", "pld.system.wait(", 1)
	blocking = strings.Replace(blocking, `  ### "^W0308 the emulator runs these tasks one at a time"`, "", 1)
	res := engine.Load(context.Background(), file, []byte(blocking), engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex})
	if res.Status != emu.StatusDeadlock || res.Deadlock == nil {
		t.Fatalf("blocking waiters: status %s, want a deadlock (diags %v)", res.Status, res.Diags)
	}
}

// TestDeferredAuto runs check's deferred_auto.py, a deferred waiter outside
// a manual scope on a ring of three: rank r hears rank r-1's words, whether
// the orchestration drains its deferred tasks at its return or, without
// one, at its end.
func TestDeferredAuto(t *testing.T) {
	const file = "check/testdata/ok/deferred_auto.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	noReturn := strings.Replace(string(src), "        return heard\n", "", 1)
	noReturn = strings.Replace(noReturn, ") -> pl.Tensor[[1, WIDTH], pl.INT32]:\n        with", "):\n        with", 1)
	if noReturn == string(src) {
		t.Fatal("the no-return variant is the same program")
	}
	for _, prog := range []string{string(src), noReturn} {
		res := engine.Load(context.Background(), file, []byte(prog), engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex})
		if res.Status != emu.StatusOK || len(res.Races) > 0 {
			t.Fatalf("status %s, error %+v, races %d, diags %v", res.Status, res.Error, len(res.Races), res.Diags)
		}
		const P = 3
		mine, heard := res.In["mine"], res.Out["heard"]
		for r := 0; r < P; r++ {
			want, got := mine.Row((r+P-1)%P), heard.Row(r)
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("heard[%d][%d] = %g, want rank %d's %g", r, j, got[j], (r+P-1)%P, want[j])
				}
			}
		}
	}
}
