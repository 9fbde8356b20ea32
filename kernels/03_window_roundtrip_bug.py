#! entry: peek_right
#! ranks: 2 3 4 8
#! golden: y[r] == x[(r + 1) mod P] for every rank r (FP32, exact copy)
#! bug: wrong_data ^y: \d+ of \d+ elements wrong: y\[0, 0, 0\] got 0, want

"""Step 03's classic bug: a window read as if it were one shared buffer.

The learner wants every rank to end up with its right neighbour's slice,
``y[r] = x[(r + 1) mod P]``, and reads "every rank owns a copy of the
window, laid out the same way" as "there is one window that every rank
sees". So each rank writes its slice into row ``me`` of a ``[NR, SIZE]``
window and reads row ``right`` back with a plain ``pl.load``.

But a plain load or store on a window view touches only the rank's own
copy. Rank ``right`` wrote row ``right`` of *its* copy; row ``right`` of
mine was never written and still holds the zeros a window starts with. The
run is clean (no rank touches another's memory, so there is nothing to
race) and every output is zeros: the check reports wrong data at every
rank count. The fix needs the next steps: a barrier so the neighbour has
written (step 04), then ``pld.tile.remote_load(board, right, ...)`` to
read the neighbour's copy (step 05).
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
def peek_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    board: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
):
    """AI cores: write my row, read my neighbour's row, all in my own copy."""
    ctx = pld.get_comm_ctx(board)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)
    right = (me + 1) % nranks

    mine = pl.load(x, [0, 0], [1, SIZE])
    board = pl.store(mine, [me, 0], board)
    theirs = pl.load(board, [right, 0], [1, SIZE])  # the bug: my copy, not right's
    y = pl.store(theirs, [0, 0], y)
    return y


@pl.jit
def peek_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    board: pl.InOut[pld.DistributedTensor[[MAX_RANKS, SIZE], pl.FP32]],
):
    return peek_kernel(x, y, board)


@pl.jit.host
def peek_right(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] window, one row per rank, in every rank's copy."""
    board_buf = pld.alloc_window_buffer([MAX_RANKS, SIZE], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        board = pld.window(board_buf, [MAX_RANKS, SIZE], dtype=pl.FP32)
        peek_dev(x[r], y[r], board, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 03's bug: a peer's row read from my own copy")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = peek_right.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    ok = torch.equal(y, torch.roll(x, shifts=-1, dims=0))
    print("OK" if ok else "wrong: every rank read zeros from its own copy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
