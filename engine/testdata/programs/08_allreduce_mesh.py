#! entry: build_mesh_allreduce({P}).mesh_sum
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5)

"""All-reduce, first version: every rank reads every other rank (a mesh).

Four phases: stage my slice in my window, barrier, add up every peer's slice
with ``pld.tile.remote_load``, write the sum to my output. After it every rank
holds the same element-wise sum.

The signal window has one row per rank, ``[nr, 1]``, and a window's shape has
to be known when the program is built. So the program lives inside a factory,
``build_mesh_allreduce(nr)``: the rank count is an ordinary Python argument,
and inside the class it is a constant the shapes can use.

Each rank visits its peers starting from its right neighbour,
``(me + 1 + k) % nranks``, rather than from rank 0, so the ranks do not all
read rank 0 first. The sums are added in different orders on different ranks;
compare them with a tolerance.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_mesh_allreduce(nr: int):
    """Return the mesh all-reduce program for ``nr`` ranks."""

    @pl.program
    class MeshSum:
        @pl.function(type=pl.FunctionType.InCore)
        def sum_step(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            """AI core: stage, barrier, accumulate, write out."""
            ctx = pld.get_comm_ctx(part)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)

            mine = pl.load(x, [0, 0], [1, SIZE])
            part = pl.store(mine, [0, 0], part)

            # Without this barrier a remote_load can run before the peer has
            # staged, and read zeros or an old slice.
            for peer in pl.range(nr):
                if peer != me:
                    pld.system.notify(arrived, peer, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for src in pl.range(nr):
                if src != me:
                    pld.system.wait(arrived, [src, 0], 1, cmp=pld.WaitCmp.Ge)

            total = pl.load(part, [0, 0], [1, SIZE])
            for k in pl.range(nranks - 1):
                donor = (me + 1 + k) % nranks
                theirs = pld.tile.remote_load(part, donor, [0, 0], [1, SIZE])
                total = pl.add(total, theirs)

            return pl.store(total, [0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def dev_orch(
            self,
            x: pl.Tensor[[1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            part: pl.InOut[pld.DistributedTensor[[1, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[1, SIZE], pl.FP32]:
            return self.sum_step(x, y, part, arrived)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def mesh_sum(
            self,
            x: pl.Tensor[[nr, 1, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, SIZE], pl.FP32]:
            """Host: one data window and one signal window, shared by all ranks."""
            part_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer(nr * pl.INT32.get_byte())
            for r in pl.range(pld.world_size()):
                part = pld.window(part_buf, [1, SIZE], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.dev_orch(x[r], y[r], part, arrived, device=r)
            return y

    return MeshSum


def golden(x: torch.Tensor) -> torch.Tensor:
    """Every rank ends with the sum over ranks."""
    total = x.sum(dim=0, keepdim=True)
    return total.expand_as(x).clone()


def main() -> int:
    ap = argparse.ArgumentParser(description="mesh all-reduce")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="two or more comma-separated device ids")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_mesh_allreduce(nr)
    x = torch.randn(nr, 1, SIZE)
    y = torch.zeros_like(x)

    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = golden(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
