#! entry: mesh_allreduce
#! ranks: 2 3 4 8
#! golden: none: the missing wait makes this a race; the race detector names the stage-in store and the remote_load, and --schedule adversarial gives a wrong sum

"""Step 08's mesh all-reduce with its wait loop deleted: a race to find.

The rest of this docstring describes the correct kernel it was cut from.

Step 08 - all-reduce, version 1: the mesh.

All-reduce: every rank brings a slice, every rank leaves with the
element-wise sum of all of them, ``y[r] = x[0] + x[1] + ... + x[P-1]``.

The mesh is the most direct way to get there. Every rank reads every other
rank's slice, in four phases:

1. stage: copy my slice into my copy of the ``part`` window;
2. barrier: the hand-rolled one from step 04, so that no rank starts
   reading before every rank has staged;
3. accumulate: start from my own slice and add each peer's, fetched with
   ``pld.tile.remote_load``;
4. write the sum to my output.

Leave out the barrier and a fast rank reads a window its peer has not
filled yet: zeros, and a wrong sum that may show up only now and then, or
only at larger P.

Each rank moves ``(P - 1) * SIZE`` floats: simple, and fine for small
slices, but the traffic grows with P. Steps 09 and 10 cut it down.

Every rank adds the same numbers in a different order (its own slice
first), so the ranks' results can differ in the last bits: compare with a
tolerance, not for equality.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
# PyPTO's @pl.jit sizes windows with constants: a row per rank, up to 8.
MAX_RANKS = 8
SIZE = 64


@pl.jit.incore
def mesh_kernel(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[MAX_RANKS, 1], pl.INT32]],
):
    """AI cores: stage, barrier, add up every rank's slice, write out."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage.
    mine = pl.load(x, [0, 0], [1, SIZE])
    part = pl.store(mine, [0, 0], part)

    # 2. Barrier, BROKEN on purpose: it announces "staged" but never waits,
    #    so a rank may read a peer's slot before the peer has staged it.
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


def expected(x: torch.Tensor) -> torch.Tensor:
    """The sum over ranks, on every rank."""
    return x.sum(dim=0, keepdim=True).expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="step 08: mesh all-reduce")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = mesh_allreduce.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = expected(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
