#! entry: build_shapes({P}, 2, 24, "mesh", "sum").host_orch
#! entry: build_shapes({P}, 2, 24, "ring", "max").host_orch
#! entry: build_shapes({P}, 1, 5000, "mesh", "min").host_orch
#! entry: build_shapes({P}, 1, 5000, "ring", "sum").host_orch
#! entry: build_shapes({P}, 4, 8, "mesh", "prod").host_orch
#! ranks: 2 3 4 5
#! golden: y[r] == the element-wise reduction (sum, max, min or prod) over q of x[q], for every rank r (FP32)

"""Allreduce targets that are not one short row.

A [rows, cols] window is reduced as one stream of rows*cols elements: the
builtin views it as [1, rows*cols]. 5000 floats are more than one 16 KiB
chunk, so the mesh schedule takes two chunks, the second one partly
valid; the ring schedule cuts 5000 into segments of floor(i*5000/P).
Every reduction operator is allowed in both modes.
"""

import pypto.language as pl
import pypto.language.distributed as pld

OPS = {"sum": pld.ReduceOp.Sum, "max": pld.ReduceOp.Max, "min": pld.ReduceOp.Min, "prod": pld.ReduceOp.Prod}


def build_shapes(nr: int, rows: int, cols: int, mode: str, op: str):
    """One allreduce of a [rows, cols] window over ``nr`` ranks."""
    reduce = OPS[op]
    if mode == "ring":
        srows, scols = 2 * (nr - 1), nr
    else:
        srows, scols = nr, 1

    @pl.program
    class Shapes:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_block(
            self,
            x: pl.Tensor[[rows, cols], pl.FP32],
            y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[rows, cols], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[srows, scols], pl.INT32]],
        ) -> pl.Tensor[[rows, cols], pl.FP32]:
            mine = pl.load(x, [0, 0], [rows, cols])
            acc = pl.store(mine, [0, 0], acc)
            acc = pld.tensor.allreduce(acc, sig, op=reduce, mode=mode)
            done = pl.load(acc, [0, 0], [rows, cols])
            return pl.store(done, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev(
            self,
            x: pl.Tensor[[rows, cols], pl.FP32],
            y: pl.Out[pl.Tensor[[rows, cols], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[rows, cols], pl.FP32]],
            sig: pl.InOut[pld.DistributedTensor[[srows, scols], pl.INT32]],
        ) -> pl.Tensor[[rows, cols], pl.FP32]:
            return self.reduce_block(x, y, acc, sig)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(
            self,
            x: pl.Tensor[[nr, rows, cols], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, rows, cols], pl.FP32]],
        ) -> pl.Tensor[[nr, rows, cols], pl.FP32]:
            acc_buf = pld.alloc_window_buffer([rows, cols], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([srows, scols], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [rows, cols], dtype=pl.FP32)
                sig = pld.window(sig_buf, [srows, scols], dtype=pl.INT32)
                self.dev(x[r], y[r], acc, sig, device=r)
            return y

    return Shapes
