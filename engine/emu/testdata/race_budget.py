#! entry: build_many_ranges(65536).many_host
#! ranks: 2
"""A program whose race detector holds far more than its data.

build_many_ranges(n): every rank stores one 8-float tile at each of n
offsets of its own window, notifying its own signal cell after each, so
every store is in an epoch of its own and no two stores' shadow segments
merge: the detector keeps n segments a rank, about 64 bytes each, for a
window of 32 bytes each.
"""

import pypto.language as pl
import pypto.language.distributed as pld


def build_many_ranges(n: int):
    """n stores of 8 floats per rank, each in its own epoch."""
    size = 8 * n

    @pl.program
    class ManyRanges:
        @pl.function(type=pl.FunctionType.InCore)
        def many_step(
            self,
            x: pl.Tensor[[1, 8], pl.FP32],
            y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        ) -> pl.Tensor[[1, 8], pl.FP32]:
            ctx = pld.get_comm_ctx(data)
            me = pld.rank(ctx)
            t = pl.load(x, [0, 0], [1, 8])
            for i in pl.range(n):
                data = pl.store(t, [0, 8 * i], data)
                pld.system.notify(sig, me, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            y = pl.store(t, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def many_dev(
            self,
            x: pl.Tensor[[1, 8], pl.FP32],
            y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
        ) -> pl.Tensor[[1, 8], pl.FP32]:
            return self.many_step(x, y, data, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def many_host(
            self,
            x: pl.Tensor[[2, 1, 8], pl.FP32],
            y: pl.Out[pl.Tensor[[2, 1, 8], pl.FP32]],
        ) -> pl.Tensor[[2, 1, 8], pl.FP32]:
            data_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, size], dtype=pl.FP32)
                sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
                self.many_dev(x[r], y[r], data, sig, device=r)
            return y

    return ManyRanges
