#! starter: the barriers (AtomicAdd, waits for 1, 2, 3) and the remote reads of the lab's three programs
#! entry: count_with_set
#! entry: reduce_twice
#! entry: sum_in_turn
#! ranks: 2 3 4 8

"""Step 20's starter: repair the debugging lab's three programs.

Each host entry computes what the broken file of the same name should:
``count_with_set`` copies the right neighbour's ``x`` into ``first`` and
its ``z`` into ``second``, in two rounds on one data window and one
climbing tally; ``reduce_twice`` all-reduces ``x`` into ``first`` and
``x * x`` into ``second`` on one data window; ``sum_in_turn`` leaves the
sum over every rank's ``x`` in every rank's ``y``, with ``part`` holding slices only.

As shipped, the synchronisation and the remote reads are cut out: every
rank reads only its own window, so each program runs to completion with
wrong data (its own slice where a neighbour's or a sum belongs). Fill in
the gaps marked TODO, then run ``workbench step 20 --check FILE``
(lesson: tutorials/20-debugging-lab.md).
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

    # Round one: publish x.
    slot = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], slot)
    # TODO(you): `first` must be the right neighbour's round-one slot,
    #   read only after it was staged, on the one climbing tally (what
    #   kind of notify keeps a count climbing?). Round two restages
    #   `slot`: it may not start while a slower peer still reads round one.
    # Placeholder: my own slot, so first holds my x, not my neighbour's.
    first = pl.store(pl.load(slot, [0, 0], [1, SIZE]), [0, 0], first)
    # ---- end of TODO ----

    # Round two: publish z.
    slot = pl.store(pl.load(z, [0, 0], [1, SIZE]), [0, 0], slot)
    # TODO(you): `second`, the neighbour's round-two slot, read only after
    #   round two was staged: the tally has climbed further by now.
    # Placeholder: my own slot again.
    second = pl.store(pl.load(slot, [0, 0], [1, SIZE]), [0, 0], second)
    # ---- end of TODO ----
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

    # Round one: stage x.
    part = pl.store(mine, [0, 0], part)
    # TODO(you): the round-one sum over every rank's `part`, read only
    #   after every rank has staged; and before round two restages `part`,
    #   make sure nobody is still reading round one.
    # Placeholder: only my own slice.
    acc = pl.load(part, [0, 0], [1, SIZE])
    # ---- end of TODO ----
    first = pl.store(acc, [0, 0], first)

    # Round two: restage x * x.
    part = pl.store(pl.mul(mine, mine), [0, 0], part)
    # TODO(you): the round-two sum, once round two is staged everywhere.
    # Placeholder: only my own slice.
    acc = pl.load(part, [0, 0], [1, SIZE])
    # ---- end of TODO ----
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

    # 1. Stage my slice.
    part = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], part)
    # TODO(you): every rank's `y` must be the sum of every rank's slice,
    #   read only once every slice is in place. `part` holds slices only:
    #   the peers are still reading it (with `part` left alone, the broken
    #   file's token and its turns are not needed).
    # Placeholder: my own slice as the total.
    total = pl.load(part, [0, 0], [1, SIZE])
    y = pl.store(total, [0, 0], y)
    # ---- end of TODO ----
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
