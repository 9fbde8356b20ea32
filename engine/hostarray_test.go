package engine_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// hostArray builds a pl.array at the host of a @pl.jit program and hands
// each rank one element as a scalar (what PyPTO's host codegen compiles;
// handing over the array itself is E0236).
const hostArray = `import pypto.language as pl
import pypto.language.distributed as pld

RANKS = 2


@pl.jit.incore
def bias_add(
    src: pl.Tensor[[1, 8], pl.FP32],
    dst: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    bias: pl.Scalar[pl.INT32],
):
    t = pl.load(src, [0, 0], [1, 8])
    t = pl.add(t, pl.cast(bias, target_type=pl.FP32))
    dst = pl.store(t, [0, 0], dst)
    return dst


@pl.jit
def forward(
    src: pl.Tensor[[1, 8], pl.FP32],
    dst: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    bias: pl.Scalar[pl.INT32],
):
    return bias_add(src, dst, bias)


@pl.jit.host
def launch(
    src: pl.Tensor[[RANKS, 1, 8], pl.FP32],
    dst: pl.Out[pl.Tensor[[RANKS, 1, 8], pl.FP32]],
):
    biases = pl.array.create(2, pl.INT32)
    biases[0] = 5
    biases[1] = 7
    for r in pl.range(pld.world_size()):
        forward(src[r], dst[r], biases[r], device=r)
`

// TestHostArray: dst[r] = src[r] + biases[r], with biases = [5, 7] built
// at the host.
func TestHostArray(t *testing.T) {
	res := engine.Load(context.Background(), "bias.py", []byte(hostArray), engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: 2}, Fill: emu.FillIndex})
	if res.Status != emu.StatusOK {
		t.Fatalf("status %s, error %+v, diags %v", res.Status, res.Error, res.Diags)
	}
	src, dst := res.In["src"], res.Out["dst"]
	for r, bias := range []float64{5, 7} {
		for j := 0; j < 8; j++ {
			if got, want := dst.At(r, 0, j), src.At(r, 0, j)+bias; got != want {
				t.Fatalf("dst[%d, 0, %d] = %g, want %g", r, j, got, want)
			}
		}
	}
}

// TestHostArrayParamRefusedAtRun: a host orchestrator with a pl.Array
// parameter checks (PyPTO compiles it: check/testdata/ok/host_array_param.py
// is in the verdict test), and its run stops with E0510 naming the
// parameter, since the emulator passes a host only tensors and scalars.
func TestHostArrayParamRefusedAtRun(t *testing.T) {
	const file = "check/testdata/ok/host_array_param.py"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := engine.Load(context.Background(), file, src, engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Entry: "host"}})
	if res.Diags.HasErrors() || res.Status != emu.StatusRuntimeError || res.Error == nil || res.Error.Code != "E0510" ||
		!strings.Contains(res.Error.Message, "order") || !strings.Contains(res.Error.Message, "cannot pass in") {
		t.Fatalf("status %s, error %+v, diags %v; want a clean check and E0510 naming order", res.Status, res.Error, res.Diags)
	}
}
