#! entry: shift_by_load
#! entry: shift_by_store
#! ranks: 2 3 4 8
#! golden: shift_by_load: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)
#! golden: shift_by_store: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)

"""Step 05, with the barrier as a builtin.

The same two ring shifts as ``05_remote_load_store.py``, and the same
answer, ``y[r] = x[(r + 1) mod P]``; only the barrier changes. Where the
first version spelled out a notify loop and a wait loop, these kernels call
``pld.tensor.barrier(arrived)`` once. The entries keep their names, so the
two files can be compared entry for entry.

What the barrier orders is different in the two directions, and the call
sits in a different place because of it:

* ``shift_by_load`` (pull): stage, *then* barrier, then ``remote_load`` the
  right neighbour's stage. The barrier separates my neighbour's write from
  my read of it.
* ``shift_by_store`` (push): ``remote_store`` into the left neighbour's
  stage, *then* barrier, then read my own stage. Here the barrier separates
  my right neighbour's remote write into my window from my local read.

A barrier placed before the ``remote_store`` would order nothing: nothing
after it tells the neighbour that the data has landed.

Because the builtin clears its signal before returning, both shifts could
run one after the other on the same ``arrived`` window. The hand-rolled
barrier could not: its counters stay at 1.
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
    """AI cores: stage, builtin barrier, pull the right neighbour's stage."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    stage = pl.store(mine, [0, 0], stage)
    arrived = pld.tensor.barrier(arrived)
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
    """AI cores: push into the left neighbour's stage, builtin barrier, read mine."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(mine, stage, left, [0, 0])
    arrived = pld.tensor.barrier(arrived)
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
    """Host: a stage window and an [NR, 1] signal window; the pull kernel."""
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
    """Host: the same windows; the push kernel."""
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        push_left_dev(x[r], y[r], stage, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 05 with pld.tensor.barrier: ring shift by load or store")
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

    want = torch.roll(x, shifts=-1, dims=0)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
