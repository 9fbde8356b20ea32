#! entry: all_to_all_aliased
#! ranks: 2 3 4 8
#! golden: y[r, s, j] == x[s, r, j] for every rank r, source s and column j (FP32, exact copy)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong
"""Step 15's classic bug: one window as both source and target.

The learner wants to save a window: stage the whole input in ``box``, then
put row ``d`` of ``box`` into row ``me`` of rank ``d``'s ``box``, so the
same rows that are being sent are the ones being received into. To rule
out races the ranks even take turns: rank 0 sends all its rows, passes a
token to rank 1, which sends all of its rows, and so on; the last rank
tells everyone it is done.

Every access is ordered, so the race detector has nothing to report, and
the answer is still wrong. When rank ``r``'s turn comes, row ``d`` of its
box for every ``d < r`` no longer holds what ``r`` meant for ``d``: rank
``d`` already wrote its own chunk for ``r`` there. So rank ``r`` sends rank
``d``'s data straight back to ``d``. Only a comparison with the golden
shows it. The fix is the solution's: read from ``x`` (or a separate
outbox) and write into a separate inbox, so no row is both.
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
def a2a_aliased_kernel(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    staged: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    turn: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]],
):
    """AI cores: stage into box, take turns putting box rows into peers' boxes, copy box out."""
    ctx = pld.get_comm_ctx(box)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # Stage every row, then a barrier so nobody writes into a box early.
    for d in pl.range(nranks):
        row = pl.load(x, [d, 0], [1, SIZE])
        box = pl.store(row, [d, 0], box)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(staged, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(staged, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    # Take turns: wait for the token, send every row, pass the token on.
    if me > 0:
        pld.system.wait(turn, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    for k in pl.range(1, nranks):
        dest = (me + k) % nranks
        pld.tensor.put(box, dest, box, [me, 0], [dest, 0], [1, SIZE])  # the bug: box is source and target
    if me < nranks - 1:
        pld.system.notify(turn, me + 1, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    else:
        for peer in pl.range(nranks - 1):
            pld.system.notify(turn, peer, [1, 0], 1, op=pld.NotifyOp.AtomicAdd)
    if me < nranks - 1:
        pld.system.wait(turn, [1, 0], 1, cmp=pld.WaitCmp.Ge)

    for s in pl.range(nranks):
        row = pl.load(box, [s, 0], [1, SIZE])
        y = pl.store(row, [s, 0], y)
    return y


@pl.jit
def a2a_aliased_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, SIZE], pl.FP32]],
    box: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
    staged: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    turn: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]],
):
    return a2a_aliased_kernel(x, y, box, staged, turn)


@pl.jit.host
def all_to_all_aliased(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, NR, SIZE], pl.FP32]],
):
    """Host: one [NR, SIZE] box for both directions, a barrier window and a token window."""
    box_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    staged_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    turn_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        box = pld.window(box_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        staged = pld.window(staged_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        turn = pld.window(turn_buf, [2, 1], dtype=pl.INT32)
        a2a_aliased_dev(x[r], y[r], box, staged, turn, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 15's bug: an aliased all-to-all window")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, nr, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = all_to_all_aliased.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    wrong = (y != x.transpose(0, 1)).any(dim=2).sum().item()
    print(f"{wrong} of {nr * nr} rows wrong")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
