#! starter: the stage-out of reduce_step: copy the reduced window back to y, tile by tile
#! entry: build_allreduce({P}, 1024, "mesh").run
#! entry: build_allreduce({P}, 1024, "ring").run
#! ranks: 2 3 4 8

"""Step 19 starter - mesh or ring. Your copy to edit.

One factory builds the builtin all-reduce of ``size`` FP32 elements per
rank in either ``mode`` - ``"mesh"`` or ``"ring"`` - and both entries must
leave ``y[r] = x[0] + ... + x[P-1]`` on every rank. The mode and the signal
shaped for it are done: both modes give the same sum, so the step's point
is their cost, which ``workbench sweep`` measures once this runs. What is
missing is the stage-out after the call. As shipped each rank copies its
own ``x`` to ``y`` instead of the reduced window, in both modes. Fill in
the gap marked TODO(you), then run ``workbench step 19 --check FILE``. The
lesson is tutorials/19-mesh-or-ring.md.
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
            # TODO(you): stage the sum out. After the call `acc` holds the
            #   sum over ranks; `y` must get it, in tiles, the way the
            #   stage-in above filled `acc`.
            # Placeholder: your own x, not the sum.
            for i in pl.range(tiles):
                own = pl.load(x, [0, i * tile], [1, tile])
                y = pl.store(own, [0, i * tile], y)
            # ---- end of TODO ----
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
