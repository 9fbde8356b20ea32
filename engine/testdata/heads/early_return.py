# Upstream HEAD's early return: a kernel returns from inside an if, and
# the statements after it are the other path. Rank 0 doubles its input,
# the other ranks copy theirs.
#! entry: host_orch
#! ranks: 2 4
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
NR = pl.dynamic("NR")


@pl.jit.incore
def step(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    me: pl.Scalar[pl.INT32],
):
    t = pl.load(x, [0, 0], [1, SIZE])
    if me == 0:
        d = pl.add(t, t)
        return pl.store(d, [0, 0], y)
    return pl.store(t, [0, 0], y)


@pl.jit
def per_rank(
    x: pl.Tensor[[1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
    me: pl.Scalar[pl.INT32],
):
    return step(x, y, me)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[NR, 1, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x[r], y[r], r, device=r)
