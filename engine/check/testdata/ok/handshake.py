# Point-to-point moves with a hand-rolled handshake: a subregion put, a
# whole-tensor get, Set/Eq signalling, names bound on both branches of an
# if, and an elif chain on run-time values.
#! entry: build(4).host
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

SPAN = 16


def build(nr: int):
    @pl.program
    class Handshake:
        @pl.function(type=pl.FunctionType.InCore)
        def move(
            self,
            x: pl.Tensor[[nr, SPAN], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SPAN], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SPAN], pl.FP32]],
            mirror: pl.InOut[pld.DistributedTensor[[nr, SPAN], pl.FP32]],
            flag: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SPAN], pl.FP32]:
            ctx = pld.get_comm_ctx(inbox)
            me = pld.rank(ctx)
            n = pld.nranks(ctx)
            nxt = (me + 1) % n
            prv = (me + n - 1) % n
            pld.tensor.put(inbox, nxt, x, [me, 0], [me, 0], [1, SPAN])
            pld.system.notify(flag, nxt, [0, 0], 1, op=pld.NotifyOp.Set)
            pld.system.wait(flag, [0, 0], 1, cmp=pld.WaitCmp.Eq)
            pld.tensor.get(mirror, prv, inbox)
            if me == 0:
                row = prv
            elif me < 2:
                row = me + 0
            else:
                row = nxt
            t = pl.load(mirror, [row, 0], [1, SPAN])
            y = pl.store(t, [me, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(
            self,
            x: pl.Tensor[[nr, SPAN], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, SPAN], pl.FP32]],
            inbox: pl.InOut[pld.DistributedTensor[[nr, SPAN], pl.FP32]],
            mirror: pl.InOut[pld.DistributedTensor[[nr, SPAN], pl.FP32]],
            flag: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, SPAN], pl.FP32]:
            return self.move(x, y, inbox, mirror, flag)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(
            self,
            x: pl.Tensor[[nr, nr, SPAN], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, SPAN], pl.FP32]],
        ) -> pl.Tensor[[nr, nr, SPAN], pl.FP32]:
            inbox_mem = pld.alloc_window_buffer([nr, SPAN], dtype=pl.FP32)
            mirror_mem = pld.alloc_window_buffer([nr, SPAN], dtype=pl.FP32)
            flag_mem = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                inbox = pld.window(inbox_mem, [nr, SPAN], dtype=pl.FP32)
                mirror = pld.window(mirror_mem, [nr, SPAN], dtype=pl.FP32)
                flag = pld.window(flag_mem, [1, 1], dtype=pl.INT32)
                self.chip(x[r], y[r], inbox, mirror, flag, device=r)
            return y

    return Handshake
