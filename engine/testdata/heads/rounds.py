# Upstream HEAD's multi-index subscripts at the host: x[rd, r] is round
# rd's slice for rank r (x[rd][r]). Each rank copies its slice, per round.
#! entry: host_orch
#! ranks: 2
import pypto.language as pl

ROUNDS = 3
SIZE = 64


@pl.jit.incore
def copy_row(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    t = pl.load(x, [0, 0], [1, SIZE])
    return pl.store(t, [0, 0], y)


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return copy_row(x, y)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[ROUNDS, 2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[ROUNDS, 2, 1, SIZE], pl.FP32]],
):
    for rd in pl.range(ROUNDS):
        for r in pl.range(2):
            per_rank(x[rd, r], y[rd, r], device=r)
