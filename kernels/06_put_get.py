#! entry: pass_by_put
#! entry: pass_by_get
#! ranks: 2 3 4 8
#! golden: pass_by_put: y[r] == x[(r - 1) mod P] for every rank r (FP32, exact copy)
#! golden: pass_by_get: y[r] == x[(r - 1) mod P] for every rank r (FP32, exact copy)

"""Step 06 - put and get: the same move, started from either end.

Each rank passes its slice to its right neighbour, so afterwards
``y[r] = x[(r - 1) mod P]``. The two entries move the data the same way
round the ring; what differs is which side starts the copy.

* ``pass_by_put`` (the sender acts): ``pld.tensor.put`` copies my input
  tensor into the right neighbour's copy of the ``inbox`` window. Then I
  ring the neighbour's doorbell with a notify. I wait for my own doorbell,
  which my left neighbour rings after filling my inbox, and read the inbox.
* ``pass_by_get`` (the receiver acts): I stage my slice in my copy of the
  ``outbox`` window and ring my right neighbour's doorbell: "my outbox is
  ready". When my own doorbell rings, my left neighbour's outbox is ready,
  and ``pld.tensor.get`` copies it straight into my output tensor.

``put`` and ``get`` finish their copy before they return, but they tell the
other side nothing; the doorbell, a single INT32 cell (a ``[1, 1]`` signal
window), does. The order inside each kernel matters: data first, then
notify; wait, then read.

The put names ``atomic=pld.AtomicType.None_`` - overwrite - which is also
what it does when ``atomic`` is left out; ``AtomicType.Add`` would add into
the inbox instead.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
SIZE = 64


@pl.jit.incore
def put_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """AI cores: put into the right inbox, ring its bell, wait for mine."""
    ctx = pld.get_comm_ctx(inbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    pld.tensor.put(inbox, peer=right, src=x, atomic=pld.AtomicType.None_)
    pld.system.notify(bell, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(bell, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    delivered = pl.load(inbox, [0, 0], [1, SIZE])
    y = pl.store(delivered, [0, 0], y)
    return y


@pl.jit.incore
def get_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """AI cores: stage, ring my reader's bell, wait for mine, get."""
    ctx = pld.get_comm_ctx(outbox)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    left = (me + nranks - 1) % nranks
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)
    pld.system.notify(bell, right, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)

    pld.system.wait(bell, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(y, peer=left, src=outbox)
    return y


@pl.jit
def put_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    inbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return put_kernel(x, y, inbox, bell)


@pl.jit
def get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    bell: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return get_kernel(x, y, outbox, bell)


@pl.jit.host
def pass_by_put(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an inbox window and a one-cell doorbell."""
    inbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        inbox = pld.window(inbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        put_dev(x[r], y[r], inbox, bell, device=r)


@pl.jit.host
def pass_by_get(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an outbox window and a one-cell doorbell."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    bell_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        bell = pld.window(bell_buf, [1, 1], dtype=pl.INT32)
        get_dev(x[r], y[r], outbox, bell, device=r)


def expected(x: torch.Tensor) -> torch.Tensor:
    """Every rank holds its left neighbour's slice."""
    return torch.roll(x, shifts=1, dims=0)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 06: pass slices right with put or get")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="put", choices=["put", "get"])
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    host_fn = pass_by_put if opts.mode == "put" else pass_by_get
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = host_fn.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.equal(y, want), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
