#! entry: shift_all
#! ranks: 2

"""Dispatched signatures take every tensor before any scalar.

The kernel below puts the scalar rank_id between its two tensors. PyPTO
compiles it, and its runtime refuses the dispatch: "TaskArgs: cannot add
tensor after scalar". The workbench checks it clean and fails the run there.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def shift(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    rank_id: pl.Scalar[pl.INT32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    t = pl.add(pl.load(x, [0, 0], [1, SIZE]), pl.cast(rank_id, target_type=pl.FP32))
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def shift_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    rank_id: pl.Scalar[pl.INT32],
):
    return shift(x, rank_id, y)


@pl.jit.host
def shift_all(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        shift_dev(x[r], y[r], r, device=r)
