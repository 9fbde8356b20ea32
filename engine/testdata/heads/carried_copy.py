# Upstream HEAD's loop forms: a loop-carried tensor threaded through
# pl.range(..., init_values=...) and handed on by pl.yield_, and pl.min of
# two scalars sizing the last chunk, whose tile overhangs the tensor
# (valid_shape keeps the read and the write inside it).
#! entry: copy_all
#! ranks: 2
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 80
CHUNK = 32


@pl.jit.incore
def chunked_copy(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    for col, (acc,) in pl.range(0, SIZE, CHUNK, init_values=(y,)):
        width = pl.min(CHUNK, SIZE - col)
        t = pl.load(x, [0, col], [1, CHUNK], valid_shape=[1, width])
        acc = pl.store(t, [0, col], acc)
        done = pl.yield_(acc)
    return done


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
):
    return chunked_copy(x, y)


@pl.jit.host
def copy_all(
    x: pl.Tensor[[2, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], device=r)
