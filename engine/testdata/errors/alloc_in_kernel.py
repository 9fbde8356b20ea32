#! entry: copy_all
#! ranks: 2

"""Window buffers are allocated by the host, once, before the rank loop.

A kernel cannot allocate one: every rank must own a copy at the same offset,
which only the host can arrange. Allocate on the host and pass a pld.window
view down.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def copy(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    scratch_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)  ### "alloc_window_buffer"
    y = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], y)
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
