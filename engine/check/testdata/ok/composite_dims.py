# Arithmetic on pl.dynamic dimensions in kernel signatures: every tensor
# holds HALF * 2 (or HALF + HALF) rows, so one name, HALF, sizes both
# halves and the whole: y = [top + bottom; top - bottom]. A run binds HALF
# from the tensors it is handed (HALF * 2 = rows), or at the rank count.
#! entry: Halves.host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

HALF = pl.dynamic("HALF")


@pl.program
class Halves:
    @pl.function(type=pl.FunctionType.InCore)
    def fold(
        self,
        x: pl.Tensor[[HALF * 2, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[HALF + HALF, 8], pl.FP32]],
    ) -> pl.Tensor[[HALF + HALF, 8], pl.FP32]:
        top = pl.load(x, [0, 0], [2, 8])
        bottom = pl.load(x, [2, 0], [2, 8])
        pl.store(pl.add(top, bottom), [0, 0], y)
        return pl.store(pl.sub(top, bottom), [2, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        x: pl.Tensor[[HALF * 2, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[HALF + HALF, 8], pl.FP32]],
    ) -> pl.Tensor[[HALF + HALF, 8], pl.FP32]:
        return self.fold(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[2, HALF * 2, 8], pl.FP32],
        y: pl.Out[pl.Tensor[[2, HALF + HALF, 8], pl.FP32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(x[r], y[r], device=r)
