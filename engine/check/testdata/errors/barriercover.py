# PyPTO's MaterializeCommDomainScopes gives a HOST barrier the chips its
# signal buffer is dispatched to: a barrier whose signal no device=
# dispatch receives (as a pld.window view) has no comm domain.
#! entry: Prog.host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        box: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]],
    ) -> pld.DistributedTensor[[1, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [1, 64])
        return pl.store(t, [0, 0], box)

    @pl.function(type=pl.FunctionType.Orchestration)
    def dev_fill(
        self,
        x: pl.Tensor[[1, 64], pl.FP32],
        box: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]],
    ) -> pld.DistributedTensor[[1, 64], pl.FP32]:
        return self.fill(x, box)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self, x: pl.Tensor[[2, 1, 64], pl.FP32]):
        box_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)
        done_buf = pld.alloc_window_buffer([2], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            box = pld.window(box_buf, [1, 64], dtype=pl.FP32)
            self.dev_fill(x[r], box, device=r)
        done = pld.window(done_buf, [2], dtype=pl.INT32)
        done = pld.tensor.barrier(done)  ### "^E0263 HOST pld.tensor.barrier signal done: no pld.window view of its buffer done_buf is handed to a device= dispatch"
