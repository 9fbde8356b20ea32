# Upstream HEAD's arithmetic on a dynamic dimension in a host signature:
# the output is [NR, 1, NR * SIZE] (every rank gathers every row). The
# kernel names the product with a dimension of its own.
#! entry: host_orch
#! ranks: 2 4
import pypto.language as pl
import pypto.language.distributed as pld

SIZE = 64
NR = pl.dynamic("NR")
GATHERED = pl.dynamic("GATHERED")


@pl.jit.incore
def gather(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, GATHERED], pl.FP32]],
):
    for k in pl.range(NR):
        t = pl.load(x, [k, 0], [1, SIZE])
        y = pl.store(t, [0, k * SIZE], y)
    return y


@pl.jit
def per_rank(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[1, GATHERED], pl.FP32]],
):
    return gather(x, y)


@pl.jit.host
def host_orch(
    x: pl.Tensor[[NR, SIZE], pl.FP32],
    y: pl.Out[pl.Tensor[[NR, 1, NR * SIZE], pl.FP32]],
):
    for r in pl.range(pld.world_size()):
        per_rank(x, y[r], device=r)
