#! entry: build_wide({P}).host_orch
#! ranks: 2

"""core_num asks for AIV cores per rank; the 910B profile has 48 of them.

A grid larger than the cores a rank owns could never be admitted, so the
compiler refuses it instead of hanging: ask for at most 48.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N = 4096


def build_wide(nr: int):
    @pl.program
    class Wide:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(
            self,
            x: pl.Tensor[[1, N], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, N], pl.FP32]],
        ) -> pld.DistributedTensor[[1, N], pl.FP32]:
            data = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], data)
            return data

        @pl.function(type=pl.FunctionType.InCore)
        def drain(
            self,
            data: pld.DistributedTensor[[1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
        ) -> pl.Tensor[[1, N], pl.FP32]:
            return pl.store(pl.load(data, [0, 0], [1, N]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def fill_dev(
            self,
            x: pl.Tensor[[1, N], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, N], pl.FP32]],
        ) -> pld.DistributedTensor[[1, N], pl.FP32]:
            return self.fill(x, data)

        @pl.function(type=pl.FunctionType.Orchestration)
        def drain_dev(
            self,
            data: pld.DistributedTensor[[1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
        ) -> pl.Tensor[[1, N], pl.FP32]:
            return self.drain(data, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, N], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, N], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, N], pl.FP32]:
            data_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, N], dtype=pl.FP32)
                self.fill_dev(x[r], data, device=r)
            data = pld.window(data_buf, [1, N], dtype=pl.FP32)
            data = pld.tensor.allreduce(data, op=pld.ReduceOp.Sum, core_num=64)  ### "E0259 core_num=64 exceeds the 48 AIV cores of platform 910B"
            for r in pl.range(pld.world_size()):
                self.drain_dev(data, y[r], device=r)
            return y

    return Wide
