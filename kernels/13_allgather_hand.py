#! entry: allgather_hand
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, 0, j] for every rank r, source s and column j: every rank gets all slices in rank order (FP32, exact copy)

"""Step 13 - all-gather, by hand.

Every rank brings one slice; every rank leaves with all of them, in rank
order. Rank ``r``'s output is ``[P, SIZE]``: row ``s`` is rank ``s``'s
slice. Flattened, that row-major block is the concatenation
``x[0] ++ x[1] ++ ... ++ x[P-1]``.

The window ``gather`` has one row per rank, ``[NR, SIZE]``, and row ``s``
of every rank's copy is reserved for rank ``s``.

1. push: write my slice into row ``me`` of every rank's copy, my own
   included, with ``pld.tile.remote_store``;
2. barrier (step 04): when it opens, every rank has pushed, so every row of
   my copy is filled;
3. read my copy row by row into my output.

Order is the whole contract: the slice from rank ``s`` must land in row
``s``. A rank that pushed into the wrong row would still fill the window,
just scrambled.

Pushing means each rank sends its slice to ``P - 1`` peers (plus one copy
into its own window), and the barrier comes *after* the sends: the notify
is what tells a peer that my row of its copy has landed. The builtin ``pld.tensor.allgather`` pushes too.

Each rank visits the destinations starting from its right neighbour,
``(me + k + 1) % nranks``, so the ranks do not all write to rank 0 first.
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
        pld.tile.remote_store(mine, gather, dest, [me, 0])

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
    ap = argparse.ArgumentParser(description="step 13: hand-rolled all-gather")
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
