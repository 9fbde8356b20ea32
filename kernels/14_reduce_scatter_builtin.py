#! entry: build_reduce_scatter({P}).reduce_scatter_builtin
#! ranks: 2 3 4 8
#! golden: y[r, 0, j] == sum over k of x[k, r, j] for every rank r and column j (FP32, allclose rtol 1e-5 atol 1e-5)

"""Step 14, revealed - reduce-scatter as one call.

Each rank stages its ``P`` chunks in the rows of an ``[NR, SIZE]`` window,
exactly as the pull version of ``14_reduce_scatter_hand.py`` did, and then
calls

    stage = pld.tensor.reduce_scatter(stage, arrived, op=pld.ReduceOp.Sum)

When it returns, row ``me`` of my window holds chunk ``me`` summed over all
ranks. The other rows are left as I staged them, so read row ``me`` and
nothing else.

The lowered IR has two things the hand-rolled kernel did without:

* a second barrier between the sums and the store of the result. When the
  call returns, every peer has finished reading my window, so I may
  restage it at once for the next round - the hand-rolled kernel never
  needed to, as it ran only once;
* the epilogue that hands the credits back, leaving ``arrived`` clean.

Only ``Sum`` is accepted: ``op=pld.ReduceOp.Max`` is a compile error. For a
maximum per chunk, all-reduce with ``Max`` and keep your own chunk.
"""

import argparse

import pypto.language as pl
import pypto.language.distributed as pld
import torch
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig

SIZE = 64


def build_reduce_scatter(nr: int):
    """Return the program for ``nr`` ranks: window shapes are numbers when it is built."""

    @pl.program
    class ReduceScatter:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce_scatter_step(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            """AI cores: stage every chunk, one builtin call, read my reduced row."""
            ctx = pld.get_comm_ctx(stage)
            me = pld.rank(ctx)
            nranks = pld.nranks(ctx)

            for c in pl.range(nranks):
                piece = pl.load(x, [c, 0], [1, SIZE])
                stage = pl.store(piece, [c, 0], stage)
            stage = pld.tensor.reduce_scatter(stage, arrived, op=pld.ReduceOp.Sum)

            total = pl.load(stage, [me, 0], [1, SIZE])
            y = pl.store(total, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def reduce_scatter_step_dev(
            self,
            x: pl.Tensor[[nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
            stage: pl.InOut[pld.DistributedTensor[[nr, SIZE], pl.FP32]],
            arrived: pl.InOut[pld.DistributedTensor[[nr, 1], pl.INT32]],
        ):
            return self.reduce_scatter_step(x, y, stage, arrived)

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def reduce_scatter_builtin(
            self,
            x: pl.Tensor[[nr, nr, SIZE], pl.FP32],
            y: pl.Out[pl.Tensor[[nr, 1, SIZE], pl.FP32]],
        ):
            """Host: an [nr, SIZE] staging window and an [nr, 1] signal window."""
            stage_buf = pld.alloc_window_buffer([nr, SIZE], dtype=pl.FP32)
            arrived_buf = pld.alloc_window_buffer([nr, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                stage = pld.window(stage_buf, [nr, SIZE], dtype=pl.FP32)
                arrived = pld.window(arrived_buf, [nr, 1], dtype=pl.INT32)
                self.reduce_scatter_step_dev(x[r], y[r], stage, arrived, device=r)

    return ReduceScatter


def main() -> int:
    ap = argparse.ArgumentParser(description="step 14 revealed: pld.tensor.reduce_scatter")
    ap.add_argument("-p", "--platform", default="a2a3sim", choices=["a2a3", "a2a3sim", "a5", "a5sim"])
    ap.add_argument("-d", "--device", default="0,1", help="comma-separated device ids, two or more")
    ap.add_argument("--compile-only", action="store_true")
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",")]
    if len(ids) < 2:
        raise SystemExit(f"need at least two device ids, got {ids}")
    nr = len(ids)

    x = torch.randn(nr, nr, SIZE)
    y = torch.zeros(nr, 1, SIZE)
    compiled = ir.compile(
        build_reduce_scatter(nr),
        platform=opts.platform,
        distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0),
    )
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y)

    want = x.sum(dim=0).unsqueeze(1)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
