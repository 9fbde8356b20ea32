#! starter: the data moves of both kernels: pull row me from every peer and add it in; put each chunk into its owner's acc with an atomic add
#! entry: reduce_scatter_pull
#! entry: reduce_scatter_push
#! ranks: 2 3 4 8

"""Step 14 starter - reduce-scatter by hand, two ways. Your copy to edit.

Each rank brings ``P`` chunks, row ``c`` meant for rank ``c``; afterwards
rank ``r`` must hold ``y[r] = x[0][r] + x[1][r] + ... + x[P-1][r]``. The
staging and the barriers are done; the data moves are not. As shipped
``reduce_scatter_pull`` returns only the rank's own chunk ``x[r][r]`` and
``reduce_scatter_push`` adds only that chunk into its own accumulator, so
both answers are short of every peer's contribution. Fill in the gaps
marked TODO(you), then run ``workbench step 14 --check FILE``. The lesson
is tutorials/14-reduce-scatter.md.
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
    # TODO(you): this rank owns chunk `me`: `acc` must end as the sum of
    #   every rank's contribution to it. Yours is already in `acc`. Where
    #   does each peer keep its contribution to your chunk after staging?
    # Placeholder: no peers, so `acc` is your own chunk alone.
    # ---- end of TODO ----
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

    # TODO(you): no staging here: every chunk goes straight to the rank
    #   that owns it and is summed where it lands, in that rank's one-row
    #   `acc`. Several ranks write the same bytes of `acc`; the sum must
    #   not depend on who comes first. Do not forget your own chunk, and
    #   ask whether every rank should start sending to the same owner.
    # Placeholder: only your own chunk, into your own acc.
    pld.tensor.put(acc, me, x, [0, 0], [me, 0], [1, SIZE], atomic=pld.AtomicType.Add)
    # ---- end of TODO ----

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
