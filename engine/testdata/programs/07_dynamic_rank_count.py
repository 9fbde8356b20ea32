#! entry: pull_next
#! entry: barrier_then_get_prev
#! ranks: 2 3 4
#! golden: pull_next: y[r] == x[(r + 1) mod P] (FP32, exact copy)
#! golden: barrier_then_get_prev: y[r] == x[(r - 1) mod P] (FP32, exact copy)

"""One source for any number of ranks: the rank count as a dynamic dimension.

``NR = pl.dynamic("NR")`` names a dimension whose size is bound when the
program is dispatched; here it is the leading, per-rank dimension of the
host tensors, so ``-d 0,1,2`` and ``-d 0,1,2,3`` run the same file. The
kernels never mention the rank count as a number: they ask the window's
communication context (``pld.nranks``) and wrap indices modulo it.

``pull_next`` keeps fixed-size windows and a one-cell handshake: each rank
stages its slice, tells its left neighbour (the rank that will read it), waits
until its right neighbour says the same, then remote-loads from the right.

``barrier_then_get_prev`` sizes its signal window from the world size at run
time (``pld.world_size() * pl.INT32.get_byte()`` bytes, viewed as
``[world_size, 1]``) and declares it ``[NR, 1]`` in the kernel; after a
``pld.tensor.barrier`` each rank gets its left neighbour's staged slice.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

SIZE = 64
NR = pl.dynamic("NR")


@pl.jit.incore
def pull_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ok: pld.DistributedTensor[[1, 1], pl.INT32],
):
    """AI core: stage, tell my reader, wait for my source, remote_load it."""
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    source = (me + 1) % nranks
    reader = (me + nranks - 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    slot = pl.store(mine, [0, 0], slot)
    pld.system.notify(ok, peer=reader, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(ok, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)

    theirs = pld.tile.remote_load(slot, peer=source, offsets=[0, 0], shape=[1, SIZE])
    y = pl.store(theirs, [0, 0], y)
    return y


@pl.jit.incore
def get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    sync: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    """AI core: stage, barrier over all ranks, get the left neighbour's slot."""
    ctx = pld.get_comm_ctx(slot)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    mine = pl.load(x, [0, 0], [1, SIZE])
    slot = pl.store(mine, [0, 0], slot)
    sync = pld.tensor.barrier(sync)

    pld.tensor.get(y, peer=(me + nranks - 1) % nranks, src=slot)
    return y


@pl.jit
def pull_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pld.DistributedTensor[[1, SIZE], pl.FP32],
    ok: pld.DistributedTensor[[1, 1], pl.INT32],
):
    return pull_kernel(x, y, slot, ok)


@pl.jit
def get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    slot: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    sync: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    return get_kernel(x, y, slot, sync)


@pl.jit.host
def pull_next(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: NR is bound from the leading extent of x and y."""
    slot_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ok_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, SIZE], dtype=pl.FP32)
        ok = pld.window(ok_buf, [1, 1], dtype=pl.INT32)
        pull_dev(x[r], y[r], slot, ok, device=r)


@pl.jit.host
def barrier_then_get_prev(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: the signal window grows with the world size."""
    slot_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    # 33068039b viewed this buffer as [pld.world_size(), 1]; PyPTO at HEAD
    # refuses that in a @pl.jit host ("missing inferred tensor metadata"),
    # so the regression copy sizes it for the most ranks its header lists.
    sync_buf = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        slot = pld.window(slot_buf, [1, SIZE], dtype=pl.FP32)
        sync = pld.window(sync_buf, [4, 1], dtype=pl.INT32)
        get_dev(x[r], y[r], slot, sync, device=r)


def golden(x: torch.Tensor, step: int) -> torch.Tensor:
    """y[r] = x[(r + step) mod P]."""
    n = x.shape[0]
    return torch.stack([x[(r + step) % n] for r in range(n)])


def main() -> int:
    ap = argparse.ArgumentParser(description="one program for any rank count")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="two or more comma-separated device ids")
    ap.add_argument("--mode", default="pull", choices=["pull", "get"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    pull = opts.mode == "pull"
    host_fn = pull_next if pull else barrier_then_get_prev
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros_like(x)

    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = golden(x, 1 if pull else -1)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
