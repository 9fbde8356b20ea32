# A pl.Array passed from the orchestration function that fills it to the
# kernel that reads it: PyPTO's orchestration codegen keeps the array on
# the C stack and hands it to the task; the emulator passes its value.
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class ArrayParam:
    @pl.function(type=pl.FunctionType.InCore)
    def pick(
        self,
        x: pl.Tensor[[4, 8], pl.FP32],
        rows: pl.Array[2, pl.INT32],
        out: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
    ) -> pl.Tensor[[2, 8], pl.FP32]:
        first = pl.load(x, [rows[0], 0], [1, 8])
        out = pl.store(first, [0, 0], out)
        second = pl.load(x, [rows[1], 0], [1, 8])
        out = pl.store(second, [1, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def pick_dev(
        self,
        x: pl.Tensor[[4, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[2, 8], pl.FP32]],
    ) -> pl.Tensor[[2, 8], pl.FP32]:
        rows = pl.array.create(2, pl.INT32)
        rows[0] = 3
        rows[1] = 1
        return self.pick(x, rows, out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self, x: pl.Tensor[[2, 4, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 2, 8], pl.FP32]]) -> pl.Tensor[[2, 2, 8], pl.FP32]:
        for r in pl.range(pld.world_size()):
            o = self.pick_dev(x[r], out[r], device=r)
        return out
