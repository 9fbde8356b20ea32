#! entry: across_by_get
#! ranks: 2 3 4 8
#! golden: across_by_get: y[r] == x[(r + P // 2) mod P] for every rank r (FP32, exact copy)
#! bug: runtime_error rank 0, line \d+: pld\.system\.notify: peer -\d+ out of range
"""Step 07's classic bug: a negative neighbour.

This is 07_dynamic_rank_count.py's ``across_by_get`` with one line changed.
The rank that will read my outbox sits ``half`` places to my left, and the
natural way to write that is ``(me - half) % nranks``. In Python that is
fine: ``%`` rounds toward minus infinity and -2 % 4 is 2. On the device
``%`` truncates toward zero, so at four ranks (half = 2) rank 0 computes
-2 % 4 == -2 and notifies a peer that does not exist (at two ranks it is
-1 % 2 == -1). The run stops at rank 0 with a peer-out-of-range
error. The fix is the solution's ``(me + nranks - half) % nranks``: add a
whole lap before subtracting, so the left operand never goes negative.
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
    reader = (me - half) % nranks  # the bug: negative at rank 0, and % truncates
    mine = pl.load(x, [0, 0], [1, SIZE])
    outbox = pl.store(mine, [0, 0], outbox)
    pld.system.notify(ready, reader, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(ready, [source, 0], 1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(y, peer=source, src=outbox)
    return y


@pl.jit
def across_get_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    outbox: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    ready: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return across_get_kernel(x, y, outbox, ready)


@pl.jit.host
def across_by_get(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: one outbox and one ready cell per writer, sized from the world."""
    outbox_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, SIZE], dtype=pl.FP32)
        ready = pld.window(ready_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        across_get_dev(x[r], y[r], outbox, ready, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 07's bug: a negative neighbour")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = across_by_get.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    want = torch.roll(x, shifts=-(nr // 2), dims=0)
    assert torch.equal(y, want), "expected a peer-out-of-range stop at rank 0 before this"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
