# Device subsets: a dispatch loop over some of the ranks gives the window
# buffers it passes a communication domain of those ranks, numbered from 0.
# The pair {0, 1} swaps its values; the trio {1, 2, 3} hands each value on
# to the next member, counting members with pld.rank / pld.nranks of the
# window's comm context. Rank 1 is in both, with a window of each.
#! entry: Relay.host_orch
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

W = 16


@pl.program
class Relay:
    @pl.function(type=pl.FunctionType.InCore)
    def hand_on(
        self,
        mine: pl.Tensor[[1, W], pl.FP32],
        got: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
        bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        ctx = pld.get_comm_ctx(box)
        me = pld.rank(ctx)
        nxt = (me + 1) % pld.nranks(ctx)
        t = pl.load(mine, [0, 0], [1, W])
        pld.tile.remote_store(t, target=box, peer=nxt, offsets=[0, 0])
        pld.system.notify(bell, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        back = pl.load(box, [0, 0], [1, W])
        return pl.store(back, [0, 0], got)

    @pl.function(type=pl.FunctionType.Orchestration)
    def relay(
        self,
        mine: pl.Tensor[[1, W], pl.FP32],
        got: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        box: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]],
        bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        return self.hand_on(mine, got, box, bell)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        x: pl.Tensor[[4, 1, W], pl.FP32],
        from_pair: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
        from_trio: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
    ) -> pl.Tensor[[4, 1, W], pl.FP32]:
        pair_box = pld.alloc_window_buffer(W * pl.FP32.get_byte())
        pair_bell = pld.alloc_window_buffer(pl.INT32.get_byte())
        trio_box = pld.alloc_window_buffer(W * pl.FP32.get_byte())
        trio_bell = pld.alloc_window_buffer(pl.INT32.get_byte())
        for r in pl.range(2):
            box = pld.window(pair_box, [1, W], dtype=pl.FP32)
            bell = pld.window(pair_bell, [1, 1], dtype=pl.INT32)
            self.relay(x[r], from_pair[r], box, bell, device=r)
        for r in pl.range(1, 4):
            # A [W] view of the buffer: the kernel reads it as its [1, W].
            line = pld.window(trio_box, [W], dtype=pl.FP32)
            bell = pld.window(trio_bell, [1, 1], dtype=pl.INT32)
            self.relay(x[r], from_trio[r], line, bell, device=r)
        return from_pair
