# A SubWorker callback of whole-tensor arithmetic runs: two chip tasks
# square and double x, and the host's blend callback combines their
# results, out = sq * twice - (sq + twice), written as torch arithmetic. The
# emulator runs it as the DSL it means (W0309).
#! entry: Blend.host_orch
#! ranks: 1
import pypto.language as pl
import torch


@pl.program
class Blend:
    @pl.function(type=pl.FunctionType.InCore)
    def square(self, x: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [8, 32])
        return pl.store(pl.mul(t, t), [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [8, 32])
        return pl.store(pl.add(t, t), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def do_square(self, x: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        return self.square(x, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def do_double(self, x: pl.Tensor[[8, 32], pl.FP32], y: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        return self.double(x, y)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def blend(
        sq: pl.Tensor[[8, 32], pl.FP32],
        twice: pl.Tensor[[8, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
    ) -> pl.Tensor[[8, 32], pl.FP32]:
        """out = sq * twice - (sq + twice)"""
        prod = torch.mul(sq, twice)
        out[:] = prod - (sq + twice)
        return out

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        x: pl.Tensor[[8, 32], pl.FP32],
        out: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
    ) -> pl.Tensor[[8, 32], pl.FP32]:
        sq_buf: pl.Tensor[[8, 32], pl.FP32] = pl.create_tensor([8, 32], dtype=pl.FP32)
        twice_buf: pl.Tensor[[8, 32], pl.FP32] = pl.create_tensor([8, 32], dtype=pl.FP32)
        sq: pl.Tensor[[8, 32], pl.FP32] = self.do_square(x, sq_buf)
        twice: pl.Tensor[[8, 32], pl.FP32] = self.do_double(x, twice_buf)
        done: pl.Tensor[[8, 32], pl.FP32] = self.blend(sq, twice, out)  ### "^W0309 SubWorker callback blend runs here as the DSL it means"
        return done
