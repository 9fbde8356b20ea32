#! entry: pull_from_left
#! entry: push_to_left
#! ranks: 2
#! golden: pull_from_left: y[r] == x[(r - 1) mod P] (FP32, exact copy)
#! golden: push_to_left: y[r] == x[(r + 1) mod P] (FP32, exact copy)

"""Reaching into a neighbour's window: one tile pulled, or one tile pushed.

``pld.tile.remote_load`` reads a region of another rank's copy of a window
into a local tile; ``pld.tile.remote_store`` writes a local tile into another
rank's copy. Neither waits for anything, so each kernel orders its accesses
with ``pld.tensor.barrier``:

* pull: stage my slice in my window, barrier, then read the left
  neighbour's window. The barrier guarantees the neighbour has staged.
* push: write my slice into the left neighbour's window, barrier, then read
  my own window, which my right neighbour has filled by now.

The left neighbour is ``(me + nranks - 1) % nranks``. Adding ``nranks``
before subtracting keeps the dividend non-negative; on the device ``%``
truncates toward zero, so ``(me - 1) % nranks`` would give -1 on rank 0.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def pull_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    """AI core: stage, barrier, remote_load from the left neighbour."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    stage = pl.store(mine, [0, 0], stage)

    ready = pld.tensor.barrier(ready)

    theirs = pld.tile.remote_load(stage, left, [0, 0], [1, SIZE])
    y = pl.store(theirs, [0, 0], y)
    return y


@pl.jit.incore
def push_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    """AI core: remote_store into the left neighbour, barrier, read own copy."""
    ctx = pld.get_comm_ctx(stage)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(mine, stage, left, [0, 0])

    # The barrier must come after the push: it is what tells the neighbour
    # that the push has landed.
    ready = pld.tensor.barrier(ready)

    landed = pl.load(stage, [0, 0], [1, SIZE])
    y = pl.store(landed, [0, 0], y)
    return y


@pl.jit
def pull_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return pull_kernel(x, y, stage, ready)


@pl.jit
def push_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
):
    return push_kernel(x, y, stage, ready)


@pl.jit.host
def pull_from_left(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [N_RANKS, 1], dtype=pl.INT32)
        pull_dev(x[r], y[r], stage, ready, device=r)


@pl.jit.host
def push_to_left(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    stage_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [N_RANKS, 1], dtype=pl.INT32)
        push_dev(x[r], y[r], stage, ready, device=r)


def golden(x: torch.Tensor, push: bool) -> torch.Tensor:
    """pull: y[r] = x[r-1]; push: y[r] = x[r+1] (indices modulo the rank count)."""
    n = x.shape[0]
    step = 1 if push else -1
    return torch.stack([x[(r + step) % n] for r in range(n)])


def main() -> int:
    ap = argparse.ArgumentParser(description="ring shift by remote_load or remote_store")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--mode", default="pull", choices=["pull", "push"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"need {N_RANKS} device ids, got {ids}")

    push = opts.mode == "push"
    host_fn = push_to_left if push else pull_from_left
    x = torch.randn(N_RANKS, 1, SIZE)
    y = torch.zeros_like(x)

    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = golden(x, push)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.mode}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
