package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestDeviceGroups runs check's device_groups.py: the pair {0, 1} swaps
// its rows and the trio {1, 2, 3} hands each row to the next member, peers
// numbered within each group; the rows outside a group stay zero. A peer
// past the trio's size is a run-time error that names the domain.
func TestDeviceGroups(t *testing.T) {
	const file = "check/testdata/ok/device_groups.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sched := range []string{"fair", "random:3", "adversarial"} {
		res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex, Schedule: sched})
		if res.Status != emu.StatusOK || len(res.Races) > 0 {
			t.Fatalf("%s: status %s, error %+v, races %d, diags %v", sched, res.Status, res.Error, len(res.Races), res.Diags)
		}
		x := res.In["x"]
		// from[d] is the device whose row d receives, -1 for none.
		for name, from := range map[string][4]int{"from_pair": {1, 0, -1, -1}, "from_trio": {-1, 3, 1, 2}} {
			out := res.Out[name]
			for d, src := range from {
				row := out.Row(d)
				for j, got := range row {
					want := 0.0
					if src >= 0 {
						want = x.Row(src)[j]
					}
					if got != want {
						t.Fatalf("%s: %s[%d][%d] = %g, want %g (from device %d)", sched, name, d, j, got, want, src)
					}
				}
			}
		}
	}

	// A view of a buffer smaller than the kernel's parameter: PyPTO
	// compiles it; the run refuses the dispatch.
	short := strings.Replace(string(src), "trio_box = pld.alloc_window_buffer(W * pl.FP32.get_byte())", "trio_box = pld.alloc_window_buffer(8 * pl.FP32.get_byte())", 1)
	short = strings.Replace(short, "line = pld.window(trio_box, [W], dtype=pl.FP32)", "line = pld.window(trio_box, [8], dtype=pl.FP32)", 1)
	res := engine.Load(context.Background(), file, []byte(short), engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || !strings.Contains(res.Error.Message, "whose 32 bytes the kernel would read") {
		t.Fatalf("a view of a short buffer: status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}

	bad := strings.Replace(string(src), "nxt = (me + 1) % pld.nranks(ctx)", "nxt = me + 1", 1)
	res = engine.Load(context.Background(), file, []byte(bad), engine.Options{}).Run(context.Background(), engine.RunOptions{Fill: emu.FillIndex})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || !strings.Contains(res.Error.Message, "communication domain") {
		t.Fatalf("peer past the group: status %s, error %+v", res.Status, res.Error)
	}
}

// TestSubWorkerRuns runs check's subworker_blend.py, whose SubWorker
// callback is whole-tensor arithmetic the emulator runs as DSL:
// out = sq * twice - (sq + twice) with sq = x*x and twice = 2x, in FP32.
func TestSubWorkerRuns(t *testing.T) {
	const file = "check/testdata/ok/subworker_blend.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 1}, Fill: emu.FillRandn})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, out := res.In["x"].Floats(), res.Out["out"].Floats()
	for i := range x {
		sq, twice := float32(x[i])*float32(x[i]), float32(x[i])+float32(x[i])
		prod, sum := float32(sq*twice), float32(sq+twice) // explicit conversions round: no fused multiply-add
		if want := float64(prod - sum); out[i] != want {
			t.Fatalf("out[%d] = %g, want sq*twice - (sq+twice) = %g", i, out[i], want)
		}
	}
}
