# A pl.Role.SubWorker callback: plain Python the host runs between
# dispatches. The checker accepts it and warns that a run does not.
#! entry: Checked.host_orch
#! ranks: 1
import pypto.language as pl
import torch


@pl.program
class Checked:
    @pl.function(type=pl.FunctionType.InCore)
    def copy(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return pl.store(t, [0, 0], f)

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        return self.copy(a, f)

    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
    def verify(f: pl.Tensor[[16, 16], pl.FP32]):
        if not torch.isfinite(f).all():
            raise AssertionError("not finite")

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(
        self,
        a: pl.Tensor[[16, 16], pl.FP32],
        f: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
    ) -> pl.Tensor[[16, 16], pl.FP32]:
        out_f: pl.Tensor[[16, 16], pl.FP32] = self.chip_orch(a, f)
        self.verify(out_f)  ### "^W0304 SubWorker callback verify is plain Python that PyPTO runs on the host; the emulator does not run it \(it uses an if at line 30, outside the elementwise subset the workbench runs\)$"
        return out_f
