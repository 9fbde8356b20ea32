#! entry: across_by_put
#! entry: across_by_get
#! ranks: 2 3 4 8
#! golden: across_by_put: y[r] == x[(r - P // 2) mod P] for every rank r (FP32, exact copy)
#! golden: across_by_get: y[r] == x[(r + P // 2) mod P] for every rank r (FP32, exact copy)

"""Step 07 - the rank count as a run-time value.

``NR = pl.dynamic("NR")`` names a dimension that is not known when the
source is written: PyPTO binds it when the program is compiled for a device
list, from the leading extent of the host tensors. Annotate the host tensors
``[NR, 1, SIZE]`` and the one source compiles for ``-d 0,1`` as well as for
``-d 0,1,2,3,4,5,6,7``. Write ``[2, 1, SIZE]`` instead and the program is
pinned to two devices: any other count is a shape mismatch at compile time.

The kernels must then be rank-agnostic too. They never name a rank count;
they ask the window's communication context (``pld.nranks``) and do their
index arithmetic modulo that. Here every rank exchanges slices with the rank
across the ring, ``half = nranks // 2`` places away, so even the distance
depends on P:

* ``across_by_put``: put my slice into the inbox of ``(me + half) % nranks``
  and notify it; wait until ``(me + nranks - half) % nranks`` has done the
  same to me. Result: ``y[r] = x[(r - P // 2) mod P]``.
* ``across_by_get``: stage my slice, tell ``(me + nranks - half) % nranks``
  (the rank that will read it) that it is ready, wait for
  ``(me + half) % nranks`` to say the same, get its outbox.
  Result: ``y[r] = x[(r + P // 2) mod P]``.

Each rank hears from exactly one other rank, so a single ``[1, 1]`` cell
would do (as in step 06). The window has one cell per *writer* instead,
``[NR, 1]``: rank ``k`` only ever bumps row ``k``, and each rank waits on
the row of the one rank it expects to hear from, so a wait on the wrong
row hangs visibly (at odd P, where sender and source differ) rather than
passing by luck. The host sizes that window in bytes from the
world size when the program runs.

``nranks // 2`` and ``%`` run on the device, where they truncate toward
zero; both operands are non-negative here, so that is the same as Python's
rounding.
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
def across_put_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: push across the ring, then wait for the push addressed to me."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    half = nranks // 2
    to_rank = (me + half) % nranks
    from_rank = (me + nranks - half) % nranks

    pld.tensor.put(inbox, peer=to_rank, src=x)
    pld.system.notify(ready, to_rank, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(ready, [from_rank, 0], 1, cmp=pld.WaitCmp.Ge)
    delivered = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(delivered, [0, 0], y)
    return y


@pl.jit.incore
def across_get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, tell my reader, wait for my source, pull across the ring."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    half = nranks // 2
    source = (me + half) % nranks
    reader = (me + nranks - half) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)
    pld.system.notify(ready, reader, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(ready, [source, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(y, peer=source, src=outbox)
    return y


@pl.jit
def across_put_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return across_put_kernel(x, y, inbox, ready)


@pl.jit
def across_get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return across_get_kernel(x, y, outbox, ready)


@pl.jit.host
def across_by_put(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: NR comes from x and y; the signal window grows with it."""
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        across_put_dev(x[r], y[r], inbox, ready, device=r)


@pl.jit.host
def across_by_get(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: as across_by_put, with an outbox instead of an inbox."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        across_get_dev(x[r], y[r], outbox, ready, device=r)


def expected(x: torch.Tensor, pull: bool) -> torch.Tensor:
    """y[r] = x[(r + P // 2) mod P] when pulling, x[(r - P // 2) mod P] when pushing."""
    half = x.shape[0] // 2
    return torch.roll(x, shifts=-half if pull else half, dims=0)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 07: one source for every rank count")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="put", choices=["put", "get"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    pull = opts.mode == "get"
    host_fn = across_by_get if pull else across_by_put
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x, pull)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
