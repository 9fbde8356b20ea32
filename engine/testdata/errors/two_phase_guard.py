#! entry: build_two_phase_allreduce(3).two_phase_sum
#! ranks: 3

"""Three ranks cannot split 64 floats into equal chunks; the factory says so."""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


def build_two_phase_allreduce(nr: int):
    if SIZE % nr != 0:
        raise ValueError(f"SIZE={SIZE} does not split into equal chunks, got {nr}")  ### "got 3"
    chunk = SIZE // nr

    @pl.program
    class TwoPhase:
        @pl.function(type=pl.FunctionType.InCore)
        def step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            me = pld.rank(pld.get_comm_ctx(work))
            work = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], work)
            for p in pl.range(nr):
                if p != me:
                    pld.system.notify(phase, p, [0, me], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(nr):
                if p != me:
                    pld.system.wait(phase, [0, p], 1, cmp=pld.WaitCmp.Ge)
            acc = pl.load(work, [0, me * chunk], [1, chunk])
            for p in pl.range(nr):
                if p != me:
                    acc = pl.add(acc, pld.tile.remote_load(work, p, [0, me * chunk], [1, chunk]))
            work = pl.store(acc, [0, me * chunk], work)
            for p in pl.range(nr):
                if p != me:
                    pld.system.notify(phase, p, [1, me], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(nr):
                if p != me:
                    pld.system.wait(phase, [1, p], 1, cmp=pld.WaitCmp.Ge)
            for c in pl.range(nr):
                y = pl.store(pld.tile.remote_load(work, c, [0, c * chunk], [1, chunk]), [0, c * chunk], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            work: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            phase: pl.InOut[pld.DistributedTensor[[2, nr], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.step(x, y, work, phase)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def two_phase_sum(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            work_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            phase_buf = pld.alloc_window_buffer([2, nr], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                work = pld.window(work_buf, [1, SIZE], dtype=pl.FP32)
                phase = pld.window(phase_buf, [2, nr], dtype=pl.INT32)
                self.dev(x[r], y[r], work, phase, device=r)
            return y

    return TwoPhase
