#! entry: build_reuse({P}, "mesh").host_orch
#! entry: build_reuse({P}, "ring").host_orch
#! ranks: 2 3 4 5
#! golden: y[r, 0, k*SIZE + j] == P**k * (sum over q of x[q, 0, j]) for k = 0, 1, 2 (FP32)

"""One signal window serves three allreduces in a row.

The kernel reduces its slice, keeps the result, reduces the reduced window
again, and then once more inside a loop, all on the same signal. The InCore
builtin clears its signal before it returns, so every call starts from a
zero tally; the three results are S, P*S and P*P*S where S is the sum of
the inputs.
"""

import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


def build_reuse(nr: int, mode: str):
    """Three allreduces on one signal, in ``mode``, for ``nr`` ranks."""
    if mode == "ring":
        rows, cols = 2 * (nr - 1), nr
    else:
        rows, cols = nr, 1

    @pl.program
    class Reuse:
        @pl.function(type=pl.FunctionType.InCore)
        def thrice(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, 3 * SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, 3 * SIZE], pl.FP32]:
            mine = pl.load(x, [0, 0], [1, SIZE])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode=mode)
            once = pl.load(acc, [0, 0], [1, SIZE])
            y = pl.store(once, [0, 0], y)
            for k in pl.range(2):
                acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum, mode=mode)
                again = pl.load(acc, [0, 0], [1, SIZE])
                y = pl.store(again, [0, (k + 1) * SIZE], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, 3 * SIZE], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[rows, cols], pl.INT32]],
        ) -> pl.Tensor[[1, 3 * SIZE], pl.FP32]:
            return self.thrice(x, y, acc, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, 3 * SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, 3 * SIZE], pl.FP32]:
            acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([rows, cols], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
                sig = pld.window(sig_buf, [rows, cols], dtype=pl.INT32)
                self.dev(x[r], y[r], acc, sig, device=r)
            return y

    return Reuse
