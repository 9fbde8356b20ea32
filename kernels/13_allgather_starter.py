#! starter: the push of your slice into row me of every rank's window with remote_store, and the barrier after it
#! entry: allgather_hand
#! ranks: 2 3 4 8

"""Step 13 starter - all-gather by hand. Your copy to edit.

Every rank must leave with every rank's slice in rank order: row ``s`` of
rank ``r``'s ``[P, SIZE]`` output is rank ``s``'s slice. The window
``gather`` has one row per rank, and row ``s`` of every copy is reserved
for rank ``s``. Each rank has to push its slice into its row of every
rank's copy, then wait at a barrier until every rank has pushed; the
kernel then reads its copy row by row into its output (given). As shipped
each rank writes its row of its own copy only and there is no barrier, so
every output holds its own slice and zeros elsewhere. Fill in the gaps
marked TODO(you), then run ``workbench step 13 --check FILE``. The lesson
is tutorials/13-allgather.md.

Write it by hand with remote_store, notify and wait; the builtin
``pld.tensor.allgather`` is the lesson's reveal.
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
    # TODO(you): every rank's copy of `gather` must get this rank's slice,
    #   in the row that belongs to this rank. Push it; think about where
    #   each rank should start so that they do not all write to one rank
    #   first.
    # Placeholder: only your own copy gets your row.
    gather = pl.store(mine, [me, 0], gather)
    # ---- end of TODO ----

    # TODO(you): nobody may read `gather` before every rank has pushed
    #   into it. Step 04 built the tool.
    # Placeholder: no barrier.
    # ---- end of TODO ----

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
