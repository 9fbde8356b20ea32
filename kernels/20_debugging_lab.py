#! entry: count_with_set
#! entry: reduce_twice
#! entry: sum_in_turn
#! ranks: 2 3 4 8
#! golden: count_with_set: first[r] == x[(r + 1) mod P] and second[r] == z[(r + 1) mod P] (FP32, exact copy)
#! golden: reduce_twice: first[r] == sum over k of x[k]; second[r] == sum over k of x[k]*x[k] (FP32, allclose rtol 1e-5 atol 1e-5)
#! golden: sum_in_turn: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 20, repaired: the lab's three broken programs with their fixes.

Each host entry keeps the name of the broken file it repairs, so a fixed
program can be checked under the same ``--entry``:

``count_with_set`` (the hang, 20_set_not_add_bug.py) runs two rounds of
"publish, read the right neighbour" on one climbing tally. Every notify
now adds one (``NotifyOp.AtomicAdd``), so the cells really reach 1, 2 and
3 and each barrier's ``wait(..., k, Ge)`` returns. The name is the broken
file's; the counter no longer uses Set.

``reduce_twice`` (the race, 20_window_reuse_bug.py) all-reduces ``x`` and
then ``x * x`` on one data window. A read-done barrier (tally >= 2) now
sits between round one's last remote load and the store that restages the
window, and round two's barrier waits for 3.

``sum_in_turn`` (the silent corruption, 20_in_place_sum_bug.py) keeps the
window for the slices alone: each rank writes the total to ``y`` only, so
every rank reads slices, never totals. With ``part`` no longer rewritten,
the token that made the ranks take turns orders nothing, and is dropped.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
# A window in a @pl.jit program has a constant shape, so a window with a
# row per rank has MAX_RANKS rows, the most ranks this file runs at; a run
# of P ranks uses the first P.
MAX_RANKS = 8
SIZE = 64


@pl.jit.incore
def two_rounds(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    z: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: two rounds of "publish, read the right neighbour" on one tally that climbs."""
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    # Round one: publish x; barrier 1 (every cell reaches 1); read.
    slot = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    first = pl.store(pld.tile.remote_load(slot, right, [0, 0], [1, SIZE]), [0, 0], first)

    # Barrier 2, "everyone has read round one": AtomicAdd lifts each cell to 2.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 2, cmp=pld.WaitCmp.Ge)

    # Round two: publish z; barrier 3 (the cells reach 3); read.
    slot = pl.store(pl.load(z, [0, 0], [1, SIZE]), [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 3, cmp=pld.WaitCmp.Ge)
    second = pl.store(pld.tile.remote_load(slot, right, [0, 0], [1, SIZE]), [0, 0], second)
    return second


@pl.jit.incore
def sum_twice(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: two mesh all-reduces on one data window, with a read-done barrier between them."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    mine = pl.load(x, [0, 0], [1, SIZE])

    # Round one: stage x; barrier (tally >= 1); add up every slice.
    part = pl.store(mine, [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    acc = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            acc = pl.add(acc, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    first = pl.store(acc, [0, 0], first)

    # Read-done barrier (tally >= 2): nobody restages until every peer has read round one.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 2, cmp=pld.WaitCmp.Ge)

    # Round two: restage x * x; barrier (tally >= 3); add up every slice.
    part = pl.store(pl.mul(mine, mine), [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 3, cmp=pld.WaitCmp.Ge)
    acc = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            acc = pl.add(acc, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    second = pl.store(acc, [0, 0], second)
    return second


@pl.jit.incore
def add_in_turn(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, barrier, then sum every slice into y, leaving part alone."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage, and a barrier: every slice is in place before any read.
    part = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    # 2. Sum every rank's slice; the total goes to y only, never back into part.
    #    No rank writes part after the barrier, so the broken file's token,
    #    which made the ranks take turns, orders nothing any more: it is gone.
    total = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            total = pl.add(total, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    y = pl.store(total, [0, 0], y)
    return y


@pl.jit
def two_rounds_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    z: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return two_rounds(x, z, first, second, slot, tally)


@pl.jit
def sum_twice_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return sum_twice(x, first, second, part, tally)


@pl.jit
def add_in_turn_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return add_in_turn(x, y, part, arrived)


@pl.jit.host
def count_with_set(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    z: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host (the hang, repaired): one data window and one tally for all three barriers."""
    slot_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    tally_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, SIZE], dtype=pl.FP32)
        tally = pld.window(tally_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        two_rounds_dev(x[r], z[r], first[r], second[r], slot, tally, device=r)


@pl.jit.host
def reduce_twice(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host (the race, repaired): one data window and one signal window for both all-reduces."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    tally_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        tally = pld.window(tally_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        sum_twice_dev(x[r], first[r], second[r], part, tally, device=r)


@pl.jit.host
def sum_in_turn(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host (the corruption, repaired): a slice window and a staging barrier's signal."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        add_in_turn_dev(x[r], y[r], part, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 20, repaired: the debugging lab's three programs")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--program", default="all", choices=["all", "count_with_set", "reduce_twice", "sum_in_turn"])
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    run = RunConfig(platform=opts.platform)
    x = torch.randn(nr, 1, SIZE)
    total = x.sum(dim=0, keepdim=True).expand_as(x)
    ok = True

    if opts.program in ("all", "count_with_set"):
        z = torch.randn(nr, 1, SIZE)
        first, second = torch.zeros(nr, 1, SIZE), torch.zeros(nr, 1, SIZE)
        count_with_set.compile(x, z, first, second, config=cfg)(x, z, first, second, config=run)
        good = torch.equal(first, torch.roll(x, shifts=-1, dims=0)) and torch.equal(second, torch.roll(z, shifts=-1, dims=0))
        print(f"count_with_set: {'OK' if good else 'wrong neighbour copies'}")
        ok = ok and good

    if opts.program in ("all", "reduce_twice"):
        first, second = torch.zeros(nr, 1, SIZE), torch.zeros(nr, 1, SIZE)
        reduce_twice.compile(x, first, second, config=cfg)(x, first, second, config=run)
        squares = (x * x).sum(dim=0, keepdim=True).expand_as(x)
        good = torch.allclose(first, total, rtol=1e-5, atol=1e-5) and torch.allclose(second, squares, rtol=1e-5, atol=1e-5)
        print(f"reduce_twice: {'OK' if good else 'wrong sums'}")
        ok = ok and good

    if opts.program in ("all", "sum_in_turn"):
        y = torch.zeros(nr, 1, SIZE)
        sum_in_turn.compile(x, y, config=cfg)(x, y, config=run)
        good = torch.allclose(y, total, rtol=1e-5, atol=1e-5)
        print(f"sum_in_turn: {'OK' if good else 'wrong sums'}")
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
