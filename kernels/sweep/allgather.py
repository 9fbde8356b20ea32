#! sweep: builtin build_allgather({P}, {SIZE}).run

"""A sweepable all-gather: the builtin, at any size.

``workbench sweep kernels/sweep/allgather.py --ranks 2,4,8 --sizes 1K:16M``
runs the kernel-form builtin ``pld.tensor.allgather`` at every size and
rank count and prints an nccl-tests style table.

``{SIZE}`` follows nccl-tests: it counts the FP32 elements each rank ends
up with, the whole gathered array, so each rank contributes ``SIZE / nr``
of them. The builtin pushes the slice into row ``me`` of every rank's
window, one put per destination, then runs a credit barrier; on one AI
core the puts go out one after another, so one link carries data at a
time. The bus bandwidth it reaches is therefore what one stream moves over
one link, not the seven links of an 8-card server.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

TILE = 4096


def build_allgather(nr: int, size: int):
    """Return the builtin all-gather of ``size`` FP32 elements in all, ``size / nr`` from each of ``nr`` ranks."""
    if size % nr != 0:
        raise ValueError(f"size {size} does not divide among {nr} ranks")
    chunk = size // nr
    tile = min(chunk, TILE)
    if chunk % tile != 0:
        raise ValueError(f"a {chunk}-element slice is not a multiple of the {tile}-element tile")
    tiles = chunk // tile

    @pl.program
    class Allgather:
        @pl.function(type=pl.FunctionType.InCore)
        def gather_step(
            self,
            x: pl.Tensor[[1, chunk], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, chunk], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, chunk], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, chunk], pl.FP32]:
            """AI core: one builtin call, then every row of my window out, a tile at a time."""
            gather = pld.tensor.allgather(x, gather, arrived)
            for s in pl.range(nr):
                for i in pl.range(tiles):
                    row = pl.load(gather, [s, i * tile], [1, tile])
                    y = pl.store(row, [s, i * tile], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def gather_dev(
            self,
            x: pl.Tensor[[1, chunk], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, chunk], pl.FP32]],
            gather: pl.InOut[pld.DistributedTensor[[nr, chunk], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ) -> pl.Tensor[[nr, chunk], pl.FP32]:
            return self.gather_step(x, y, gather, arrived)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def run(
            self,
            x: pl.Tensor[[nr, 1, chunk], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, nr, chunk], pl.FP32]],
        ) -> pl.Tensor[[nr, nr, chunk], pl.FP32]:
            """Host: an [nr, chunk] gather window and an [nr, 1] signal window."""
            gather_buf = pld.alloc_window_buffer([nr, chunk], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                gather = pld.window(gather_buf, [nr, chunk], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.gather_dev(x[r], y[r], gather, arrived, device=r)
            return y

    return Allgather


def main() -> int:
    ap = argparse.ArgumentParser(description="the builtin all-gather at one size")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--size", type=int, default=1024, help="FP32 elements gathered on each rank")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    program = build_allgather(nr, opts.size)
    x = torch.randn(nr, 1, opts.size // nr)
    y = torch.zeros(nr, nr, opts.size // nr)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled.run(x, y)

    want = x.reshape(1, nr, -1).expand(nr, nr, -1)
    assert torch.equal(y, want), f"P={nr}: the gathered rows differ"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
