#! entry: shift_by_load
#! entry: shift_by_store
#! ranks: 2 3 4 8
#! golden: shift_by_load: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)
#! golden: shift_by_store: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)

"""Step 05 - remote load and remote store: shifting slices round a ring.

Every rank should end up holding its right neighbour's slice:
``y[r] = x[(r + 1) mod P]``. There are two ways to move it, and this file
has both:

* ``shift_by_load`` pulls. Each rank puts its slice in its own copy of the
  ``stage`` window, passes a barrier, then reads the right neighbour's copy
  with ``pld.tile.remote_load``. The barrier is what makes this safe:
  without it a rank could read its neighbour's window before the neighbour
  has written it, and get zeros.
* ``shift_by_store`` pushes. Each rank writes its slice straight into the
  left neighbour's copy with ``pld.tile.remote_store``, passes a barrier,
  then reads its own copy, which its right neighbour has filled. Here the
  barrier must come *after* the store: it is how the neighbour learns the
  data has landed.

Neither remote op waits for anything by itself; the barrier (the one from
step 04) does the ordering.

Peer arithmetic stays in integers and stays non-negative: the left
neighbour is ``(me + nranks - 1) % nranks``. On the device ``%`` truncates
toward zero, so ``(me - 1) % nranks`` would be -1 on rank 0.
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
def pull_right(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage my slice, barrier, remote_load my right neighbour's."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    stage = pl.store(mine, [0, 0], stage)

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    theirs = pld.tile.remote_load(stage, right, [0, 0], [1, SIZE])
    y = pl.store(theirs, [0, 0], y)
    return y


@pl.jit.incore
def push_left(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: remote_store into my left neighbour, barrier, read my copy."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(mine, stage, left, [0, 0])

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    landed = pl.load(stage, [0, 0], [1, SIZE])
    y = pl.store(landed, [0, 0], y)
    return y


@pl.jit
def pull_right_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return pull_right(x, y, stage, arrived)


@pl.jit
def push_left_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return push_left(x, y, stage, arrived)


@pl.jit.host
def shift_by_load(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte data window and a one-cell-per-rank signal window."""
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        pull_right_dev(x[r], y[r], stage, arrived, device=r)


@pl.jit.host
def shift_by_store(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: the same two windows, dispatching the push kernel."""
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        push_left_dev(x[r], y[r], stage, arrived, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Every rank holds its right neighbour's slice."""
    return torch.roll(x, shifts=-1, dims=0)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 05: shift slices with remote_load or remote_store")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="load", choices=["load", "store"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    host_fn = shift_by_load if opts.mode == "load" else shift_by_store
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
