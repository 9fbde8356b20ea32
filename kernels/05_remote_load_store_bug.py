#! entry: shift_by_store
#! ranks: 2 3 4 8
#! golden: shift_by_store: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)
#! bug: race read at line 60 (before rank \d+'s store|what rank \d+ stored) at line 59

"""Step 05's classic bug: in push mode, the barrier before the store.

This is 05_remote_load_store.py's ``shift_by_store`` with two blocks
swapped. In pull mode the barrier sits between my local store and the
neighbour's remote load, and the learner keeps it in the same place here:
right after loading ``x``, before the ``remote_store``. But in push mode
the write that must be finished before anyone reads is the remote store
itself. With the barrier first, every rank passes it, pushes its slice
into its left neighbour's ``stage`` and at once reads its own ``stage``,
which nothing says its right neighbour has filled yet.

The race detector reports the pair at every rank count: the load of my own
window and the neighbour's remote store into it, with nothing ordering
them. The fix is the solution's order: remote_store, then the barrier, then
the local load; the barrier is how the neighbour learns the data landed.
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
def push_left(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: barrier, then push to my left neighbour and read my copy."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tile.remote_store(mine, stage, left, [0, 0])  # the bug: pushed after the barrier
    landed = pl.load(stage, [0, 0], [1, SIZE])
    y = pl.store(landed, [0, 0], y)
    return y


@pl.jit
def push_left_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return push_left(x, y, stage, arrived)


@pl.jit.host
def shift_by_store(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte data window and a one-cell-per-rank signal window."""
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        push_left_dev(x[r], y[r], stage, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 05's bug: the push-mode barrier before the store")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = shift_by_store.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    ok = torch.equal(y, torch.roll(x, shifts=-1, dims=0))
    print("OK" if ok else "wrong: a rank read its window before its neighbour's push landed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
