#! sweep: cores1 build_host_allreduce({P}, {SIZE}, 1).run
#! sweep: cores2 build_host_allreduce({P}, {SIZE}, 2).run
#! sweep: cores4 build_host_allreduce({P}, {SIZE}, 4).run
#! sweep: cores8 build_host_allreduce({P}, {SIZE}, 8).run

"""A sweepable HOST all-reduce: the builtin called from the host, on 1 to 8
AIV cores per rank.

``workbench sweep kernels/sweep/host_cores.py --ranks 8 --sizes 64K:16M``
compares ``core_num`` = 1, 2, 4 and 8 at every size. Called from the host
orchestrator, ``pld.tensor.allreduce`` becomes a kernel launched as a grid
of ``core_num`` blocks per rank; block ``b`` reduces the 256-element tiles
``b``, ``b + core_num``, ... with a read-done barrier per tile on its own
lane of the signal, an ``[nr, core_num]`` window. Each block is a stream
of its own, so more cores keep more transfers in flight, until the links
or the chip's aggregate are full.

``{SIZE}`` counts the FP32 elements each rank contributes. Staging in and
out goes through 16 KiB tiles.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

TILE = 4096


def build_host_allreduce(nr: int, size: int, cores: int):
    """Return the HOST all-reduce of ``size`` FP32 elements per rank on ``cores`` AIV cores per rank."""
    tile = min(size, TILE)
    if size % tile != 0:
        raise ValueError(f"size {size} is not a multiple of the {tile}-element tile")
    tiles = size // tile

    @pl.program
    class HostCores:
        @pl.function(type=pl.FunctionType.InCore)
        def publish(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
        ) -> pld.DistributedTensor[[1, size], pl.FP32]:
            """AI core: copy my input into my copy of the window."""
            for i in pl.range(tiles):
                mine = pl.load(x, [0, i * tile], [1, tile])
                data = pl.store(mine, [0, i * tile], data)
            return data

        @pl.function(type=pl.FunctionType.InCore)
        def consume(
            self,
            data: pld.DistributedTensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            """AI core: copy the reduced window to my output."""
            for i in pl.range(tiles):
                total = pl.load(data, [0, i * tile], [1, tile])
                y = pl.store(total, [0, i * tile], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def publish_dev(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            data: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
        ) -> pld.DistributedTensor[[1, size], pl.FP32]:
            return self.publish(x, data)

        @pl.function(type=pl.FunctionType.Orchestration)
        def consume_dev(
            self,
            data: pld.DistributedTensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            return self.consume(data, y)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def run(
            self,
            x: pl.Tensor[[nr, 1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, size], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, size], pl.FP32]:
            """Host: publish, the all-reduce on ``cores`` cores per rank, consume."""
            data_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            lanes_buf = pld.alloc_window_buffer([nr, cores], dtype=pl.INT32)
            lanes = pld.window(lanes_buf, [nr, cores], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                data = pld.window(data_buf, [1, size], dtype=pl.FP32)
                self.publish_dev(x[r], data, device=r)
            data = pld.window(data_buf, [1, size], dtype=pl.FP32)
            data = pld.tensor.allreduce(data, lanes, op=pld.ReduceOp.Sum, core_num=cores)
            for r in pl.range(pld.world_size()):
                self.consume_dev(data, y[r], device=r)
            return y

    return HostCores


def main() -> int:
    ap = argparse.ArgumentParser(description="the HOST all-reduce on several AIV cores per rank, at one size")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--size", type=int, default=1024, help="FP32 elements per rank")
    ap.add_argument("--cores", type=int, default=4, help="AIV cores per rank (core_num)")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    nr = len(ids)
    program = build_host_allreduce(nr, opts.size, opts.cores)
    x = torch.randn(nr, 1, opts.size)
    y = torch.zeros(nr, 1, opts.size)
    compiled = ir.compile(
        program,
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled.run(x, y)

    want = x.sum(dim=0, keepdim=True).expand_as(x)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr} cores={opts.cores}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
