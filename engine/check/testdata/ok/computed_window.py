# Window buffers and views whose extents are arithmetic on a pl.dynamic
# dimension computed in the host (NR % 3, NR - 3), as PyPTO keeps them: a
# symbolic extent the run computes from NR, here 1 at 4 ranks. Each rank
# puts its row into the next rank's window, rings its bell and reads the
# row its neighbour put: y[r] = x[(r - 1) % 4].
#! entry: Computed.host
#! ranks: 4
#! pypto: compiles
import pypto.language as pl
import pypto.language.distributed as pld

W = 16
NR = pl.dynamic("NR")


@pl.program
class Computed:
    @pl.function(type=pl.FunctionType.InCore)
    def pass_on(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[NR % 3, W], pl.FP32]],
        bell: pl.InOut[pld.DistributedTensor[[NR - 3, 1], pl.INT32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        ctx = pld.get_comm_ctx(box)
        nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        t = pl.load(x, [0, 0], [1, W])
        pld.tile.remote_store(t, target=box, peer=nxt, offsets=[0, 0])
        pld.system.notify(bell, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        got = pl.load(box, [0, 0], [1, W])
        return pl.store(got, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[NR % 3, W], pl.FP32]],
        bell: pl.InOut[pld.DistributedTensor[[NR - 3, 1], pl.INT32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        return self.pass_on(x, y, box, bell)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[NR, 1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]],
    ) -> pl.Tensor[[NR, 1, W], pl.FP32]:
        box_mem = pld.alloc_window_buffer([NR % 3, W], dtype=pl.FP32)
        bell_mem = pld.alloc_window_buffer((NR - 3) * pl.INT32.get_byte())
        for r in pl.range(pld.world_size()):
            box = pld.window(box_mem, [NR % 3, W], dtype=pl.FP32)
            bell = pld.window(bell_mem, [NR - 3, 1], dtype=pl.INT32)
            self.chip(x[r], y[r], box, bell, device=r)
        return y
