#! starter: the barrier after staging, and the accumulate loop that adds every peer's slice with remote_load
#! entry: mesh_allreduce
#! ranks: 2 3 4 8

"""Step 08 starter - the mesh all-reduce. Your copy to edit.

Every rank must leave with the element-wise sum of all the ranks' slices,
``y[r] = x[0] + x[1] + ... + x[P-1]``. The kernel stages its slice in its
copy of the ``part`` window; then it needs a barrier so that every rank has
staged, and a loop that adds each peer's staged slice to its own. As
shipped there is no barrier and no loop: each rank's sum is its own slice
alone, so ``y == x``. Fill in the gaps marked TODO(you), then run
``workbench step 8 --check FILE``. The lesson is
tutorials/08-allreduce-mesh.md.
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
    """AI cores: stage, barrier, add up every rank's slice, write out."""
    ctx = pld.get_comm_ctx(part)
    me = pld.rank(ctx)
    nranks = pld.nranks(ctx)

    # 1. Stage.
    mine = pl.load(x, [0, 0], [1, SIZE])
    part = pl.store(mine, [0, 0], part)

    # 2. Barrier.
    # TODO(you): nobody may read a peer's `part` before that peer has
    #   staged it. Make sure of that here, with what step 04 built, on the
    #   `arrived` window.
    # Placeholder: no barrier.
    # ---- end of TODO ----

    # 3. Accumulate, own slice first.
    total = pl.load(part, [0, 0], [1, SIZE])
    # TODO(you): `total` must end as the sum of every rank's staged slice.
    #   It already holds yours; the others are in the peers' copies of
    #   `part`, which step 05 showed how to read.
    # Placeholder: `total` stays this rank's own slice.
    # ---- end of TODO ----

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
