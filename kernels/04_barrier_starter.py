#! starter: the barrier in meet: a notify loop to every other rank, then a wait loop on every other rank's row
#! entry: barrier_tally
#! ranks: 2 3 4 8

"""Step 04 starter - a barrier by hand. Your copy to edit.

The signal window ``arrived`` has one INT32 row per rank, all zero at the
start. Build a barrier out of it: every rank announces its arrival to each
other rank, then waits until each other rank has announced its own. After
the barrier the kernel copies its column of the window into ``tally``,
which must show a 1 from every peer and a 0 in the rank's own row. As
shipped there is no barrier, so every tally is all zeros. Fill in the gap
marked TODO(you), then run ``workbench step 4 --check FILE``. The lesson is
tutorials/04-barrier.md.
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

    # TODO(you): a barrier. When this rank goes past it, every other rank
    #   must have reached it too. Give every rank a way to say "I am here"
    #   that the others can see, and make this rank hold until it has seen
    #   that from all of them. The window `arrived` has one cell per rank.
    #   Think about which cell each rank may write, so that no two ranks
    #   write the same one, and about the order: a rank that waits before
    #   it has announced itself can hang everyone. The lesson's hints go
    #   from the idea to the code.
    # Placeholder: no barrier, so the tally below reads an untouched window.
    # ---- end of TODO ----

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
