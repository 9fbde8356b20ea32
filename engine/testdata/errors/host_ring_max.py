#! entry: build_ring_peak({P}).host_orch
#! ranks: 4

"""Called from the host, the ring all-reduce only sums FP32.

The prebuilt host kernel for mode="ring" accumulates with additions; for a
maximum use mode="mesh" on the host, or call the builtin inside a kernel,
where every ReduceOp works in both modes.
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


def build_ring_peak(nr: int):
    rows = 2 * (nr - 1) + 1

    @pl.program
    class RingPeak:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
            return data

        @pl.function(type=pl.FunctionType.InCore)
        def drain(
            self,
            data: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return pl.store(pl.load(data, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def fill_dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
        ) -> pld.DistributedTensor[[1, SIZE], pl.FP32]:
            return self.fill(x, data)

        @pl.function(type=pl.FunctionType.Orchestration)
        def drain_dev(
            self,
            data: pld.DistributedTensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.drain(data, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([rows, nr], dtype=pl.INT32)
            sig = pld.window(sig_buf, [rows, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
                self.fill_dev(x[r], data, device=r)
            data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
            data = pld.tensor.allreduce(data, sig, op=pld.ReduceOp.Max, mode="ring")  ### "E0255 .*op=Sum only, got Max"
            for r in pl.range(pld.world_size()):
                self.drain_dev(data, y[r], device=r)
            return y

    return RingPeak
