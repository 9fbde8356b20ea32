# pl.matmul's rule from PyPTO's type deduction (DeduceMatmulProductInfo):
# the inner dimensions agree.
#! entry: Gemm.host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Gemm:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(
        self,
        a: pl.Tensor[[16, 32], pl.FP32],
        b: pl.Tensor[[32, 16], pl.FP32],
        c: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        z: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        zero = pl.tile.full([1, 8], dtype=pl.INT32, value=7)
        pl.store(zero, [0, 0], z)
        ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        la = pl.move(ta, target_memory=pl.MemorySpace.Left)
        rb = pl.move(tb, target_memory=pl.MemorySpace.Right)
        tc = pl.matmul(la, rb)  ### "^E0210 pl.matmul of tile \[16, 32\] FP32 in Left and tile \[16, 16\] FP32 in Right: the inner dimensions 32 and 16 differ$"
        return pl.store(tc, [0, 0], c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        a: pl.Tensor[[16, 32], pl.FP32],
        b: pl.Tensor[[32, 16], pl.FP32],
        c: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        z: pl.Out[pl.Tensor[[1, 8], pl.INT32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.mm(a, b, c, z)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        a: pl.Tensor[[2, 16, 32], pl.FP32],
        b: pl.Tensor[[32, 16], pl.FP32],
        c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]],
        z: pl.Out[pl.Tensor[[2, 1, 8], pl.INT32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(a[r], b, c[r], z[r], device=r)
