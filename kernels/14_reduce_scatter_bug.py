#! entry: reduce_scatter_pull
#! ranks: 2 3 4 8
#! golden: y[r, 0, j] == sum over k of x[k, r, j] for every rank r and column j (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[0, 0, 0\] got

"""Step 14's classic bug: the sum seeded with zeros.

This is 14_reduce_scatter_hand.py's ``reduce_scatter_pull`` with the first
line of the sum changed. The learner starts the accumulator the way a
Python loop starts, ``total = 0`` (here a zero tile: my row times 0.0),
and keeps the peer loop as it was, which skips ``me`` because my own row
does not need a remote load. Nothing adds my own row now: every rank's
result misses exactly one term, its own contribution ``x[me][me]``.

The run is clean (staging, barrier and loads are all as in the solution),
so only the golden catches it: wrong data on every rank at every rank
count. The fix is the solution's seed, ``pl.load(stage, [me, 0], ...)``:
start from my own row, then add every peer's.
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
def rs_pull_kernel(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage every chunk, barrier, sum row `me` over the peers only."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    for c in pl.range(nranks):
        piece = pl.load(x, [c, 0], [1, SIZE])
        stage = pl.store(piece, [c, 0], stage)

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    acc = pl.mul(pl.load(stage, [me, 0], [1, SIZE]), 0.0)  # the bug: starts at zero
    for peer in pl.range(nranks):
        if peer != me:
            theirs = pld.tile.remote_load(stage, peer, [me, 0], [1, SIZE])
            acc = pl.add(acc, theirs)
    y = pl.store(acc, [0, 0], y)
    return y


@pl.jit
def rs_pull_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return rs_pull_kernel(x, y, stage, arrived)


@pl.jit.host
def reduce_scatter_pull(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] staging window and an [NR, 1] signal window."""
    stage_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        rs_pull_dev(x[r], y[r], stage, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 14's bug: the sum seeded with zeros")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = reduce_scatter_pull.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    ok = torch.allclose(y, x.sum(dim=0).unsqueeze(1), rtol=1e-5, atol=1e-5)
    print("OK" if ok else "wrong sums: each rank left out its own row")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
