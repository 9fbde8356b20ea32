#! entry: barrier_then_read
#! ranks: 2 3 4 8
#! golden: y[r] == x[(r + P - 1) mod P] for every rank r (FP32, exact copy); tally[r, i, 0] == 0 for every r and i (INT32, exact)

"""Step 04, revealed - the barrier as one call.

``pld.tensor.barrier(signal)`` is the two loops of ``04_barrier_hand.py``
in a single line. Called inside a kernel it expands into the same
notify-everyone / wait-for-everyone pattern on an ``[NR, 1]`` INT32 window,
plus one thing the hand-written barrier lacks: before returning, each rank
takes back the credits its peers left in its own copy (a notify of ``-1``
to itself per peer). The window is all zeros again afterwards, ready for
the next call.

That has a consequence worth seeing. The hand-rolled kernel copied the
signal column out and found a 1 from every peer; copy it out after the
builtin and you find zeros. The tally proves nothing any more, so this
kernel proves the ordering with data instead:

1. stage my slice in my copy of ``stage``;
2. ``arrived = pld.tensor.barrier(arrived)``;
3. read my *left* neighbour's stage with ``pld.tile.remote_load``. Every
   rank staged before it arrived, so the read finds real data, never the
   zeros a fresh window starts with.

The kernel also copies the signal column out, cell by cell, to show the
zeros the builtin leaves behind.
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
def stage_meet_read(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    tally: pl.Out[pl.Tensor[[NR, 1], pl.INT32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, one builtin barrier, read the left neighbour's stage."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    stage = pl.store(mine, [0, 0], stage)

    arrived = pld.tensor.barrier(arrived)

    theirs = pld.tile.remote_load(stage, left, [0, 0], [1, SIZE])
    y = pl.store(theirs, [0, 0], y)

    # The builtin cleans up after itself: every cell reads 0 again.
    for row in pl.range(nranks):
        left_over = pl.read(arrived, [row, 0])
        pl.write(tally, [row, 0], left_over)
    return y


@pl.jit
def stage_meet_read_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    tally: pl.Out[pl.Tensor[[NR, 1], pl.INT32]],
    stage: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return stage_meet_read(x, y, tally, stage, arrived)


@pl.jit.host
def barrier_then_read(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    tally: pl.Out[pl.Tensor[[NR, NR, 1], pl.INT32]],
):
    """Host: a 256-byte stage and one INT32 cell per rank for the barrier."""
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        stage_meet_read_dev(x[r], y[r], tally[r], stage, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 04 revealed: pld.tensor.barrier, then a read that needs it")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    tally = torch.full((nr, nr, 1), -1, dtype=torch.int32)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = barrier_then_read.compile(x, y, tally, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, tally, config=RunConfig(platform=opts.platform))

    want = torch.roll(x, shifts=1, dims=0)
    assert torch.equal(y, want), f"P={nr}: max error {(y - want).abs().max().item()}"
    assert torch.equal(tally, torch.zeros_like(tally)), f"P={nr}: the builtin left credits behind: {tally.tolist()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
