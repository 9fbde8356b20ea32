package engine_test

import (
	"context"
	"os"
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
		res := engine.Run(context.Background(), file, src, opts)
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
