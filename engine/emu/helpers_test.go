package emu_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
)

// compile checks src and returns the program of entry at ranks, failing
// the test on any diagnostic error.
func compile(t testing.TB, name, src, entry string, ranks int) *ir.Program {
	t.Helper()
	res := engine.Load(context.Background(), name, []byte(src), engine.Options{}).Check(context.Background(), engine.Options{Entry: entry, Ranks: ranks})
	if res.Diags.HasErrors() {
		t.Fatalf("%s %s at P=%d does not check:\n%s", name, entry, ranks, diag.RenderAll(res.Diags, []byte(src)))
	}
	for _, u := range res.Units {
		if u.Program != nil {
			return u.Program
		}
	}
	t.Fatalf("%s %s: no host program", name, entry)
	return nil
}

// compileFile is compile on a file.
func compileFile(t testing.TB, path, entry string, ranks int) *ir.Program {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return compile(t, path, string(src), entry, ranks)
}

// fill makes the inputs of every non-Out host tensor parameter: "index"
// (element i = i) or "randn" (standard normals from seed).
func fill(prog *ir.Program, how string, seed uint64) map[string]*emu.Tensor {
	in := map[string]*emu.Tensor{}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for _, p := range emu.HostParams(prog) {
		if p.Scalar || p.Dir == ir.Out {
			continue
		}
		if how == "index" {
			in[p.Name] = emu.Iota(p.DType, p.Shape...)
			continue
		}
		t := emu.Zeros(p.DType, p.Shape...)
		for i := range t.Floats() {
			t.Set(rng.NormFloat64(), flatToIndex(p.Shape, i)...)
		}
		in[p.Name] = t
	}
	return in
}

func flatToIndex(shape []int, i int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		idx[k] = i % shape[k]
		i /= shape[k]
	}
	return idx
}

// run runs prog with inputs and no other option.
func run(t testing.TB, prog *ir.Program, inputs map[string]*emu.Tensor) *emu.Result {
	t.Helper()
	return emu.Run(context.Background(), prog, emu.Options{Inputs: inputs})
}

// mustOK fails the test unless res ended ok.
func mustOK(t testing.TB, what string, res *emu.Result) {
	t.Helper()
	if res.Status != emu.StatusOK {
		msg := ""
		if res.Error != nil {
			msg = res.Error.Error()
		}
		t.Fatalf("%s: status %s, want ok: %s", what, res.Status, msg)
	}
}

// allclose reports whether got matches want within torch's default-ish
// tolerance |got - want| <= atol + rtol*|want|, and the first mismatch.
func allclose(got, want []float64, rtol, atol float64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > atol+rtol*math.Abs(want[i]) || math.IsNaN(got[i]) != math.IsNaN(want[i]) {
			return i, false
		}
	}
	return 0, true
}

// expectClose fails when got and want differ beyond tolerance.
func expectClose(t testing.TB, what string, got *emu.Tensor, want []float64, rtol, atol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no output", what)
		return
	}
	if i, ok := allclose(got.Floats(), want, rtol, atol); !ok {
		if i < 0 {
			t.Errorf("%s: %d values, want %d", what, len(got.Floats()), len(want))
			return
		}
		t.Errorf("%s: element %v is %v, want %v", what, flatToIndex(got.Shape, i), got.Floats()[i], want[i])
	}
}

// rows splits a [P, ...] tensor's data into P rows.
func rows(t *emu.Tensor) [][]float64 {
	out := make([][]float64, t.Shape[0])
	for r := range out {
		out[r] = t.Row(r)
	}
	return out
}

// f32 rounds v to float32, as an FP32 tensor holds it.
func f32(v float64) float64 { return float64(float32(v)) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
