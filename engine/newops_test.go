package engine_test

import (
	"context"
	"os"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// TestTupleResultsFlow runs a program whose tuple results feed later calls
// (unpacked, and held in one name and indexed): out is 5x - 1 only if every
// element reaches the parameter its position names.
func TestTupleResultsFlow(t *testing.T) {
	const file = "check/testdata/ok/tuple_flow.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	x, out := res.In["x"].Floats(), res.Out["out"].Floats()
	if len(x) != len(out) || len(x) == 0 {
		t.Fatalf("x has %d elements, out %d", len(x), len(out))
	}
	for i := range x {
		if want := 5*x[i] - 1; out[i] != want {
			t.Fatalf("out[%d] = %g, want 5*%g - 1 = %g", i, out[i], x[i], want)
		}
	}
}

// TestGemmTiles runs pl.tile.full, pl.move and pl.matmul: c[r] = a[r] @ b
// computed here from the run's own inputs, z filled with 7.
func TestGemmTiles(t *testing.T) {
	const file = "check/testdata/ok/gemm_tiles.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 2}})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	a, b, c := res.In["a"], res.In["b"], res.Out["c"]
	for r := 0; r < 2; r++ {
		for i := 0; i < 16; i++ {
			for j := 0; j < 16; j++ {
				var s float64
				for k := 0; k < 32; k++ {
					s += a.At(r, i, k) * b.At(k, j)
				}
				if got, want := c.At(r, i, j), float64(float32(s)); got != want {
					t.Fatalf("c[%d, %d, %d] = %g, want %g", r, i, j, got, want)
				}
			}
		}
	}
	for i, v := range res.Out["z"].Floats() {
		if v != 7 {
			t.Fatalf("z[%d] = %g, want 7 (pl.tile.full value=7)", i, v)
		}
	}
}

// TestAtScopes runs the outlined pl.at scopes: total = a + b and
// diff = 2 (a - b), each computed by its own outlined kernel.
func TestAtScopes(t *testing.T) {
	const file = "check/testdata/ok/at_scopes.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 1}, Fill: emu.FillRandn})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	a, b := res.In["a"].Floats(), res.In["b"].Floats()
	total, diff := res.Out["total"].Floats(), res.Out["diff"].Floats()
	for i := range a {
		if want := float64(float32(a[i] + b[i])); total[i] != want {
			t.Fatalf("total[%d] = %g, want a + b = %g", i, total[i], want)
		}
		if want := float64(float32(float32(a[i]-b[i]) * 2)); diff[i] != want {
			t.Fatalf("diff[%d] = %g, want 2 (a - b) = %g", i, diff[i], want)
		}
	}
}

// TestCreateTensor runs tensors made with pl.create_tensor at the host and
// (with init_value=0.5) in a chip orchestration: f = (a + b) + 0.5.
func TestCreateTensor(t *testing.T) {
	const file = "check/testdata/ok/create_tensor.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 1}, Fill: emu.FillRandn})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	a, b, f := res.In["a"].Floats(), res.In["b"].Floats(), res.Out["f"].Floats()
	for i := range a {
		if want := float64(float32(float32(a[i]+b[i]) + 0.5)); f[i] != want {
			t.Fatalf("f[%d] = %g, want (a + b) + 0.5 = %g", i, f[i], want)
		}
	}
}
