#! entry: sum_in_turn
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[1, 0, 0\]

"""Step 20's silent corruption: a sum written back where the peers read.

The learner wants to spare an output buffer and is careful about races.
Every rank stages its slice in ``part``, a barrier makes sure all slices
are there, and then the ranks take turns, passed along by a token: in its
turn a rank adds every peer's ``part`` to its own and writes the total
back into its own ``part`` (and into ``y``), then hands the token to the
next rank.

Every remote read is ordered after the store it depends on, so the race
detector finds nothing, and nothing hangs. The answer is still wrong for
every rank but 0: by the time rank ``r`` takes its turn, ranks ``0 .. r-1``
have replaced their slices with totals, so rank ``r`` adds those totals
instead of the slices and counts most slices more than once. Only a
comparison with the golden catches it. The fix is to keep the window for
the slices alone and put the total somewhere no peer reads (``y`` here);
the builtin does write back into its window, but only after a read-done
barrier, when every peer has finished with the slices (step 18).
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
def add_in_turn(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    token: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    """AI cores: stage, barrier, then in turn sum every slice in place."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage, and a barrier: every slice is in place before any read.
    part = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], part)
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    # 2. Wait for my turn: rank 0 starts, every other rank waits for the token.
    if me != 0:
        pld.system.wait(token, [0, 0], 1, cmp=pld.WaitCmp.Ge)

    # 3. Sum every rank's part and write the total back into mine - the bug:
    #    the ranks after me will read my total as if it were my slice.
    total = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            total = pl.add(total, pld.tile.remote_load(part, peer, [0, 0], [1, SIZE]))
    part = pl.store(total, [0, 0], part)
    y = pl.store(total, [0, 0], y)

    # 4. Hand the token to the next rank.
    if me + 1 < nranks:
        pld.system.notify(token, me + 1, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    return y


@pl.jit
def add_in_turn_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
    token: pl.InOut[pld.DistributedTensor[[1, 1], pl.INT32]],
):
    return add_in_turn(x, y, part, arrived, token)


@pl.jit.host
def sum_in_turn(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a data window, a staging barrier's signal and a one-cell token."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    token_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        token = pld.window(token_buf, [1, 1], dtype=pl.INT32)
        add_in_turn_dev(x[r], y[r], part, arrived, token, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 20's silent corruption: the sum written back in place")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = sum_in_turn.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    want = x.sum(dim=0, keepdim=True).expand_as(x)
    print("OK" if torch.allclose(y, want, rtol=1e-5, atol=1e-5) else "wrong sums on every rank but 0: totals were read as slices")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
