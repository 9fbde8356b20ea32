#! entry: copy_all
#! ranks: 2

"""A misspelt operation: pl.lod is not in the pl namespace (pl.load is)."""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def copy(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    t = pl.lod(x, [0, 0], [1, SIZE])  ### "lod"
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def copy_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return copy(x, y)


@pl.jit.host
def copy_all(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        copy_dev(x[r], y[r], device=r)
