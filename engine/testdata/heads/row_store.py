# Upstream HEAD's store of a lower-rank tile: a [1, SIZE] tile written at
# [0, k, 0] of a [1, K, SIZE] tensor fills row k. Each rank spreads its
# input row into every row of its output.
#! entry: host_orch
#! ranks: 2
import pypto.language as pl

K = 3
SIZE = 64


@pl.jit.incore
def spread(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, K, SIZE], pl.FP32]],
):
    t = pl.load(x, [0, 0], [1, SIZE])
    for k in pl.range(K):
        y = pl.store(t, [0, k, 0], y)
    return y


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, K, SIZE], pl.FP32]],
):
    return spread(x, y)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, K, SIZE], pl.FP32]],
):
    for r in pl.range(2):
        per_rank(x[r], y[r], device=r)
