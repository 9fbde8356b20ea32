package engine

import (
	"context"
	"os"
	"testing"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
)

// TestHeadConstructsRun runs the programs of upstream HEAD's language that
// the workbench learned for the conformance suite (testdata/heads, written
// for this project) and checks their outputs against goldens computed
// here from the inputs.
func TestHeadConstructsRun(t *testing.T) {
	cases := []struct {
		file, entry string
		ranks       int
		want        func(in map[string]*emu.Tensor) map[string][]float64
	}{
		// A loop-carried copy in chunks whose last tile overhangs: y == x.
		{"testdata/heads/carried_copy.py", "copy_all", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"y": in["x"].Floats()}
		}},
		// A test module with fixtures and generators: y == 2x.
		{"testdata/heads/test_glue.py", "Doubler.host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			out := make([]float64, len(in["x"].Floats()))
			for i, v := range in["x"].Floats() {
				out[i] = float64(float32(v + v))
			}
			return map[string][]float64{"y": out}
		}},
		// pl.range over a dynamic dimension, NR * SIZE window bytes: y == x.
		{"testdata/heads/dynamic_range.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"y": in["x"].Floats()}
		}},
		{"testdata/heads/dynamic_range.py", "host_orch", 4, func(in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"y": in["x"].Floats()}
		}},
		// x[rd, r] at the host, per round: y == x.
		{"testdata/heads/rounds.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"y": in["x"].Floats()}
		}},
		// return inside an if: rank 0 doubles, the others copy.
		{"testdata/heads/early_return.py", "host_orch", 4, func(in map[string]*emu.Tensor) map[string][]float64 {
			x := in["x"]
			out := append([]float64{}, x.Floats()...)
			for j, v := range x.Row(0) {
				out[j] = float64(float32(v + v))
			}
			return map[string][]float64{"y": out}
		}},
		// A SubWorker callback beside the dispatch (not run): f == a.
		{"testdata/heads/subworker.py", "Checked.host_orch", 1, func(in map[string]*emu.Tensor) map[string][]float64 {
			return map[string][]float64{"f": in["a"].Floats()}
		}},
		// A [1, SIZE] tile stored into each row of [1, K, SIZE].
		{"testdata/heads/row_store.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			var out []float64
			for r := 0; r < 2; r++ {
				for k := 0; k < 3; k++ {
					out = append(out, in["x"].Row(r)...)
				}
			}
			return map[string][]float64{"y": out}
		}},
		// pl.slice, pl.add, pl.assemble in a kernel: y == x + 1.
		{"testdata/heads/tensor_ops.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			out := make([]float64, len(in["x"].Floats()))
			for i, v := range in["x"].Floats() {
				out[i] = float64(float32(v + 1))
			}
			return map[string][]float64{"y": out}
		}},
		// [NR, 1, NR * SIZE] at the host: every rank holds all of x.
		{"testdata/heads/gather_shape.py", "host_orch", 4, func(in map[string]*emu.Tensor) map[string][]float64 {
			var out []float64
			for r := 0; r < 4; r++ {
				out = append(out, in["x"].Floats()...)
			}
			return map[string][]float64{"y": out}
		}},
		// Slice assignment into a window and a slice read back: y[r] is
		// the bottom half of x[r].
		{"testdata/heads/slice_subscripts.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			var out []float64
			for r := 0; r < 2; r++ {
				out = append(out, in["x"].Row(r)[8*64:]...)
			}
			return map[string][]float64{"y": out}
		}},
		// pl.tensor.add of whole tensors: y == 2x.
		{"testdata/heads/tensor_add.py", "host_orch", 2, func(in map[string]*emu.Tensor) map[string][]float64 {
			out := make([]float64, len(in["x"].Floats()))
			for i, v := range in["x"].Floats() {
				out[i] = float64(float32(v + v))
			}
			return map[string][]float64{"y": out}
		}},
	}
	for _, c := range cases {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, sched := range []string{"fair", "adversarial"} {
			res := Load(context.Background(), c.file, src, Options{}).Run(context.Background(), RunOptions{Options: Options{Entry: c.entry, Ranks: c.ranks}, Fill: emu.FillRandn, Seed: 3, Schedule: sched})
			if res.Status != emu.StatusOK {
				t.Fatalf("%s %s: status %s, %v %v", c.file, sched, res.Status, res.Error, res.Diags)
			}
			for name, w := range c.want(res.In) {
				got := res.Out[name]
				if got == nil || len(got.Floats()) != len(w) {
					t.Fatalf("%s: output %s missing or of the wrong size", c.file, name)
				}
				for i := range w {
					if !floats.Close(got.Floats()[i], w[i]) {
						t.Fatalf("%s %s: %s[%d] = %g, want %g", c.file, sched, name, i, got.Floats()[i], w[i])
					}
				}
			}
		}
	}
}
