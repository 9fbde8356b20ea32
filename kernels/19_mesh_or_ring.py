#! entry: build_allreduce({P}, 1024, "mesh").run
#! entry: build_allreduce({P}, 1024, "ring").run
#! ranks: 2 3 4 8
#! golden: y[r] == sum over k of x[k], for every rank r (FP32, allclose rtol 1e-5 atol 1e-5), for both entries
#! sweep: mesh build_allreduce({P}, {SIZE}, "mesh").run
#! sweep: ring build_allreduce({P}, {SIZE}, "ring").run

"""Step 19 - mesh or ring: which all-reduce is faster depends on the size.

Step 11 showed that one argument, ``mode``, switches the builtin all-reduce
between two schedules. Both give the same answer; they differ in what they
cost.

* ``"mesh"``: every rank reads every peer's chunk and adds it to its own:
  ``(P - 1) * N`` elements cross the links per rank, but the whole job is a
  ready barrier plus one barrier per 16 KiB chunk.
* ``"ring"``: the classic reduce-scatter then all-gather, ``2 * (P - 1)``
  rounds in which each rank reads only ``N / P`` elements from its left
  neighbour: ``2 * (P - 1) / P * N`` elements per rank, about a quarter of
  the mesh's at ``P = 8``, but two barriers per round and per 16 KiB piece.

So a small all-reduce is a race of barriers, which the mesh wins, and a
large one a race of bytes, which the ring wins. Where they cross depends on
the link's latency and bandwidth. Sweep it:

    workbench sweep kernels/19_mesh_or_ring.py --ranks 2,4,8 --sizes 1K:16M

The ``#! sweep`` lines above name the two variants; ``{SIZE}`` is the
number of FP32 elements each rank contributes. The sweep prints, per rank
count, a table like the one nccl-tests prints (time, algbw, busbw) and the
size at which the faster mode changes.

A common rule of thumb puts the crossover near 16 KiB. The workbench's 910B
profile, every constant taken from its source and none fitted, puts it at
``P = 8`` between 32 and 64 KiB (the times cross near 48 KiB; at ``P = 4``
near 45 KiB; at ``P = 2`` the mesh wins at every size, since the ring then
moves as many bytes as the mesh). The rule of thumb charges the ring one
link latency per step. This ring pays two barriers with every peer per
round, 28 of them at ``P = 8``, each a 0.5 µs latency plus 14 signal
operations: it costs about 29 µs before it moves a byte, where the mesh
costs 6. The mesh, run by one AI core, reads its seven peers one after
another, and each 16 KiB read pays its own latency: past 16 KiB its time
grows by about 0.67 ns per byte, the ring's by about 0.1, so the mesh's
lead of 19 µs at 16 KiB is used up near 48 KiB. At 16 MiB the ring is 2.2
times faster.

The factory takes the size so the same source serves every point of the
sweep. Staging in and out goes through 16 KiB tiles, the chunk the builtin
itself works in, so no tile grows with the payload.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

TILE = 4096


def build_allreduce(nr: int, size: int, mode: str):
    """Return the builtin all-reduce of ``size`` FP32 elements per rank, for ``nr`` ranks, in ``mode``."""
    if mode == "mesh":
        sig_rows, sig_cols = nr, 1
    elif mode == "ring":
        sig_rows, sig_cols = 2 * (nr - 1), nr
    else:
        raise ValueError(f"mode is 'mesh' or 'ring', got {mode!r}")
    tile = min(size, TILE)
    if size % tile != 0:
        raise ValueError(f"size {size} is not a multiple of the {tile}-element tile")
    tiles = size // tile

    @pl.program
    class MeshOrRing:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_step(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            """AI core: stage my slice in, one builtin call, stage the sum out."""
            for i in pl.range(tiles):
                mine = pl.load(x, [0, i * tile], [1, tile])
                acc = pl.store(mine, [0, i * tile], acc)
            acc = pld.tensor.allreduce(acc, signal, op=pld.ReduceOp.Sum, mode=mode)
            for i in pl.range(tiles):
                total = pl.load(acc, [0, i * tile], [1, tile])
                y = pl.store(total, [0, i * tile], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def reduce_dev(
            self,
            x: pl.Tensor[[1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[1, size], pl.FP32]],
            acc: pl.InOut[pld.DistributedTensor[[1, size], pl.FP32]],
            signal: pl.InOut[pld.DistributedTensor[[sig_rows, sig_cols], pl.INT32]],
        ) -> pl.Tensor[[1, size], pl.FP32]:
            return self.reduce_step(x, y, acc, signal)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def run(
            self,
            x: pl.Tensor[[nr, 1, size], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, size], pl.FP32]],
        ) -> pl.Tensor[[nr, 1, size], pl.FP32]:
            """Host: a data window, a signal window shaped for the mode, one dispatch per rank."""
            acc_buf = pld.alloc_window_buffer([1, size], dtype=pl.FP32)
            signal_buf = pld.alloc_window_buffer([sig_rows, sig_cols], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                acc = pld.window(acc_buf, [1, size], dtype=pl.FP32)
                signal = pld.window(signal_buf, [sig_rows, sig_cols], dtype=pl.INT32)
                self.reduce_dev(x[r], y[r], acc, signal, device=r)
            return y

    return MeshOrRing


def main() -> int:
    ap = argparse.ArgumentParser(description="step 19: the builtin all-reduce, mesh or ring, at one size")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1,2,3", help="comma-separated device ids, two or more")
    ap.add_argument("--mode", default="mesh", choices=["mesh", "ring"])
    ap.add_argument("--size", type=int, default=1024, help="FP32 elements per rank")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    program = build_allreduce(nr, opts.size, opts.mode)
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
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"{opts.mode} P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
