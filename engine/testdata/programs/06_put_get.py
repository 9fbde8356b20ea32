#! entry: push_left
#! entry: pull_left
#! ranks: 2
#! golden: push_left: y[r] == x[(r + 1) mod P] (FP32, exact copy)
#! golden: pull_left: y[r] == x[(r - 1) mod P] (FP32, exact copy)

"""Whole-slice moves with ``pld.tensor.put`` and ``pld.tensor.get``.

``put`` copies a local tensor into a peer's copy of a window (the sender
acts); ``get`` copies a peer's copy of a window into a local tensor (the
receiver acts). Both finish their copy before returning, but neither tells
the other side anything, so each move is paired with a one-cell handshake on
a ``[1, 1]`` INT32 signal window:

* push_left: put my input straight from ``x`` into the left neighbour's
  inbox, then notify the left neighbour. Wait for my own cell, which the
  right neighbour bumps after filling my inbox, then read the inbox.
* pull_left: stage my input in my outbox and notify the right neighbour,
  the one that will read it. Wait for my own cell, which the left
  neighbour bumps once its outbox is staged, then get that outbox directly
  into the output tensor.

The put spells out ``atomic=pld.AtomicType.None_``, an overwrite, which is
also the default; ``AtomicType.Add`` would add into the peer's inbox.
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
def push_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    """AI core: put into the left inbox, ring its bell, wait for mine."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks

    pld.tensor.put(inbox, peer=left, src=x, atomic=pld.AtomicType.None_)
    pld.system.notify(bell, left, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, [0, 0], 1, cmp=pld.WaitCmp.Ge)

    got = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(got, [0, 0], y)
    return y


@pl.jit.incore
def pull_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    """AI core: stage, tell the reader, wait for my source, get it."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)

    # The store above happens before this notify, so the right neighbour's
    # get after its wait sees the staged slice.
    pld.system.notify(bell, peer=right, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)

    pld.tensor.get(y, peer=left, src=outbox)
    return y


@pl.jit
def push_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return push_kernel(x, y, inbox, bell)


@pl.jit
def pull_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pld.DistributedTensor[[1, SIZE], pl.FP32],
    bell: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return pull_kernel(x, y, outbox, bell)


@pl.jit.host
def push_left(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    """Host: an inbox window and a one-cell bell per rank."""
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        push_dev(x[r], y[r], inbox, bell, device=r)


@pl.jit.host
def pull_left(
    x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]],
):
    """Host: an outbox window and a one-cell bell per rank."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        pull_dev(x[r], y[r], outbox, bell, device=r)


def golden(x: torch.Tensor, push: bool) -> torch.Tensor:
    """push: y[r] = x[r+1]; pull: y[r] = x[r-1] (indices modulo the rank count)."""
    n = x.shape[0]
    step = 1 if push else -1
    return torch.stack([x[(r + step) % n] for r in range(n)])


def main() -> int:
    ap = argparse.ArgumentParser(description="put and get with a one-cell handshake")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help=f"{N_RANKS} comma-separated device ids")
    ap.add_argument("--mode", default="push", choices=["push", "pull"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) != N_RANKS:
        raise SystemExit(f"need {N_RANKS} device ids, got {ids}")

    push = opts.mode == "push"
    host_fn = push_left if push else pull_left
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
