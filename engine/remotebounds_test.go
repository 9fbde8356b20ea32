package engine_test

import (
	"context"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// dynamicPull reads the row after its own from the next rank's window of
// NR rows: an offset known only at run time, which neither the checker nor
// PyPTO's compiler can bound, so the last rank reads row NR.
const dynamicPull = `import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
SIZE = 16


@pl.program
class Pull:
    @pl.function(type=pl.FunctionType.InCore)
    def pull(
        self,
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        data: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        ctx = pld.get_comm_ctx(data)
        me = pld.rank(ctx)
        n = pld.nranks(ctx)
        peer = (me + 1) % n
        t = pld.tile.remote_load(data, peer, [me + 1, 0], [1, SIZE])
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        data: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    ) -> pl.Tensor[[1, SIZE], pl.FP32]:
        return self.pull(y, data)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    ) -> pl.Tensor[[NR, 1, SIZE], pl.FP32]:
        buf = pld.alloc_window_buffer([NR, SIZE], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            data = pld.window(buf, [NR, SIZE], dtype=pl.FP32)
            self.chip(y[r], data, device=r)
        return y
`

// TestRemoteLoadDynamicBounds: the checker accepts the program (as PyPTO
// does), and the run stops at the out-of-bounds read with E0502, the rank
// and line that made it and the window's shape, instead of reading past it.
func TestRemoteLoadDynamicBounds(t *testing.T) {
	for _, p := range []int{2, 3} {
		res := engine.Load(context.Background(), "pull.py", []byte(dynamicPull), engine.Options{}).Run(context.Background(), engine.RunOptions{Options: engine.Options{Ranks: p, Entry: "Pull.host"}})
		if res.Diags.HasErrors() {
			t.Fatalf("P=%d: check: %v", p, res.Diags)
		}
		e := res.Error
		if res.Status != emu.StatusRuntimeError || e == nil {
			t.Fatalf("P=%d: status %s, error %+v; want a run-time error", p, res.Status, e)
		}
		want := "reads [" + string(rune('0'+p)) + ":" + string(rune('0'+p+1)) + ", 0:16]"
		if e.Code != "E0502" || e.Rank != p-1 || e.Line != 20 || !strings.Contains(e.Message, want) || !strings.Contains(e.Message, "outside it") {
			t.Errorf("P=%d: got %s at rank %d line %d: %q; want E0502 at rank %d line 20 saying %q", p, e.Code, e.Rank, e.Line, e.Message, p-1, want)
		}
	}
}
