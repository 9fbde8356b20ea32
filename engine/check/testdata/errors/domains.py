# Device subsets: a window view passes to a parameter of another shape only
# when it holds as many elements (the kernel reads the buffer in its own
# shape); other shapes are refused.
#! entry: Pairs.host_orch
#! ranks: 3
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Pairs:
    @pl.function(type=pl.FunctionType.InCore)
    def touch(self, box: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
        t = pl.load(box, [0, 0], [1, 64])
        pl.store(t, [0, 0], box)

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, box: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]):
        self.touch(box)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[3, 1, 64], pl.FP32]):
        buf = pld.alloc_window_buffer(64 * pl.FP32.get_byte())
        for r in pl.range(1, 3):
            half = pld.window(buf, [32], dtype=pl.FP32)
            self.orch(half, device=r)  ### "^E0225 argument box of orch has shape \[32\], want \[1, 64\]$"
