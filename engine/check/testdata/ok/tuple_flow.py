#! entry: TupleFlow.host
#! ranks: 2

"""Tuple results carry values from one call to the next.

split returns two tensors as a tuple; the orchestrator unpacks one call's
result, holds another's in one name and indexes it, and hands the elements
on to combine: out = 2x + ((x - 1) + 2x) = 5x - 1 only if each element
reaches the right parameter.
"""

import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class TupleFlow:
    @pl.function(type=pl.FunctionType.InCore)
    def split(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        two: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        less: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> tuple[pl.Tensor[[1, 64], pl.FP32], pl.Tensor[[1, 64], pl.FP32]]:
        t = pl.load(x, [0, 0], [1, 64])
        a = pl.store(pl.add(t, t), [0, 0], two)
        b = pl.store(pl.sub(t, 1.0), [0, 0], less)
        return a, b

    @pl.function(type=pl.FunctionType.InCore)
    def combine(
        self,
        p: pl.Tensor[[1, 64], pl.FP32],
        q: pl.Tensor[[1, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        s = pl.add(pl.load(p, [0, 0], [1, 64]), pl.load(q, [0, 0], [1, 64]))
        return pl.store(s, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        two: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        less: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
        out: pl.Out[pl.Tensor[[1, 64], pl.FP32]],
    ) -> pl.Tensor[[1, 64], pl.FP32]:
        two, less = self.split(x, two, less)
        mid = self.combine(less, two, out)
        pair = self.split(x, two, less)
        first = pair[0]
        return self.combine(first, mid, mid)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[2, 1, 64], pl.FP32],
        two: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
        less: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
        out: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]],
    ):
        for r in pl.range(pld.world_size()):
            self.orch(x[r], two[r], less[r], out[r], device=r)
