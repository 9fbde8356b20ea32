package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"pldworkbench/engine/limits"
)

// TestSchedulesFrontEndOnce holds `run --schedules 20` to one parse and
// one compile of the program: the fair run and the 20 seeded reruns share
// the *engine.Program, and the emulator runs 21 times.
func TestSchedulesFrontEndOnce(t *testing.T) {
	var c limits.Counters
	ctx := limits.WithCounters(context.Background(), &c)
	var out, errb bytes.Buffer
	code := runRunContext(ctx, []string{"../../kernels/08_allreduce_mesh.py", "--ranks", "4", "--schedules", "20"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "20 random schedules: 0 failed") {
		t.Fatalf("no schedule summary:\n%s", out.String())
	}
	if p, k, r := c.Parses.Load(), c.Compiles.Load(), c.Runs.Load(); p != 1 || k != 1 || r != 21 {
		t.Errorf("run --schedules 20: %d parses, %d compiles, %d emulator runs; want 1, 1, 21", p, k, r)
	}
}
