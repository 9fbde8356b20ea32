#! entry: count_with_set
#! ranks: 2 3 4 8
#! golden: first[r] == x[(r + 1) mod P] and second[r] == z[(r + 1) mod P] (FP32, exact copy)
#! bug: deadlock rank \d+ line 69 waits on tally\[\d+, 0\] = 1 \(Ge 2\)

"""Step 20's hang: a reusable tally built with Set instead of AtomicAdd.

Step 04's bug reused a hand-rolled barrier's cells and passed early. One
honest repair keeps the cells and lets the tally climb: the first barrier
waits for at least 1 from every peer, the second for at least 2, the
third for at least 3. That only works if every notify *adds* one. This
file writes the notifies with ``NotifyOp.Set`` and the value 1, so the
cells reach 1 at the first barrier and stay there: the second barrier's
``wait(..., 2, Ge)`` never returns on any rank, and the run ends in a
deadlock. The deadlock report shows each stuck wait wants 2 while its
cell holds 1, although every peer did notify it - the sign of a count
that cannot climb. The fix is ``op=pld.NotifyOp.AtomicAdd``; ``Set`` is
for one-shot flags (the HOST barrier's), never for counters.
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
    """AI cores: two rounds of "publish, read the right neighbour" on one climbing tally."""
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    # Round one: publish x, barrier 1 (every cell should reach 1), read.
    slot = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.Set)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    first = pl.store(pld.tile.remote_load(slot, right, [0, 0], [1, SIZE]), [0, 0], first)

    # Barrier 2, "everyone has read round one": the cells should reach 2.
    # Set writes 1 again instead of adding 1 - the bug.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.Set)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 2, cmp=pld.WaitCmp.Ge)

    # Round two: publish z, barrier 3 (the cells should reach 3), read.
    slot = pl.store(pl.load(z, [0, 0], [1, SIZE]), [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.Set)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 3, cmp=pld.WaitCmp.Ge)
    second = pl.store(pld.tile.remote_load(slot, right, [0, 0], [1, SIZE]), [0, 0], second)
    return second


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


@pl.jit.host
def count_with_set(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    z: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: one data window and one tally window, shared by all three barriers."""
    slot_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    tally_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, SIZE], dtype=pl.FP32)
        tally = pld.window(tally_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        two_rounds_dev(x[r], z[r], first[r], second[r], slot, tally, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 20's hang: a climbing tally written with Set")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    z = torch.randn(nr, 1, SIZE)
    first = torch.zeros(nr, 1, SIZE)
    second = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = count_with_set.compile(x, z, first, second, config=cfg)
    compiled(x, z, first, second, config=RunConfig(platform=opts.platform))
    print("finished (unexpected: the second barrier should never return)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
