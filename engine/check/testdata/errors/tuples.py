# Tuple results: unpacking into the wrong count and an index outside the
# tuple (PyPTO: TupleGetItemExpr index out of bounds).
#! entry: TupleSwap.host
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class TupleSwap:
    @pl.function(type=pl.FunctionType.InCore)
    def split(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tuple[pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        t = pl.load(x, [0, 0], [1, 64])
        h = pl.store(pl.add(t, t), [0, 0], hi)
        l = pl.store(pl.sub(t, t), [0, 0], lo)
        return h, l

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        a, b, c = self.split(x, hi, lo)  ### "^E0407 self.split returns 2 values \(pl.Tensor \[1, 64\] FP32, pl.Tensor \[1, 64\] FP32\), unpacked into 3 names$"
        return b, a

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[2, 1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(x[r], hi[r], lo[r], device=r)

---
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class TupleSwap:
    @pl.function(type=pl.FunctionType.InCore)
    def split(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tuple[pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        t = pl.load(x, [0, 0], [1, 64])
        h = pl.store(pl.add(t, t), [0, 0], hi)
        l = pl.store(pl.sub(t, t), [0, 0], lo)
        return h, l

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        t = self.split(x, hi, lo)
        a = t[0]
        b = t[2]  ### "^E0224 index 2 is outside a tuple of"
        return b, a

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[2, 1, 64], pl.FP32],
        hi: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
        lo: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(x[r], hi[r], lo[r], device=r)
