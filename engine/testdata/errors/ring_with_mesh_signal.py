#! entry: build_ring_reveal({P}).host_orch
#! ranks: 4

"""A ring all-reduce needs one signal row per round: [2 * (nr - 1), nr], not [nr, 1].

At 4 ranks the signal below is [4, 1]; mode="ring" wants [6, 4].
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


def build_ring_reveal(nr: int):
    @pl.program
    class RingReveal:
        @pl.function(type=pl.FunctionType.InCore)
        def step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            acc = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode="ring")  ### "ring"
            return pl.store(pl.load(acc, [0, 0], [1, SIZE]), [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.step(x, y, acc, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [nr, 1], dtype=pl.INT32)
                self.dev(x[r], y[r], acc, sig, device=r)
            return y

    return RingReveal
