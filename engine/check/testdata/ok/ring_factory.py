# A factory-built @pl.program: the InCore ring allreduce composite with a
# [2*(nr-1), nr] signal, then a mesh variant with an [nr, 1] signal chosen by
# a compile-time flag.
#! entry: build_sum(4, True).host
#! ranks: 4
import pypto.language as pl
import pypto.language.distributed as pld

LEN = 128


def build_sum(nr: int, ring: bool):
    if ring:
        rows, cols, how = 2 * (nr - 1), nr, "ring"
    else:
        rows, cols, how = nr, 1, "mesh"

    @pl.program
    class SumAll:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(
            self,
            x: pl.Tensor[[1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
            buf: pl.InOut[pld.DistributedTensor[[1, LEN], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, LEN], pl.FP32]:
            staged = pl.load(x, [0, 0], [1, LEN])
            buf = pl.store(staged, [0, 0], buf)
            buf = pld.tensor.allreduce(buf, sig, op=pld.ReduceOp.Sum, mode=how)
            total = pl.load(buf, [0, 0], [1, LEN])
            return pl.store(total, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(
            self,
            x: pl.Tensor[[1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
            buf: pl.InOut[pld.DistributedTensor[[1, LEN], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, LEN], pl.FP32]:
            return self.reduce(x, y, buf, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(
            self,
            x: pl.Tensor[[nr, 1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, LEN], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, LEN], pl.FP32]:
            buf_mem = pld.alloc_window_buffer(LEN * pl.FP32.get_byte())
            sig_mem = pld.alloc_window_buffer([rows, cols], dtype=pl.INT32)
            for r in pl.range(nr):
                buf = pld.window(buf_mem, [1, LEN], dtype=pl.FP32)
                sig = pld.window(sig_mem, [rows, cols], dtype=pl.INT32)
                self.chip(x[r], y[r], buf, sig, device=r)
            return y

    return SumAll
---
#! entry: build_sum(2, False).host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

LEN = 128


def build_sum(nr: int, ring: bool):
    if ring:
        rows, cols, how = 2 * (nr - 1), nr, "ring"
    else:
        rows, cols, how = nr, 1, "mesh"

    @pl.program
    class SumAll:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(
            self,
            x: pl.Tensor[[1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
            buf: pl.InOut[pld.DistributedTensor[[1, LEN], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, LEN], pl.FP32]:
            staged = pl.load(x, [0, 0], [1, LEN])
            buf = pl.store(staged, [0, 0], buf)
            buf = pld.tensor.allreduce(buf, sig, op=pld.ReduceOp.Sum, mode=how)
            total = pl.load(buf, [0, 0], [1, LEN])
            return pl.store(total, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(
            self,
            x: pl.Tensor[[1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
            buf: pl.InOut[pld.DistributedTensor[[1, LEN], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, LEN], pl.FP32]:
            return self.reduce(x, y, buf, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(
            self,
            x: pl.Tensor[[nr, 1, LEN], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, LEN], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, LEN], pl.FP32]:
            buf_mem = pld.alloc_window_buffer(LEN * pl.FP32.get_byte())
            sig_mem = pld.alloc_window_buffer([rows, cols], dtype=pl.INT32)
            for r in pl.range(nr):
                buf = pld.window(buf_mem, [1, LEN], dtype=pl.FP32)
                sig = pld.window(sig_mem, [rows, cols], dtype=pl.INT32)
                self.chip(x[r], y[r], buf, sig, device=r)
            return y

    return SumAll
