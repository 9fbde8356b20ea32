"""A program that runs for seconds on the emulator: every rank adds 1.0 to
its block five million times. The streaming tests need a run that is
still executing when its first events reach the client."""

import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
ROWS = 4
COLS = 8
ITERS = 5_000_000


@pl.jit.incore
def spin(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    block = pl.load(x, [0, 0], [ROWS, COLS])
    for i in pl.range(ITERS):
        block = pl.add(block, 1.0)
    y = pl.store(block, [0, 0], y)
    return y


@pl.jit
def spin_dev(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    return spin(x, y)


@pl.jit.host
def long_run(
    x: pl.Tensor[[NR, ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, ROWS, COLS], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        spin_dev(x[r], y[r], device=r)
