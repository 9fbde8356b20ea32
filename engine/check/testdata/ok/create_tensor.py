# pl.create_tensor: an intermediate the host makes and hands to two chip
# tasks in turn (upstream's parallel_reduce), and one a chip orchestration
# makes with an init_value.
#! entry: Made.host_orch
#! ranks: 1
import pypto.language as pl


@pl.program
class Made:
    @pl.function(type=pl.FunctionType.InCore)
    def add(
        self,
        a: pl.Tensor[[16, 64], pl.FP32],
        b: pl.Tensor[[16, 64], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [16, 64]), pl.load(b, [0, 0], [16, 64]))
        return pl.store(t, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def sum_orch(
        self,
        a: pl.Tensor[[16, 64], pl.FP32],
        b: pl.Tensor[[16, 64], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        return self.add(a, b, f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def plus_half_orch(
        self,
        a: pl.Tensor[[16, 64], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        half = pl.create_tensor([16, 64], dtype=pl.FP32, init_value=0.5)
        return self.add(a, half, f)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 64], pl.FP32],
        b: pl.Tensor[[16, 64], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        mid: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
        mid = self.sum_orch(a, b, mid)
        out = self.plus_half_orch(mid, f)
        return out
