"""A program that runs for many seconds on the emulator, written to stand
in for step 8's mesh all-reduce: its host entry has the same name and
signature (mesh_allreduce(x, y) on [NR, 1, SIZE] FP32), so the step's run
cell runs it as it is. Every rank adds 1.0 to its slice 500 million times,
far more than the run-steps budget allows: the live-streaming test stops it
long before that ends it, and the queue test lifts the budget so it holds its
slot until stopped."""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
SIZE = 64
ITERS = 500_000_000


@pl.jit.incore
def spin(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    block = pl.load(x, [0, 0], [1, SIZE])
    for i in pl.range(ITERS):
        block = pl.add(block, 1.0)
    y = pl.store(block, [0, 0], y)
    return y


@pl.jit
def spin_dev(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return spin(x, y)


@pl.jit.host
def mesh_allreduce(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        spin_dev(x[r], y[r], device=r)
