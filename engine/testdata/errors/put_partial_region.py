#! entry: push_left
#! ranks: 2

"""A sub-region put needs all three of dst_offsets, src_offsets and shape.

Give none of them to copy the whole slice, or all three to copy a region.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def push(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(inbox)
    left = (pld.rank(ctx) + pld.nranks(ctx) - 1) % pld.nranks(ctx)
    pld.tensor.put(inbox, peer=left, src=x, dst_offsets=[0, 0])  ### "together|src_offsets"
    pld.system.notify(bell, left, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    y = pl.store(pl.load(inbox, [0, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit
def push_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return push(x, y, inbox, bell)


@pl.jit.host
def push_left(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        push_dev(x[r], y[r], inbox, bell, device=r)
