# Upstream HEAD's tensor-level operations in a kernel: pl.slice picks a
# row of a tensor, pl.add computes on it, pl.assemble writes it back.
# Every rank adds one to its input, row by row.
#! entry: host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

ROWS = 4
COLS = 32


@pl.jit.incore
def add_one(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for row in pl.range(ROWS):
        x_row = pl.slice(x, [1, COLS], [row, 0])
        y_row = pl.add(x_row, 1.0)
        y = pl.assemble(y, y_row, [row, 0])
    return y


@pl.jit
def per_rank(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    return add_one(x, y)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[2, ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[2, ROWS, COLS], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
