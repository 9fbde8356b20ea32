# A host with no window buffer dispatches to any run-time rank number:
# a while-loop counter (d = 3 - q) and a computed rank of a pl.range
# variable (d = (r + 1) % 4), each named (its host codegen takes device=
# as a constant or a variable). PyPTO infers devices from device= only
# for window buffers (MaterializeCommDomainScopes), so a host that
# allocates one needs a constant or a pl.range variable (E0107, see
# errors/levels.py). The kernel adds its step number: y[q] = x[q] + q and
# z[r] = x[r] + 10 * r.
#! entry: WhileDevice.host
#! ranks: 4
#! pypto: compiles
import pypto.language as pl

W = 16


@pl.program
class WhileDevice:
    @pl.function(type=pl.FunctionType.InCore)
    def bump(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        step: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        t = pl.load(x, [0, 0], [1, W])
        t = pl.add(t, pl.cast(step, pl.FP32))
        return pl.store(t, [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(
        self,
        x: pl.Tensor[[1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[1, W], pl.FP32]],
        step: pl.Scalar[pl.INT32],
    ) -> pl.Tensor[[1, W], pl.FP32]:
        return self.bump(x, y, step)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(
        self,
        x: pl.Tensor[[4, 1, W], pl.FP32],
        y: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
        z: pl.Out[pl.Tensor[[4, 1, W], pl.FP32]],
    ) -> pl.Tensor[[4, 1, W], pl.FP32]:
        q = 0
        while q < 4:
            d = 3 - q
            self.chip(x[q], y[q], q, device=d)
            q = q + 1
        for r in pl.range(4):
            d = (r + 1) % 4
            self.chip(x[r], z[r], r * 10, device=d)
        return y
