# Upstream HEAD's element-wise operations on whole tensors in a kernel:
# pl.tensor.add(x, x) is the tile of x added to itself.
#! entry: host_orch
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64


@pl.jit.incore
def double(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    twice = pl.tensor.add(x, x)
    return pl.store(twice, [0, 0], y)


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return double(x, y)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
