#! entry: allgather_hand
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, 0, j] for every rank r, source s and column j: every rank gets all slices in rank order (FP32, exact copy)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[0, 0, 0\] got

"""Step 13's classic bug: pushed into row ``k``, not row ``me``.

This is 13_allgather_hand.py with one index changed in the push. The loop
counter ``k`` is right there, and the learner writes my slice into row
``k`` of rank ``dest``'s window instead of row ``me``. ``k`` counts the
hops to the destination, not the sender, so the slice from rank ``s``
lands on rank ``d`` in row ``(d - s - 1) mod P``.

Each row of each window still gets exactly one writer, so the race
detector has nothing to report and every window ends up full, only in the
wrong order: the slices run backwards round the ring. A row is right only
by accident (at two ranks rank 1 comes out right and rank 0 has its rows
swapped), and the check reports wrong data at every rank count. The fix is
the solution's ``[me, 0]``: the row is named by who sent the slice.
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
def allgather_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    gather: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: push my slice to row `me` everywhere, barrier, read all rows."""
    ctx = pld.get_comm_ctx(gather)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    mine = pl.load(x, [0, 0], [1, SIZE])
    for k in pl.range(nranks):
        dest = (me + k + 1) % nranks
        pld.tile.remote_store(mine, gather, dest, [k, 0])  # the bug: row k, not row me

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    for s in pl.range(nranks):
        row = pl.load(gather, [s, 0], [1, SIZE])
        y = pl.store(row, [s, 0], y)
    return y


@pl.jit
def allgather_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    gather: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return allgather_kernel(x, y, gather, arrived)


@pl.jit.host
def allgather_hand(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] gather window and an [NR, 1] signal window, sized at run time."""
    gather_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        gather = pld.window(gather_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        allgather_dev(x[r], y[r], gather, arrived, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Every rank holds all slices, stacked in rank order."""
    nr = x.shape[0]
    return x.reshape(1, nr, SIZE).expand(nr, nr, SIZE).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 13's bug: pushed into row k, not row me")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, nr, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = allgather_hand.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
