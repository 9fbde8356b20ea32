#! entry: ring_deadlock
#! entry: negative_peer
#! entry: runaway
#! entry: out_of_bounds
#! entry: divide_by_zero
#! ranks: 4
"""Programs that must fail, each in its own way.

ring_deadlock: every rank waits for its left neighbour before notifying its
right one, so nobody ever notifies. negative_peer: (me - 1) % n is -1 at
rank 0 because the device's % truncates toward zero. runaway: a loop of a
billion iterations. out_of_bounds: a load whose run-time offset runs past
the end of the slice. divide_by_zero: an integer // by a run-time zero.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8
S = 8


@pl.jit.incore
def wait_then_notify(ready: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(ready)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    left = (me + n - 1) % n
    right = (me + 1) % n
    pld.system.wait(ready, [left, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.system.notify(ready, right, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)


@pl.jit
def wait_then_notify_dev(ready: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]):
    wait_then_notify(ready)


@pl.jit.host
def ring_deadlock():
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        wait_then_notify_dev(ready, device=r)


@pl.jit.incore
def read_left(y: pl.Out[pl.Tensor[[1, S], pl.FP32]], slot: pld.DistributedTensor[[1, S], pl.FP32]):
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    left = (me - 1) % n
    got = pld.tile.remote_load(slot, left, [0, 0], [1, S])
    y = pl.store(got, [0, 0], y)
    return y


@pl.jit
def read_left_dev(y: pl.Out[pl.Tensor[[1, S], pl.FP32]], slot: pld.DistributedTensor[[1, S], pl.FP32]):
    return read_left(y, slot)


@pl.jit.host
def negative_peer(y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]]):
    slot_buf = pld.alloc_window_buffer([1, S], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, S], dtype=pl.FP32)
        read_left_dev(y[r], slot, device=r)


@pl.jit.incore
def spin(y: pl.Out[pl.Tensor[[1, S], pl.INT32]]):
    count = 0
    for i in pl.range(1000000000):
        count = count + 1
    pl.write(y, [0, 0], pl.cast(count, target_type=pl.INT32))
    return y


@pl.jit
def spin_dev(y: pl.Out[pl.Tensor[[1, S], pl.INT32]]):
    return spin(y)


@pl.jit.host
def runaway(y: pl.Out[pl.Tensor[[NR, 1, S], pl.INT32]]):
    for r in pl.range(pld.world_size()):
        spin_dev(y[r], device=r)


@pl.jit.incore
def overread(x: pl.Tensor[[1, S], pl.FP32], y: pl.Out[pl.Tensor[[1, S], pl.FP32]], start: pl.Scalar[pl.INDEX]):
    t = pl.load(x, [0, start], [1, S])
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def overread_dev(x: pl.Tensor[[1, S], pl.FP32], y: pl.Out[pl.Tensor[[1, S], pl.FP32]], start: pl.Scalar[pl.INDEX]):
    return overread(x, y, start)


@pl.jit.host
def out_of_bounds(x: pl.Tensor[[NR, 1, S], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, S], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        overread_dev(x[r], y[r], r, device=r)


@pl.jit.incore
def split(y: pl.Out[pl.Tensor[[1, S], pl.INT32]], parts: pl.Scalar[pl.INDEX]):
    share = 64 // parts
    pl.write(y, [0, 0], pl.cast(share, target_type=pl.INT32))
    return y


@pl.jit
def split_dev(y: pl.Out[pl.Tensor[[1, S], pl.INT32]], parts: pl.Scalar[pl.INDEX]):
    return split(y, parts)


@pl.jit.host
def divide_by_zero(y: pl.Out[pl.Tensor[[NR, 1, S], pl.INT32]]):
    for r in pl.range(pld.world_size()):
        split_dev(y[r], r, device=r)
