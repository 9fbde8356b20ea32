# `with pl.at(...)` scopes, upstream's all-levels-inline form: each
# pl.at(CORE_GROUP) scope becomes an InCore kernel, its pl.at(CHIP) scope a
# chip orchestration, and the names the body assigns come back to the host.
#! entry: Inline.host_orch
#! ranks: 1
import pypto.language as pl


@pl.program
class Inline:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 64], pl.FP32],
        b: pl.Tensor[[16, 64], pl.FP32],
        total: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        diff: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator):
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.add(a, b)
                total = pl.assemble(total, s, [0, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                d = pl.sub(a, b)
                diff = pl.assemble(diff, pl.mul(d, 2.0), [0, 0])
        return total
