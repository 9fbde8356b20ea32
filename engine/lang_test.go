package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestCompositeDims runs kernels whose signatures hold HALF * 2 and
// HALF + HALF rows: at the rank count (HALF = 2) and with HALF bound to 3
// by RunOptions.Dims, y[r] = [top + bottom; top - bottom; zeros] computed
// here from the run's own inputs, and every tensor has 2 * HALF rows.
func TestCompositeDims(t *testing.T) {
	const file = "check/testdata/ok/composite_dims.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, half := range []int{2, 3} {
		opts := engine.RunOptions{Options: engine.Options{Ranks: 2}}
		if half != 2 {
			opts.Dims = map[string]int64{"HALF": int64(half)}
		}
		res := engine.Load(context.Background(), file, src, opts.Options).Run(context.Background(), opts)
		if res.Status != emu.StatusOK {
			t.Fatalf("HALF=%d: status %s, error %+v, diags %v", half, res.Status, res.Error, res.Diags)
		}
		x, y := res.In["x"], res.Out["y"]
		if got := y.Shape; len(got) != 3 || got[1] != 2*half || x.Shape[1] != 2*half {
			t.Fatalf("HALF=%d: x %v, y %v, want [2, %d, 8]", half, x.Shape, got, 2*half)
		}
		for r := 0; r < 2; r++ {
			for i := 0; i < 2*half; i++ {
				for j := 0; j < 8; j++ {
					var want float64
					switch {
					case i < 2:
						want = x.At(r, i, j) + x.At(r, i+2, j)
					case i < 4:
						want = x.At(r, i-2, j) - x.At(r, i, j)
					}
					if got := y.At(r, i, j); got != float64(float32(want)) {
						t.Fatalf("HALF=%d: y[%d, %d, %d] = %g, want %g", half, r, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestArrayHistogram runs pl.array, pl.tile.create, pl.tile.row_sum and
// pl.tile.reshape in a program of our own: counts[r, 0, b] is how many of
// idx[r]'s entries are b modulo 4 and sums[r, 0, i] the sum of x[r]'s row
// i, computed here from the run's own inputs.
func TestArrayHistogram(t *testing.T) {
	const file = "check/testdata/ok/array_histogram.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 2}, Fill: emu.FillIndex})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	idx, x, counts, sums := res.In["idx"], res.In["x"], res.Out["counts"], res.Out["sums"]
	for r := 0; r < 2; r++ {
		want := make([]float64, 4)
		for i := 0; i < 16; i++ {
			v := int(idx.At(r, 0, i))
			want[v%4]++
		}
		for b := 0; b < 4; b++ {
			if got := counts.At(r, 0, b); got != want[b] {
				t.Errorf("counts[%d, 0, %d] = %g, want %g", r, b, got, want[b])
			}
		}
		for i := 0; i < 8; i++ {
			var s float64
			for j := 0; j < 8; j++ {
				s += x.At(r, i, j)
			}
			if got := sums.At(r, 0, i); got != float64(float32(s)) {
				t.Errorf("sums[%d, 0, %d] = %g, want %g", r, i, got, float32(s))
			}
		}
	}
}

// TestCompositeDimNotPositive: a host tensor whose composite dimension
// has no positive value at the run's rank count (M - 3 at 2 ranks) is a
// run-time error naming the tensor and the dimension, not a tensor of a
// negative size.
func TestCompositeDimNotPositive(t *testing.T) {
	const src = `import pypto.language as pl
import pypto.language.distributed as pld

M = pl.dynamic("M")


@pl.jit.incore
def zero(y: pl.Out[pl.Tensor[[M - 3, 8], pl.FP32]]):
    return y


@pl.jit
def zero_dev(y: pl.Out[pl.Tensor[[M - 3, 8], pl.FP32]]):
    return zero(y)


@pl.jit.host
def zero_host(y: pl.Out[pl.Tensor[[2, M - 3, 8], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        zero_dev(y[r], device=r)
`
	res := engine.Load(context.Background(), "negdim.py", []byte(src), engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 2}})
	if res.Status != emu.StatusRuntimeError || res.Error == nil || !strings.Contains(res.Error.Message, "host tensor y has dimension (M - 3) = -1 at 2 ranks, want > 0") {
		t.Fatalf("status %s, error %+v, diags %v; want the host tensor y refused for (M - 3) = -1", res.Status, res.Error, res.Diags)
	}
	res = engine.Load(context.Background(), "negdim.py", []byte(src), engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 2}, Dims: map[string]int64{"M": 5}})
	if res.Status != emu.StatusOK || len(res.Out["y"].Shape) != 3 || res.Out["y"].Shape[1] != 2 {
		t.Fatalf("with M = 5: status %s, error %+v; want y of shape [2, 2, 8]", res.Status, res.Error)
	}
}
