#! entry: reduce_twice
#! ranks: 2 3 4 8
#! golden: first[r] == sum over k of x[k]; second[r] == sum over k of x[k]*x[k] (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: race stored at line 71 over what rank \d+ read at line 66

"""Step 20's race: a data window reused before every peer has read it.

Two hand-rolled mesh all-reduces in a row - of ``x``, then of ``x * x`` -
on one data window and one signal window. The signal is reused the right
way: every notify adds one, and the second barrier waits for a tally of
2, so it cannot be satisfied by the first round's notifies. The data
window is not. A rank that has finished reading round one restages
``part`` with ``x * x`` at once, while a slower peer may still be reading
round one's ``x`` from it. Nothing orders that peer's read before this
store, and the race detector says so, naming the restaging store and the
remote load.

The builtin all-reduce avoids this with its read-done barrier (step 18):
nobody overwrites the window until every peer has said "I have read it".
The fix here is the same, a barrier between the last remote load of round
one and the restaging store (wait for 2 there, and 3 before round two's
reads).
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
def sum_twice(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: two mesh all-reduces on one data window, no read-done barrier."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    mine = pl.load(x, [0, 0], [1, SIZE])

    # Round one: stage x, barrier (tally >= 1), add up every slice.
    part = pl.store(mine, [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 1, cmp=pld.WaitCmp.Ge)
    acc = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            acc = pl.add(acc, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    first = pl.store(acc, [0, 0], first)

    # Round two: restage at once - a slower peer may still be reading
    # round one from this window. The bug.
    part = pl.store(pl.mul(mine, mine), [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(tally, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(tally, [src, 0], 2, cmp=pld.WaitCmp.Ge)
    acc = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            acc = pl.add(acc, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    second = pl.store(acc, [0, 0], second)
    return second


@pl.jit
def sum_twice_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    tally: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return sum_twice(x, first, second, part, tally)


@pl.jit.host
def reduce_twice(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    first: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
    second: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: one data window and one signal window for both all-reduces."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    tally_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        tally = pld.window(tally_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        sum_twice_dev(x[r], first[r], second[r], part, tally, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 20's race: a data window restaged before every peer read it")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    first = torch.zeros(nr, 1, SIZE)
    second = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = reduce_twice.compile(x, first, second, config=cfg)
    compiled(x, first, second, config=RunConfig(platform=opts.platform))
    ok = torch.allclose(first, x.sum(dim=0, keepdim=True).expand_as(x), rtol=1e-5, atol=1e-5)
    ok = ok and torch.allclose(second, (x * x).sum(dim=0, keepdim=True).expand_as(x), rtol=1e-5, atol=1e-5)
    print("OK (this time)" if ok else "wrong sums: a window was restaged while a peer still read it")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
