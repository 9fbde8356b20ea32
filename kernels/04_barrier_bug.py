#! entry: barrier_twice
#! ranks: 2 3 4 8
#! golden: first[r] == x[(r + 1) mod P] and second[r] == z[(r + 1) mod P] (FP32, exact copy)
#! bug: race read at line 84 (before rank \d+'s store|what rank \d+ stored) at line 77
"""Step 04's classic bug: a hand-rolled barrier used twice on the same cells.

Each rank publishes a slice in its window, meets the others at a barrier,
and reads its right neighbour's slice; then it does the same again with a
second slice. The learner reuses the barrier word for word: the same
signal cells and the same ``wait(..., 1, cmp=Ge)``.

Between the rounds a second barrier, on cells of its own, makes sure every
rank has read round one before anyone overwrites its slot; that part is
right. The third barrier is no barrier. The arrival cells still hold the 1
every peer added the first time, so each wait is already satisfied and
returns at once: a rank can read its neighbour's slot before the neighbour
has stored its second slice there. The race detector names the read and
the store that nothing orders.

Two fixes, both in step 20: count on, waiting for ``>= 2`` the second time
(monotonic counters), or give each barrier its own signal cells.
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
def twice_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    z: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    done: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: publish, barrier, read the right neighbour; then all of it again."""
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    slot = pl.store(mine, [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    got = pld.tile.remote_load(slot, right, [0, 0], [1, SIZE])
    first = pl.store(got, [0, 0], first)

    # Everyone has read round one: a barrier on cells of its own, done right.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(done, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(done, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    # Round two, the first barrier copied word for word: the bug.
    mine = pl.load(z, [0, 0], [1, SIZE])
    slot = pl.store(mine, [0, 0], slot)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    got = pld.tile.remote_load(slot, right, [0, 0], [1, SIZE])
    second = pl.store(got, [0, 0], second)
    return second


@pl.jit
def twice_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    z: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    done: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return twice_kernel(x, z, first, second, slot, arrived, done)


@pl.jit.host
def barrier_twice(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    z: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a slot window, the arrival cells used twice, and the read-done cells."""
    slot_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    done_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        done = pld.window(done_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        twice_dev(x[r], z[r], first[r], second[r], slot, arrived, done, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 04's bug: one barrier's cells used twice")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    z = torch.randn(nr, 1, SIZE)
    first = torch.zeros(nr, 1, SIZE)
    second = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = barrier_twice.compile(x, z, first, second, config=cfg)
    compiled(x, z, first, second, config=RunConfig(platform=opts.platform))
    right = torch.roll(torch.arange(nr), -1)
    print("first ok:", torch.equal(first, x[right]), "second ok:", torch.equal(second, z[right]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
