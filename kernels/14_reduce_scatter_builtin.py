#! entry: reduce_scatter_builtin
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
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

NR = pl.dynamic("NR")
SIZE = 64


@pl.jit.incore
def reduce_scatter_step(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
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


@pl.jit
def reduce_scatter_step_dev(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    stage: pl.InOut[pld.DistributedTensor[[NR, SIZE], pl.FP32]],
    arrived: pl.InOut[pld.DistributedTensor[[NR, 1], pl.INT32]],
):
    return reduce_scatter_step(x, y, stage, arrived)


@pl.jit.host
def reduce_scatter_builtin(
    x: pl.Tensor[[NR, NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    """Host: an [NR, SIZE] staging window and an [NR, 1] signal window."""
    stage_buf = pld.alloc_window_buffer(pld.world_size() * SIZE * pl.FP32.get_byte())
    arrived_buf = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())
    for r in pl.range(pld.world_size()):
        stage = pld.window(stage_buf, [NR, SIZE], dtype=pl.FP32)
        arrived = pld.window(arrived_buf, [NR, 1], dtype=pl.INT32)
        reduce_scatter_step_dev(x[r], y[r], stage, arrived, device=r)


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
    cfg = RunConfig(platform=opts.platform, distributed_config=DistributedConfig(device_ids=ids, num_sub_workers=0))
    compiled = reduce_scatter_builtin.compile(x, y, config=cfg)
    if opts.compile_only:
        print(f"compiled for {nr} ranks into {compiled.output_dir}")
        return 0
    compiled(x, y, config=RunConfig(platform=opts.platform))

    want = x.sum(dim=0).unsqueeze(1)
    assert torch.allclose(y, want, rtol=1e-5, atol=1e-5), f"P={nr}: max error {(y - want).abs().max().item()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
