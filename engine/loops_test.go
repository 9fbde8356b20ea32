package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
)

// TestLoopControl runs check/testdata/ok/loop_control.py: the kernel adds
// 1 per rank in a while loop, 10 in three of four pl.range iterations
// (continue skips one), 1000 in each of two pl.while_ iterations and 100
// in min(rank+1, 4) iterations of an inner loop that break ends, twice; so
// y[r] = x[r] + r + 30 + 2000 + 200*min(r+1, 4), at every element,
// computed here from the run's own inputs.
func TestLoopControl(t *testing.T) {
	const file = "check/testdata/ok/loop_control.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{2, 4} {
		opts := engine.RunOptions{Options: engine.Options{Ranks: p}, Fill: emu.FillIndex}
		opts.Entry = "build(" + string(rune('0'+p)) + ").host"
		res := engine.Load(context.Background(), file, src, opts.Options).Run(context.Background(), opts)
		if res.Status != emu.StatusOK {
			t.Fatalf("P=%d: status %s, error %+v, diags %v", p, res.Status, res.Error, res.Diags)
		}
		x, y := res.In["x"], res.Out["y"]
		for r := 0; r < p; r++ {
			inner := min(r+1, 4)
			for i := 0; i < 4; i++ {
				for j := 0; j < 16; j++ {
					want := x.At(r, i, j) + float64(r) + 30 + 2000 + float64(200*inner)
					if got := y.At(r, i, j); got != want {
						t.Fatalf("P=%d: y[%d, %d, %d] = %g, want %g", p, r, i, j, got, want)
					}
				}
			}
		}
	}
}

// loopProgram is a one-rank program whose kernel runs body; the host loop
// dispatches every rank.
const loopProgram = `import pypto.language as pl


@pl.program
class Spin:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
@BODY@
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        rank: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        return self.kernel(x, y, rank)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[2, 1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[2, 1, 8], pl.FP32]],
    ) -> pl.Tensor[[2, 1, 8], pl.FP32]:
@HOST@
        return y
`

const dispatchAll = "        for r in pl.range(2):\n            self.chip(x[r], y[r], r, device=r)"

// TestWhileNeverEnds: a while loop whose condition never turns false, with
// a body and without one, stops at the run's step budget with its error
// (E0504), the rank and the line of the loop, rather than hang.
func TestWhileNeverEnds(t *testing.T) {
	for name, body := range map[string]string{
		"empty":   "        while True:\n            pass",
		"counter": "        n = 0\n        while n >= 0:\n            n = n + 1\n            t = pl.add(t, 1.0)",
	} {
		src := strings.NewReplacer("@BODY@", body, "@HOST@", dispatchAll).Replace(loopProgram)
		res := engine.Load(context.Background(), name+".py", []byte(src), engine.Options{Budget: limits.Budget{RunSteps: 20_000}}).Run(context.Background(), engine.RunOptions{
			Options: engine.Options{Ranks: 2, Entry: "Spin.host", Budget: limits.Budget{RunSteps: 20_000}}})
		if res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0504" {
			t.Fatalf("%s: status %s, error %+v, diags %v; want the step budget's E0504", name, res.Status, res.Error, res.Diags)
		}
		if res.Error.Rank < 0 || res.Error.Line < 14 || res.Error.Line > 17 {
			t.Errorf("%s: error at rank %d line %d, want a rank inside the loop (lines 14-17): %+v", name, res.Error.Rank, res.Error.Line, res.Error)
		}
	}
}

