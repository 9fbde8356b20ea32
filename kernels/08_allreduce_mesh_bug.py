#! entry: mesh_allreduce
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)
#! bug: race read at line 60 what rank \d+ stored at line 48

"""Step 08's classic bug: a barrier with its wait left out.

This is 08_allreduce_mesh.py with the waiting half of the barrier deleted.
Every rank still announces that its slice is staged, but nobody waits for
the announcements, so a rank may remote_load a peer's window before that
peer has stored its slice there. On hardware that reads stale data some of
the time; the emulator's race detector reports it every time, naming the
store into the window and the remote load that can overtake it. The fix is
the solution's wait loop: a rank reads a peer's slice only after that
peer's "staged" signal has arrived.
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
def mesh_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, notify, add up every rank's slice without waiting."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage.
    mine = pl.load(x, [0, 0], [1, SIZE])
    part = pl.store(mine, [0, 0], part)

    # 2. Barrier, half of it: announce "staged" to everyone ... and never
    #    wait for anyone else's announcement. The bug.
    for peer in pl.range(nranks):
        if peer != me:
            pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)

    # 3. Accumulate, own slice first.
    total = pl.load(part, [0, 0], [1, SIZE])
    for peer in pl.range(nranks):
        if peer != me:
            theirs = pld.tile.remote_load(part, peer, [0, 0], [1, SIZE])
            total = pl.add(total, theirs)

    # 4. Write out.
    y = pl.store(total, [0, 0], y)
    return y


@pl.jit
def mesh_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    return mesh_kernel(x, y, part, arrived)


@pl.jit.host
def mesh_allreduce(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: a 256-byte data window and a one-cell-per-rank signal window."""
    part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    arrived_buf = pld.alloc_window_buffer([MAX_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [MAX_RANKS, 1], dtype=pl.INT32)
        mesh_dev(x[r], y[r], part, arrived, device=r)


def main() -> int:
    ap = argparse.ArgumentParser(description="step 08's bug: the barrier without its wait")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    opts = ap.parse_args()
    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = mesh_allreduce.compile(x, y, config=cfg)
    compiled(x, y, config=RunConfig(platform=opts.platform))
    want = x.sum(dim=0, keepdim=True).expand_as(x)
    print("OK" if torch.allclose(y, want, rtol=1e-5, atol=1e-5) else "wrong sums: a rank read a slice before it was staged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
