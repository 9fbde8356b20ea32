#! entry: shift
#! ranks: 4

"""A pl.range loop variable named like the window it later reads.

The wait loop calls its variable ``stage``, the name of the window
parameter, so after the loop ``stage`` is the loop's index. The remote_load
that follows is the error (an index is not a window); before the fix the
checker dropped it and every statement after it, and the run ended ok with
zero outputs.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 4
SIZE = 64


@pl.jit.incore
def pull(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    right = (me + 1) % N_RANKS
    mine = pl.load(x, [0, 0], [1, SIZE])
    stage = pl.store(mine, [0, 0], stage)
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for stage in pl.range(N_RANKS):
        if stage != me:
            pld.system.wait(arrived, [stage, 0], 1, cmp=pld.WaitCmp.Ge)
    theirs = pld.tile.remote_load(stage, right, [0, 0], [1, SIZE])  ### "^E0408 stage is the INDEX scalar loop variable of line 35 here"
    y = pl.store(theirs, [0, 0], y)
    return y


@pl.jit
def pull_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[N_RANKS, 1], pl.INT32]],
):
    return pull(x, y, stage, arrived)


@pl.jit.host
def shift(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(N_RANKS):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [N_RANKS, 1], dtype=pl.INT32)
        pull_dev(x[r], y[r], stage, arrived, device=r)
