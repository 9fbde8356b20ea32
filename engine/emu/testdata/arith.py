#! entry: scalar_host
#! ranks: 2 3 5
"""Scalar semantics on the device.

Each rank fills one row of ``out`` with results of integer arithmetic whose
answers depend on the rank: % and // on negative dividends (the device
truncates toward zero), INT32 values that wrap, loops whose bounds and steps
are only known at run time, and branches on run-time comparisons.
"""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8
SLOTS = 12


@pl.jit.incore
def probe(
    seed: pl.Tensor[[1, 8], pl.INT32],
    out: pl.Out[pl.Tensor[[1, SLOTS], pl.INT32]],
    flags: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(flags)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    below = me - 3
    pl.write(out, [0, 0], pl.cast(below % n, target_type=pl.INT32))
    pl.write(out, [0, 1], pl.cast(below // 2, target_type=pl.INT32))
    top = pl.read(seed, [0, 0])
    pl.write(out, [0, 2], top + me)
    acc = 0
    for i in pl.range(me, 3 * n, 2):
        acc = acc + i
    pl.write(out, [0, 3], pl.cast(acc, target_type=pl.INT32))
    down = 0
    for j in pl.range(n, me, -1):
        down = down * 2 + j
    pl.write(out, [0, 4], pl.cast(down, target_type=pl.INT32))
    pick = 5
    if me == n - 1:
        pick = 50
    pl.write(out, [0, 5], pl.cast(pick, target_type=pl.INT32))
    low = pl.read(seed, [0, 1])
    pl.write(out, [0, 6], low - me)
    prod = top * n
    pl.write(out, [0, 7], prod)
    neg = -below
    pl.write(out, [0, 8], pl.cast(neg, target_type=pl.INT32))
    pl.write(out, [0, 9], pl.cast((below * 7) % 4, target_type=pl.INT32))
    pl.write(out, [0, 10], pl.cast((below * 7) // -4, target_type=pl.INT32))
    flat = 0
    for a in pl.range(n):
        for b in pl.range(a):
            if b != me:
                flat = flat + 1
    pl.write(out, [0, 11], pl.cast(flat, target_type=pl.INT32))
    return out


@pl.jit
def probe_dev(
    seed: pl.Tensor[[1, 8], pl.INT32],
    out: pl.Out[pl.Tensor[[1, SLOTS], pl.INT32]],
    flags: pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32],
):
    return probe(seed, out, flags)


@pl.jit.host
def scalar_host(seed: pl.Tensor[[NR, 1, 8], pl.INT32], out: pl.Out[pl.Tensor[[NR, 1, SLOTS], pl.INT32]]):
    flag_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        flags = pld.window(flag_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        probe_dev(seed[r], out[r], flags, device=r)