// TestBreakDispatchLoop: a host dispatch loop that breaks after rank 0's
// dispatch runs that one (what the loop dispatched runs when it ends,
// however it ends) and leaves rank 1's output as it was; a continue that
// skips rank 0 leaves rank 0's.
func TestBreakDispatchLoop(t *testing.T) {
	for name, c := range map[string]struct {
		host string
		ran  [2]bool
	}{
		"break":    {"        for r in pl.range(2):\n            self.chip(x[r], y[r], r, device=r)\n            if r == 0:\n                break", [2]bool{true, false}},
		"continue": {"        for r in pl.range(2):\n            if r == 0:\n                continue\n            self.chip(x[r], y[r], r, device=r)", [2]bool{false, true}},
	} {
		src := strings.NewReplacer("@BODY@", "        t = pl.add(t, 1.0)", "@HOST@", c.host).Replace(loopProgram)
		res := engine.Load(context.Background(), name+".py", []byte(src), engine.Options{}).Run(context.Background(), engine.RunOptions{
			Options: engine.Options{Ranks: 2, Entry: "Spin.host"}, Fill: emu.FillIndex})
		if res.Status != emu.StatusOK {
			t.Fatalf("%s: status %s, error %+v, diags %v", name, res.Status, res.Error, res.Diags)
		}
		x, y := res.In["x"], res.Out["y"]
		for r := 0; r < 2; r++ {
			for j := 0; j < 8; j++ {
				want := 0.0 // an output no dispatch wrote starts zeroed
				if c.ran[r] {
					want = x.At(r, 0, j) + 1
				}
				if got := y.At(r, 0, j); got != want {
					t.Fatalf("%s: y[%d, 0, %d] = %g, want %g", name, r, j, got, want)
				}
			}
		}
	}
}

// TestWhileDevice runs check/testdata/ok/while_device.py: a host with no
// window buffer dispatches with device= a while-loop counter and a rank
// computed from a pl.range variable; the kernel adds the step it is
// handed, so y[q] = x[q] + q and z[r] = x[r] + 10*r, from the run's inputs.
func TestWhileDevice(t *testing.T) {
	const file = "check/testdata/ok/while_device.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "WhileDevice.host"}, Fill: emu.FillIndex})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, y, z := res.In["x"], res.Out["y"], res.Out["z"]
	for r := 0; r < 4; r++ {
		for j := 0; j < 16; j++ {
			if got, want := y.At(r, 0, j), x.At(r, 0, j)+float64(r); got != want {
				t.Fatalf("y[%d, 0, %d] = %g, want %g", r, j, got, want)
			}
			if got, want := z.At(r, 0, j), x.At(r, 0, j)+float64(10*r); got != want {
				t.Fatalf("z[%d, 0, %d] = %g, want %g", r, j, got, want)
			}
		}
	}
}

// TestComputedWindow runs check/testdata/ok/computed_window.py, whose
// buffers and views are NR % 3 and NR - 3 rows (1 at 4 ranks, computed
// from NR, never bound whole): each rank puts its row into the next
// rank's window, so y[r] = x[(r + 3) % 4], from the run's inputs.
func TestComputedWindow(t *testing.T) {
	const file = "check/testdata/ok/computed_window.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "Computed.host", Ranks: 4}, Fill: emu.FillIndex})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, y := res.In["x"], res.Out["y"]
	for r := 0; r < 4; r++ {
		for j := 0; j < 16; j++ {
			if got, want := y.At(r, 0, j), x.At((r+3)%4, 0, j); got != want {
				t.Fatalf("y[%d, 0, %d] = %g, want %g", r, j, got, want)
			}
		}
	}
}

// TestCarriedBreak runs check/testdata/ok/carried_break.py: a break in a
// plain loop inside a carried one stops it after the chunks at columns 0
// and 16 (1 added), and a carried loop's continue skips the chunk at 16
// when 100 is added to the others: y = x + 100 at columns 0-15 and 32-63,
// x + 1 at 16-31, from the run's own inputs.
func TestCarriedBreak(t *testing.T) {
	const file = "check/testdata/ok/carried_break.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "launch"}, Fill: emu.FillIndex})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, y := res.In["x"], res.Out["y"]
	for r := 0; r < 2; r++ {
		for j := 0; j < 64; j++ {
			add := 100.0
			if j >= 16 && j < 32 {
				add = 1
			}
			if got, want := y.At(r, 0, j), x.At(r, 0, j)+add; got != want {
				t.Fatalf("y[%d, 0, %d] = %g, want %g", r, j, got, want)
			}
		}
	}
}
