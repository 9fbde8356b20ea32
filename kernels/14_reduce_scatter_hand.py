#! entry: reduce_scatter_pull
#! entry: reduce_scatter_push
#! ranks: 2 3 4 8
#! golden: y[r, 0, j] == sum over k of x[k, r, j] for every rank r and column j (FP32, allclose rtol 1e-5 atol 1e-5), for both entries

"""Step 14 - reduce-scatter, by hand, two ways.

Every rank brings ``P`` chunks, one addressed to each rank: row ``c`` of
rank ``k``'s input is its contribution to chunk ``c``. Afterwards rank
``r`` holds chunk ``r`` summed over all ranks,
``y[r] = x[0][r] + x[1][r] + ... + x[P-1][r]``. It is the first half of
the two-phase all-reduce of step 09, on its own.

* ``reduce_scatter_pull``: stage all my chunks in my copy of the
  ``[NR, SIZE]`` window, barrier, then start from my own row ``me`` and add
  row ``me`` of every peer's copy, fetched with ``pld.tile.remote_load``.
  Start the sum from your own row: seeding it with zeros, or with the
  peers' rows only, loses your own contribution.
* ``reduce_scatter_push``: no staging. Each rank sends chunk ``d`` straight
  into rank ``d``'s one-row ``acc`` window with ``pld.tensor.put`` and
  ``atomic=pld.AtomicType.Add``, so the chunks add up where they land (the
  window starts zeroed, and a rank sends to itself too). After the barrier
  ``acc`` holds the finished sum. The arrival order of the adds depends on
  timing, so compare with a tolerance.

The pull form moves ``(P - 1)`` chunks into each rank and needs a
``[NR, SIZE]`` window; the push form moves the same amount out of each rank
and needs only ``[1, SIZE]``, but relies on atomic adds at the destination.
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
    """AI cores: stage every chunk, barrier, sum row `me` over all ranks."""
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

    acc = pl.load(stage, [me, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            theirs = pld.tile.remote_load(stage, peer, [me, 0], [1, SIZE])
            acc = pl.add(acc, theirs)
    y = pl.store(acc, [0, 0], y)
    return y


@pl.jit.incore
def rs_push_kernel(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: atomically add chunk d into rank d's acc, barrier, read mine."""
    ctx = pld.get_comm_ctx(acc)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    for k in pl.range(nranks):
        dest = (me + k) % nranks
        pld.tensor.put(acc, dest, x, [0, 0], [dest, 0], [1, SIZE], atomic=pld.AtomicType.Add)

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    total = pl.load(acc, [0, 0], [1, SIZE])
    y = pl.store(total, [0, 0], y)
    return y


@pl.jit
def rs_pull_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return rs_pull_kernel(x, y, stage, arrived)


@pl.jit
def rs_push_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    acc: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return rs_push_kernel(x, y, acc, arrived)


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


@pl.jit.host
def reduce_scatter_push(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a one-row accumulator window and an [NR, 1] signal window."""
    acc_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        acc = pld.window(acc_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        rs_push_dev(x[r], y[r], acc, arrived, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Rank r gets chunk r summed over all ranks."""
    return x.sum(dim=0).unsqueeze(1)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 14: hand-rolled reduce-scatter")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="pull", choices=["pull", "push"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    host_fn = reduce_scatter_pull if opts.mode == "pull" else reduce_scatter_push
    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
