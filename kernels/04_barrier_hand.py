#! entry: barrier_tally
#! ranks: 2 3 4 8
#! golden: tally[r, i, 0] == 0 when i == r, else 1 (INT32, exact)

"""Step 04 - a barrier built by hand, and the tally it leaves.

A barrier is a meeting point: nobody leaves until everybody has arrived.
Built from signals it takes two loops over the ranks:

1. arrive: add 1 to the cell ``[me, 0]`` in every *other* rank's copy of
   the signal window (``pld.system.notify`` with ``NotifyOp.AtomicAdd``);
2. wait: for every other rank ``src``, block until the cell ``[src, 0]`` in
   my own copy is at least 1 (``pld.system.wait`` with ``WaitCmp.Ge``).

Row ``k`` is written only by rank ``k``, so each cell has exactly one
writer. All the notifies come before the first wait: a rank that stopped to
wait halfway through its notifies would keep the ranks it had not yet
notified waiting for it, and they for it - a deadlock.

After the barrier each rank copies its signal column into its output, cell
by cell with ``pl.read``/``pl.write``. (A tile load would not do: an
``[NR, 1]`` INT32 column is narrower than the 32 bytes a hardware tile row
needs.) The tally shows a 1 from every peer and a 0 in the rank's own row,
which nobody bumps. The counters never go back down, so this window is good
for one barrier only; a second barrier on it would pass at once.

The signal window has one row per rank. Its size is the world size times 4
bytes, computed on the host when the program runs, and the kernel declares
it ``[NR, 1]``.
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


@pl.jit.incore
def meet(
    tally: pl.Out[pl.Tensor[[NR, 1], pl.INT32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: arrive everywhere, wait for everyone, copy the tally out."""
    ctx = pld.get_comm_ctx(arrived)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(nranks):
        if src != me:
            pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

    for row in pl.range(nranks):
        count = pl.read(arrived, [row, 0])
        pl.write(tally, [row, 0], count)
    return tally


@pl.jit
def meet_dev(
    tally: pl.Out[pl.Tensor[[NR, 1], pl.INT32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return meet(tally, arrived)


@pl.jit.host
def barrier_tally(
    tally: pl.Out[pl.Tensor[[NR, NR, 1], pl.INT32]],
):
    """Host: one INT32 cell per rank in the signal window; no input tensor."""
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        meet_dev(tally[r], arrived, device=r)


def expected(nr: int) -> torch.Tensor:
    """A 1 from every peer, a 0 in each rank's own row."""
    want = torch.ones((nr, nr, 1), dtype=torch.int32)
    for r in range(nr):
        want[r, r, 0] = 0
    return want


def main() -> int:
    ap = argparse.ArgumentParser(description="step 04: a hand-rolled barrier and its tally")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    tally = torch.zeros((nr, nr, 1), dtype=torch.int32)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = barrier_tally.compile(tally, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(tally, config=RunConfig(platform=opts.platform))

    want = expected(nr)
    assert torch.equal(tally, want), f"P={nr}: tally {tally.tolist()} != {want.tolist()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
