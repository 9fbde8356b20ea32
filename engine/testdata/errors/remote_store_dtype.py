#! entry: push_right
#! ranks: 2

"""remote_store copies a tile as it is: the tile's dtype must match the window's.

The tile holds FP32 values; the window was declared FP16.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def push(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pld.DistributedTensor[[1, SIZE], pl.FP16],
    sig: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(box)
    right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    mine = pl.load(x, [0, 0], [1, SIZE])
    y = pl.store(mine, [0, 0], y)
    pld.tile.remote_store(mine, box, right, [0, 0])  ### "dtype"
    sig = pld.tensor.barrier(sig)
    return y


@pl.jit
def push_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    box: pld.DistributedTensor[[1, SIZE], pl.FP16],
    sig: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return push(x, y, box, sig)


@pl.jit.host
def push_right(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    box_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP16)
    sig_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        box = pld.window(box_buf, [1, SIZE], dtype=pl.FP16)
        sig = pld.window(sig_buf, [N_RANKS, 1], dtype=pl.INT32)
        push_dev(x[r], y[r], box, sig, device=r)
