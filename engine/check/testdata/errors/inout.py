# PyPTO's InOut use discipline: a variable passed as pl.InOut/pl.Out to a
# DSL call is read again only through the call's result.
#! entry: Prog.driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    ) -> pld.DistributedTensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
        data = pl.store(t, [0, 0], data)
        return data

    @pl.function(type=pl.FunctionType.Orchestration)
    def fill_dev(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        data: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]],
    ) -> pld.DistributedTensor[[1, 8], pl.FP32]:
        return self.fill(x, data)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def driver(self, x: pl.Tensor[[4, 1, 8], pl.FP32]) -> pl.Tensor[[4, 1, 8], pl.FP32]:
        data_buf = pld.alloc_window_buffer([1, 8], dtype=pl.FP32)
        data = pld.window(data_buf, [1, 8], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            self.fill_dev(x[r], data, device=r)  ### "^E0233 data was passed as InOut/Out at line \d+; read the call's result"
        return x
---
#! entry: Prog.driver
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 8])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def twice(
        self,
        y: pl.Tensor[[1, 8], pl.FP32],
        z: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(y, [0, 0], [1, 8])
        z = pl.store(t, [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev(
        self,
        x: pl.Tensor[[1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
        z: pl.Out[pl.Tensor[[1, 8], pl.FP32]],
    ) -> pl.Tensor[[1, 8], pl.FP32]:
        self.fill(x, y)
        z = self.twice(y, z)  ### "^E0233 y was passed as InOut/Out at line \d+"
        return z

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def driver(
        self,
        x: pl.Tensor[[4, 1, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]],
        z: pl.Out[pl.Tensor[[4, 1, 8], pl.FP32]],
    ) -> pl.Tensor[[4, 1, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            self.dev(x[r], y[r], z[r], device=r)
        return z
